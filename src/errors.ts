/**
 * The one catalogue of error codes clients see, with their HTTP status. GraphQL puts the code in
 * `errors[].extensions.code`; REST answers `{"error": {"code", "message", "requestId"}}`.
 * docs/errors.md lists them for users.
 */
export const ERROR_STATUS = {
  BAD_USER_INPUT: 400,
  INVALID_CURSOR: 400,
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  QUERY_TOO_DEEP: 400,
  TOO_MANY_ALIASES: 400,
  TOO_MANY_DIRECTIVES: 400,
  TOO_MANY_TOKENS: 400,
  QUERY_TOO_COMPLEX: 400,
  RESPONSE_TOO_LARGE: 400,
  PERSISTED_QUERY_NOT_FOUND: 400,
  LINK_INVALID: 400,
  CODE_INVALID: 400,
  FILE_EMPTY: 400,
  FILENAME_INVALID: 400,
  MULTIPART_INVALID: 400,
  CONSENT_REQUIRED: 400,
  MONEY_INVALID: 400,
  AGREEMENT_INVALID: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  HTTPS_REQUIRED: 403,
  FORBIDDEN: 403,
  CSRF_INVALID: 403,
  WRONG_INSTANCE: 403,
  ADDRESS_NOT_LISTED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  INVALID_EVENT: 409,
  INSTANCE_CHOICE_REQUIRED: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  REVISION_SUBMITTED: 409,
  REVISION_INCOMPLETE: 409,
  LINK_USED: 410,
  LINK_EXPIRED: 410,
  LINK_REVOKED: 410,
  CODE_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  FILE_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  FILE_TYPE_NOT_ALLOWED: 415,
  RATE_LIMITED: 429,
  CODE_LOCKED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * An error meant for the client: its message is shown as it is. Anything else that is thrown is
 * masked as INTERNAL_SERVER_ERROR and logged with the request id.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra machine-readable facts for the client, e.g. `{ field: 'templateId' }`. */
    readonly details?: Record<string, unknown>,
    options?: {
      cause?: unknown;
      /** Sent as `Retry-After` (seconds): when trying again makes sense (429, 503). */
      retryAfterSeconds?: number;
    },
  ) {
    super(message, options);
    this.status = ERROR_STATUS[code];
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  readonly retryAfterSeconds: number | undefined;
}

/**
 * RATE_LIMITED for attempts past their budget (failed sign-ins, codes asked for), in minutes a person reads,
 * with `Retry-After` in seconds.
 *
 * @example
 * throw tooManyAttempts('failed sign-ins', 540); // "Too many failed sign-ins; try again in 9 minutes."
 */
export function tooManyAttempts(what: string, retryAfterSeconds: number): AppError {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return new AppError(
    'RATE_LIMITED',
    `Too many ${what}; try again in ${String(minutes)} minute${minutes === 1 ? '' : 's'}.`,
    undefined,
    { retryAfterSeconds: Math.max(1, retryAfterSeconds) },
  );
}

export const INTERNAL_MESSAGE =
  'An unexpected error occurred. Quote the request id when you contact support.';

/** What a client may see of an error, and whether it was the client's mistake (`expected`) or ours. */
export interface DescribedError {
  code: ErrorCode;
  status: number;
  message: string;
  details?: Record<string, unknown>;
  retryAfterSeconds?: number;
  expected: boolean;
}

/** Statuses that Fastify and its plugins give their own errors, as codes of our catalogue. */
const STATUS_CODES = new Map<number, ErrorCode>([
  [400, 'BAD_USER_INPUT'],
  [401, 'UNAUTHENTICATED'],
  [403, 'FORBIDDEN'],
  [404, 'NOT_FOUND'],
  [405, 'METHOD_NOT_ALLOWED'],
  [406, 'NOT_ACCEPTABLE'],
  [408, 'REQUEST_TIMEOUT'],
  [409, 'CONFLICT'],
  [413, 'PAYLOAD_TOO_LARGE'],
  [414, 'URI_TOO_LONG'],
  [415, 'UNSUPPORTED_MEDIA_TYPE'],
  [429, 'RATE_LIMITED'],
  [431, 'HEADERS_TOO_LARGE'],
  [503, 'SERVICE_UNAVAILABLE'],
]);

/** Fastify's own codes whose message we would rather word ourselves. */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The body is not valid JSON.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The body is empty; send a JSON document.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The body is larger than this API accepts.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type; send application/json.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length does not match the body.',
};

/** Codes of plugins' own errors that our catalogue names more precisely than their status would. */
const PLUGIN_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  FST_CSRF_MISSING_SECRET: {
    code: 'CSRF_INVALID',
    message: 'This page has no security token yet: reload the page and try again.',
  },
  FST_CSRF_INVALID_TOKEN: {
    code: 'CSRF_INVALID',
    message: "The page's security token is missing or not valid: reload the page and try again.",
  },
};

/**
 * What a client may see of any error: its code, status and message; unexpected errors are masked.
 * Fastify's own client errors (bad JSON, too large, …) keep their status with a code of our catalogue.
 */
export function describeError(error: unknown): DescribedError {
  if (error instanceof AppError) {
    return {
      code: error.code,
      status: error.status,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
      expected: true,
    };
  }
  const fastifyError = (error ?? {}) as { statusCode?: unknown; code?: unknown; message?: unknown };
  const plugin = typeof fastifyError.code === 'string' ? PLUGIN_ERRORS[fastifyError.code] : undefined;
  if (plugin) return { ...plugin, status: ERROR_STATUS[plugin.code], expected: true };
  const status = typeof fastifyError.statusCode === 'number' ? fastifyError.statusCode : undefined;
  const code = status === undefined ? undefined : STATUS_CODES.get(status);
  if (code !== undefined && status !== undefined && status < 500) {
    const own = typeof fastifyError.code === 'string' ? FASTIFY_MESSAGES[fastifyError.code] : undefined;
    const message = typeof fastifyError.message === 'string' ? fastifyError.message : code;
    return { code, status, message: own ?? clip(message, 300), expected: true };
  }
  return {
    code: 'INTERNAL_SERVER_ERROR',
    status: ERROR_STATUS.INTERNAL_SERVER_ERROR,
    message: INTERNAL_MESSAGE,
    expected: false,
  };
}

/** The body of every non-GraphQL error answer: `{"error": {code, message, requestId, details?}}`. */
export function errorBody(
  described: Pick<DescribedError, 'code' | 'message' | 'details'>,
  requestId: string,
): { error: { code: ErrorCode; message: string; requestId: string; details?: Record<string, unknown> } } {
  return {
    error: {
      code: described.code,
      message: described.message,
      requestId,
      ...(described.details ? { details: described.details } : {}),
    },
  };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * The one way Portico says that something does not exist: `There is no webhook endpoint "…".`. An id of another
 * tenant gets the same answer as one that exists nowhere.
 *
 * @example
 * if (!endpoint) throw notFound('webhook endpoint', options.endpointId);
 */
export function notFound(what: string, id?: unknown, details?: Record<string, unknown>): AppError {
  const named = id === undefined || id === null ? '' : ` ${quote(id)}`;
  return new AppError('NOT_FOUND', `There is no ${what}${named}.`, details);
}

/**
 * A client's value as an error message may show it: JSON-quoted, at most `max` characters of it, control
 * characters and unpaired surrogates escaped. Messages never echo what a client sent whole.
 *
 * @example
 * quote('x'.repeat(1000)); // '"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…" (1000 characters)'
 */
export function quote(value: unknown, max = 40): string {
  if (typeof value !== 'string') {
    let text: string;
    try {
      // JSON.stringify answers undefined for undefined and functions, and throws for bigint and cycles.
      const json: unknown = JSON.stringify(value);
      text = typeof json === 'string' ? json : typeof value;
    } catch {
      text = typeof value;
    }
    return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
  }
  const shown = JSON.stringify(value.length <= max ? value : value.slice(0, max)).replace(
    /\p{Cs}/gu,
    (surrogate) => `\\u${surrogate.charCodeAt(0).toString(16)}`,
  );
  return value.length <= max ? shown : `${shown.slice(0, -1)}…" (${value.length} characters)`;
}
