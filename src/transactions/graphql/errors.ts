import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, describeError, type ErrorCode } from '../../errors.ts';
import { isTokenLimitError } from './limits.ts';

interface WithNestedErrors {
  errors?: unknown;
  statusCode?: unknown;
  code?: unknown;
}

/** Mercurius' own refusals, as codes of our catalogue with messages that say what to do. */
const MERCURIUS_ERRORS: Record<string, [ErrorCode, string]> = {
  MER_ERR_METHOD_NOT_ALLOWED: [
    'METHOD_NOT_ALLOWED',
    'A GET request may only run a query: send mutations with POST.',
  ],
  // Apollo's persisted-query link retries with the full query when it reads exactly this message.
  MER_ERR_GQL_PERSISTED_QUERY_NOT_FOUND: ['PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound'],
  MER_ERR_GQL_PERSISTED_QUERY_NOT_SUPPORTED: [
    'BAD_USER_INPUT',
    'PersistedQueryNotSupported: only automatic persisted queries of version 1 (SHA-256) are supported.',
  ],
  MER_ERR_GQL_PERSISTED_QUERY_MISMATCH: [
    'BAD_USER_INPUT',
    'The persisted query hash is not the SHA-256 of the query sent with it.',
  ],
};

function nestedErrors(error: GraphQLError): GraphQLError[] {
  const wrapper = error.originalError as WithNestedErrors | undefined;
  const known = typeof wrapper?.code === 'string' ? MERCURIUS_ERRORS[wrapper.code] : undefined;
  if (known) return [new GraphQLError(known[1], { extensions: { code: known[0] } })];
  // Mercurius wraps validation errors in one MER_ERR_GQL_VALIDATION error that holds them; what else it
  // holds (variables that are not JSON, …) is the request's fault too.
  const nested = wrapper?.errors;
  if (!Array.isArray(nested)) return [error];
  return nested.map((inner) =>
    inner instanceof GraphQLError
      ? inner
      : new GraphQLError(
          `The request is malformed: ${String((inner as Partial<Error>).message ?? inner).slice(0, 200)}`,
          {
            extensions: { code: 'BAD_USER_INPUT' },
          },
        ),
  );
}

function asGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  const cause = error instanceof Error ? error : new Error(String(error));
  return new GraphQLError(cause.message, { originalError: cause });
}

/**
 * graphql-js' word when validation ran out of its own work budgets (comparing fields of one name, following
 * fragments): the query is too complex to check, not wrong.
 */
const VALIDATION_ABORTED = 'Validation aborted.';

function codeOfRequestError(error: GraphQLError): ErrorCode {
  if (isTokenLimitError(error.message)) return 'TOO_MANY_TOKENS';
  if (error.message === VALIDATION_ABORTED) return 'QUERY_TOO_COMPLEX';
  if (error.message.startsWith('Syntax Error')) return 'GRAPHQL_PARSE_FAILED';
  if (error.message.startsWith('Variable "')) return 'BAD_USER_INPUT';
  return 'GRAPHQL_VALIDATION_FAILED';
}

/** The end of graphql-jit's message for a variable its scalar refused: `…; Expected type uuid.` */
const JIT_VARIABLE_ERROR = /; Expected type \w+\.$/;

/** Messages up to this long are shown as they are; a longer one has its long quoted values cut short. */
const SHORT_MESSAGE = 200;
/** The longest message shown, however many values it quotes. */
const MAX_MESSAGE = 1000;
/** A quoted string of more than 40 characters (JSON escapes count as written). */
const LONG_QUOTED = /"((?:[^"\\]|\\.){40})((?:[^"\\]|\\.)+)"/g;

/**
 * graphql-js quotes client values whole in some messages (`Variable "$id" got invalid value "…"`, `Int cannot
 * represent non-integer value: "…"`): a megabyte sent would be a megabyte echoed. Quoted values longer than 40
 * characters are cut like `quote()` cuts them, and the message to {@link MAX_MESSAGE} characters.
 */
function shortened(message: string): string {
  if (message.length <= SHORT_MESSAGE) return message;
  const cut = message.replace(LONG_QUOTED, (quoted: string, start: string, _rest, offset: number) => {
    // Already cut by quote(): `"…" (N characters)`.
    if (quoted.endsWith('…"') && message.startsWith(' (', offset + quoted.length)) return quoted;
    let length: number;
    try {
      length = (JSON.parse(quoted) as string).length;
    } catch {
      length = quoted.length - 2;
    }
    return `"${start}…" (${length} characters)`;
  });
  return cut.length <= MAX_MESSAGE ? cut : `${cut.slice(0, MAX_MESSAGE)}…`;
}

function format(error: GraphQLError, requestId: string, log: FastifyBaseLogger): GraphQLFormattedError {
  const { message, locations, path } = error;
  // Errors of queries compiled by graphql-jit can come without extensions.
  const extensions = error.extensions as GraphQLError['extensions'] | undefined;
  const given = extensions?.code;
  const original = error.originalError;
  let code: string;
  let shownMessage = message;
  let details: Record<string, unknown> | undefined;
  if (
    original instanceof GraphQLError &&
    message.startsWith('Variable "$') &&
    JIT_VARIABLE_ERROR.test(message)
  ) {
    // graphql-jit words a compiled query's variable errors without the scalar's reason, which it keeps.
    shownMessage = message.replace(JIT_VARIABLE_ERROR, `; ${original.message}`);
  }
  if (typeof given === 'string') {
    code = given;
  } else if (original === undefined || original instanceof GraphQLError) {
    code = codeOfRequestError(error);
    if (code === 'TOO_MANY_TOKENS') {
      shownMessage = `${message.replace(/^Syntax Error: /, '').replace('more that', 'more than')} Send a smaller query.`;
    } else if (code === 'QUERY_TOO_COMPLEX') {
      shownMessage =
        'Validation aborted: the query takes more work to check than allowed. Select each field once per ' +
        'object and spread fewer fragments, or send several requests.';
    }
  } else {
    const described = describeError(original);
    code = described.code;
    details = described.details;
    shownMessage = described.message;
    if (!described.expected) log.error({ err: original, path }, 'unexpected error in a resolver');
    else if (described.status >= 500) log.warn({ err: original, path }, described.message);
  }
  return {
    // Our own errors quote client values short already (quote()); those of graphql-js may not.
    message:
      original === undefined || original instanceof GraphQLError ? shortened(shownMessage) : shownMessage,
    ...(locations ? { locations } : {}),
    ...(path ? { path } : {}),
    extensions: { ...details, code, requestId },
  };
}

/**
 * 200 whenever execution started (errors then sit beside data, with a path), else the status of the error that
 * stopped the request: 401 for authentication, 400 for a request that does not parse or validate.
 */
function statusOf(execution: ExecutionResult & { statusCode?: number }, raw: GraphQLError[]): number {
  const first = raw[0];
  if (execution.data || first === undefined || first.path !== undefined) return 200;
  const original = first.originalError;
  if (original === undefined || original instanceof GraphQLError) return 400;
  const status = (original as WithNestedErrors).statusCode;
  return typeof status === 'number' ? status : describeError(original).status;
}

/**
 * Shapes every GraphQL error response: `extensions.code` from the one error catalogue and the request id on
 * each error; unexpected errors masked for the client and logged whole. The HTTP status is 200 when there
 * is data, else the status of the single error that stopped the request (401, 400, …), and 503 with a
 * `retryAfterSeconds` whenever the database was unavailable, even mid-execution: the client should retry
 * the whole request.
 */
export function formatGraphQLErrors(
  execution: ExecutionResult & { statusCode?: number },
  requestId: string,
  log: FastifyBaseLogger,
): {
  statusCode: number;
  retryAfterSeconds?: number;
  response: { data: ExecutionResult['data'] | null; errors: GraphQLFormattedError[] };
} {
  const raw = (execution.errors ?? []).map(asGraphQLError);
  const errors = raw.flatMap(nestedErrors).map((error) => format(error, requestId, log));
  const unavailable = raw
    .map((error) => error.originalError)
    .find((original) => original instanceof AppError && original.code === 'SERVICE_UNAVAILABLE') as
    AppError | undefined;
  const response = { data: execution.data ?? null, errors };
  if (unavailable)
    return { statusCode: 503, retryAfterSeconds: unavailable.retryAfterSeconds ?? 5, response };
  const statusCode = statusOf(execution, raw);
  const limited = raw.map((error) => error.originalError).find((original) => original instanceof AppError);
  return {
    statusCode,
    ...(limited?.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: limited.retryAfterSeconds }),
    response,
  };
}
