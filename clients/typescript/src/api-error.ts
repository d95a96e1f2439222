import { PorticoError } from './errors.ts';
import type { ErrorCode } from './generated/error-codes.ts';

/** The code a status stands for when the answer is not Portico's error body (a proxy's HTML page, say). */
const CODE_OF_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_USER_INPUT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * An API answered with an error in Portico's REST shape, `{"error": {code, message, requestId}}`, and a non-2xx
 * status: any Portfolio error, a refused signed link of the Transactions API (403 FORBIDDEN once expired), or a
 * proxy's page in front of either (its code then the status's). Branch on `code` (stable), show `message` (for
 * people), quote `requestId` to support.
 *
 * @example
 * try {
 *   await client.companies.listPage({ cursor });
 * } catch (error) {
 *   if (error instanceof PorticoApiError && error.code === 'INVALID_CURSOR') restartTheWalk();
 *   else throw error;
 * }
 */
export class PorticoApiError extends PorticoError {
  override name = 'PorticoApiError';
  /** The HTTP status, e.g. 404. */
  readonly status: number;
  /** The error's stable code (docs/errors.md says each). */
  readonly code: ErrorCode;
  /** The request's id (also in `X-Request-Id`), or null when the answer carried none. */
  readonly requestId: string | null;
  /** More about the error where the API gives it, e.g. `{ parameter: 'limit' }`. */
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(fields: {
    status: number;
    code: ErrorCode;
    message: string;
    requestId: string | null;
    details?: Record<string, unknown> | undefined;
  }) {
    super(fields.message);
    this.status = fields.status;
    this.code = fields.code;
    this.requestId = fields.requestId;
    this.details = fields.details;
  }
}

/** Whether `value` is an object (not null, not an array): a JSON body's record. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The error an answer that is not 2xx stands for: its `error` body when it has Portico's shape, else the status
 * alone (a proxy or a load balancer answered), with the `X-Request-Id` header when there is one.
 */
export function apiErrorOf(response: Response, body: unknown): PorticoApiError {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const headerId = response.headers.get('x-request-id');
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    return new PorticoApiError({
      status: response.status,
      // The server's codes are the catalogue's (ErrorCode is generated from it); a newer server may add codes.
      code: error.code as ErrorCode,
      message: error.message,
      requestId: typeof error.requestId === 'string' ? error.requestId : headerId,
      details: isRecord(error.details) ? error.details : undefined,
    });
  }
  return new PorticoApiError({
    status: response.status,
    code: CODE_OF_STATUS[response.status] ?? 'INTERNAL_SERVER_ERROR',
    message: `The API answered ${response.status} ${response.statusText} without Portico's error body.`,
    requestId: headerId,
  });
}

/** The error of a non-2xx answer whose body has not been read: its JSON body, when it has one, read first. */
export async function apiErrorOfResponse(response: Response): Promise<PorticoApiError> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return apiErrorOf(response, body);
}
