import { apiErrorOf, apiErrorOfResponse, isRecord } from '../api-error.ts';
import { PorticoError } from '../errors.ts';
import type { ErrorCode } from '../generated/error-codes.ts';

/** One entry of a GraphQL answer's `errors`, as Portico writes it (docs/errors.md). */
export interface GraphQLErrorEntry {
  message: string;
  /** Where in the answer the error sits, e.g. `['transaction', 'template']`; absent for a refused request. */
  path?: readonly (string | number)[];
  locations?: readonly { line: number; column: number }[];
  /** `code` always; `requestId`, and facts such as `reason`, `field` or `limit` where there are some. */
  extensions?: { code?: ErrorCode; requestId?: string } & Record<string, unknown>;
}

/**
 * The Transactions API answered with GraphQL errors: a refusal before the operation ran (401, 400, 429, 503),
 * or errors beside the data once it ran (200: `INVALID_EVENT`, `NOT_FOUND`, …). `code` is the first error's
 * `extensions.code`; `errors` holds them all, and `data` what could be read beside them.
 *
 * @example
 * try {
 *   await client.triggerTransactionEvent({ transactionId, eventKey: 'approve' });
 * } catch (error) {
 *   if (error instanceof PorticoGraphQLError && error.code === 'INVALID_EVENT') console.log(error.extensions['reason']);
 *   else throw error;
 * }
 */
export class PorticoGraphQLError extends PorticoError {
  override name = 'PorticoGraphQLError';
  /** The first error's stable code (docs/errors.md says each). */
  readonly code: ErrorCode;
  /** The HTTP status of the answer: 200 once the operation ran, else the refusal's. */
  readonly status: number;
  /** The request's id, to quote to support (`extensions.requestId`, else the `X-Request-Id` header). */
  readonly requestId: string | null;
  /** The first error's `path`. */
  readonly path: readonly (string | number)[] | undefined;
  /** The first error's `extensions`. */
  readonly extensions: Record<string, unknown>;
  /** Every error of the answer. */
  readonly errors: readonly GraphQLErrorEntry[];
  /** The data that could be read beside the errors; null or undefined when none. */
  readonly data: unknown;

  constructor(answer: {
    status: number;
    errors: readonly GraphQLErrorEntry[];
    data: unknown;
    requestId: string | null;
  }) {
    const [first] = answer.errors;
    const code = first?.extensions?.code ?? 'INTERNAL_SERVER_ERROR';
    const more = answer.errors.length > 1 ? ` (and ${answer.errors.length - 1} more)` : '';
    super(`${first?.message ?? 'The answer held an empty errors list.'}${more}`);
    this.code = code;
    this.status = answer.status;
    this.requestId = first?.extensions?.requestId ?? answer.requestId;
    this.path = first?.path;
    this.extensions = first?.extensions ?? {};
    this.errors = answer.errors;
    this.data = answer.data;
  }
}

/**
 * The data of a GraphQL answer, or the error it is: `PorticoGraphQLError` when it holds errors, `PorticoApiError`
 * when it is not a GraphQL answer at all (a proxy's page, say).
 */
export async function dataOf(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  if (!/json/i.test(type)) throw await apiErrorOfResponse(response);
  const body: unknown = await response.json();
  if (isRecord(body) && Array.isArray(body['errors']) && body['errors'].length > 0) {
    throw new PorticoGraphQLError({
      status: response.status,
      errors: body['errors'] as GraphQLErrorEntry[],
      data: body['data'],
      requestId: response.headers.get('x-request-id'),
    });
  }
  if (!response.ok || !isRecord(body) || !isRecord(body['data'])) throw apiErrorOf(response, body);
  return body['data'];
}
