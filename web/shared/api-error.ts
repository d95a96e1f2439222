// What every page's JSON routes answer when they refuse: `{"error": {"code", "message", "requestId", "details"}}`.

/** An error answer of Portico's JSON routes, or NETWORK_ERROR when they cannot be reached. */
export class ApiError extends Error {
  override name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
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
      error.code,
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

/**
 * Calls one of Portico's JSON routes and answers the status and the parsed body (undefined when it is not
 * JSON), or throws NETWORK_ERROR when the server cannot be reached. Answers are never cached.
 */
export async function fetchJson(
  url: string,
  init: {
    method: string;
    headers: Record<string, string>;
    body?: object | undefined;
    credentials: RequestCredentials;
  },
): Promise<{ ok: boolean; status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method,
      headers: {
        accept: 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: init.credentials,
      cache: 'no-store',
    });
  } catch {
    throw networkError();
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { ok: response.ok, status: response.status, body };
}
