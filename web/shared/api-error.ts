// What every page's JSON routes answer when they refuse: `{"error": {"code", "message", "requestId", "details"}}`.

import type { ErrorCode } from '../../src/errors.ts';

/**
 * What went wrong: a code of the error catalogue (src/errors.ts), or the page's own when no server answered
 * (NETWORK_ERROR) or one answered without saying why (UNEXPECTED_ANSWER), or the browser made or used no passkey
 (PASSKEY_CANCELLED).
 */
export type ApiErrorCode = ErrorCode | 'NETWORK_ERROR' | 'UNEXPECTED_ANSWER' | 'PASSKEY_CANCELLED';

/** An error answer of Portico's JSON routes, or NETWORK_ERROR when they cannot be reached. */
export class ApiError extends Error {
  override name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly requestId: string | undefined,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** The form field the error is about (`details.field`), when it names one. */
  get field(): string | undefined {
    const { field } = this.details;
    return typeof field === 'string' ? field : undefined;
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown };
}

/** The {@link ApiError} of an answer that is not ok: the route's own, or one saying it gave no reason. */
export function apiError(status: number, body: unknown): ApiError {
  const error = (body as ErrorBody | undefined)?.error;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    return new ApiError(
      status,
      // The server's codes are the catalogue's.
      error.code as ErrorCode,
      error.message,
      typeof error.requestId === 'string' ? error.requestId : undefined,
      typeof error.details === 'object' && error.details !== null
        ? (error.details as Record<string, unknown>)
        : {},
    );
  }
  return new ApiError(
    status,
    'UNEXPECTED_ANSWER',
    `The server answered ${String(status)} without saying why. Try again in a moment.`,
    undefined,
  );
}

/** The error of a call that reached no server. */
export const networkError = () =>
  new ApiError(
    0,
    'NETWORK_ERROR',
    'Portico could not be reached. Check your connection, then try again.',
    undefined,
  );
