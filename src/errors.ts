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
  UNAUTHENTICATED: 401,
  HTTPS_REQUIRED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  INVALID_EVENT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
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
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.status = ERROR_STATUS[code];
  }
}

export const INTERNAL_MESSAGE =
  'An unexpected error occurred. Quote the request id when you contact support.';
