import { AppError } from '../errors.ts';

/**
 * Which database errors mean "the database cannot be reached right now" rather than "this statement is wrong",
 * and the one error clients see for them. A restart, a failover or a proxy's idle timeout ends connections;
 * the request that was on one gets SERVICE_UNAVAILABLE with `Retry-After`, and the next one gets a new connection.
 */

/** How long clients are told to wait before trying again, in seconds. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** What clients are told instead of a connection failure (see `databaseUnavailable`). */
export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is unavailable; try again shortly.';

/**
 * SQLSTATEs of a server that is going away or not accepting us: 57P01 admin_shutdown (also what
 * pg_terminate_backend sends), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, shutting down,
 * in recovery), 53300 too_many_connections (a failover's reconnect storm). Class 08 is checked apart.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Socket and name-resolution errors of Node's `net` and `dns`. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * node-postgres reports a lost or unobtainable connection with plain `Error`s and these messages: the server
 * closed the socket ("Connection terminated unexpectedly", "… due to connection timeout"), the client's own
 * connect timeout ("timeout expired"), a pool checkout that waited too long, and a client that already broke.
 */
const PG_MESSAGES = [
  /^Connection terminated/,
  /^timeout expired$/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
];

function isUnavailableCode(code: unknown): boolean {
  if (typeof code !== 'string') return false;
  return UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || NETWORK_CODES.has(code);
}

/**
 * An error raised while obtaining a connection (opening one, or waiting for a free one of the pool), whatever
 * the socket or the server said, with what it said as `cause`. No statement of the caller ran, so the only thing
 * wrong is that the database will not take us now: besides the failures `isConnectionFailure` knows by their
 * codes, a database with ALLOW_CONNECTIONS false (55000, which a statement may raise for other reasons too), a
 * database dropped or renamed (3D000), a password rotated (28P01). While Portico serves, clients get
 * SERVICE_UNAVAILABLE for it; at start, the operator gets one line (see `open-database.ts`).
 */
export class ConnectionAttemptError extends Error {
  override name = 'ConnectionAttemptError';

  constructor(cause: unknown) {
    super('no connection to the database could be obtained', { cause });
  }
}

/**
 * Whether `error` says that the database could not be reached or the connection was lost, as opposed to an
 * error of the statement itself (a unique violation, a syntax error), which callers must see unchanged.
 * Looks through `cause` chains and `AggregateError`s (Node's connect to several addresses).
 *
 * @example
 * isConnectionFailure(Object.assign(new Error('terminating connection'), { code: '57P01' })); // true
 * isConnectionFailure(Object.assign(new Error('duplicate key'), { code: '23505' })); // false
 */
export function isConnectionFailure(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== 'object') return false;
  if (error instanceof ConnectionAttemptError) return true;
  if (error instanceof AppError) {
    return error.code === 'SERVICE_UNAVAILABLE' && isConnectionFailure(error.cause, depth + 1);
  }
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (isUnavailableCode(code)) return true;
  if (typeof message === 'string' && PG_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isConnectionFailure(inner, depth + 1))) return true;
  return isConnectionFailure(cause, depth + 1);
}

/**
 * Whether the server answered but will not take us as configured: class 28 (invalid authorization: a wrong
 * password, a role that does not exist, no pg_hba.conf entry) or 3D000 (the database does not exist). Waiting
 * does not help; the operator must change DATABASE_URL or the server.
 *
 * @example
 * isConnectionRefusal(Object.assign(new Error('database "x" does not exist'), { code: '3D000' })); // true
 */
export function isConnectionRefusal(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== 'object') return false;
  // Looks under SERVICE_UNAVAILABLE and ConnectionAttemptError: that is how the pool reports a refusal.
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === 'string' && (code === '3D000' || /^28[0-9A-Z]{3}$/.test(code))) return true;
  return isConnectionRefusal(cause, depth + 1);
}

/** The error clients see when the database is unavailable: 503 SERVICE_UNAVAILABLE with `Retry-After`. */
export function databaseUnavailable(cause: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', DATABASE_UNAVAILABLE_MESSAGE, undefined, {
    cause,
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
  });
}

/**
 * `error` as the database layer throws it: a connection failure becomes SERVICE_UNAVAILABLE (once: an error
 * already translated is returned as it is), anything else is returned unchanged.
 */
export function translateDatabaseError(error: unknown): unknown {
  if (error instanceof AppError || !isConnectionFailure(error)) return error;
  return databaseUnavailable(error);
}

/** What callers see of any failure to obtain a connection: SERVICE_UNAVAILABLE with `Retry-After`. */
export function connectionNotObtained(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return databaseUnavailable(new ConnectionAttemptError(error));
}

/**
 * What lies under a connection failure, for operators rather than API clients: the driver's or the socket's
 * own words, e.g. "connect ECONNREFUSED 127.0.0.1:5432".
 */
export function connectionFailureReason(error: unknown): string {
  let current = error;
  for (
    let depth = 0;
    depth < 5 &&
    (current instanceof AppError || current instanceof ConnectionAttemptError) &&
    current.cause !== undefined;
    depth += 1
  ) {
    current = current.cause;
  }
  const { message, code, errors } = (current ?? {}) as {
    message?: unknown;
    code?: unknown;
    errors?: unknown;
  };
  if (Array.isArray(errors) && errors.length > 0) {
    return [...new Set(errors.map((inner) => connectionFailureReason(inner)))].join('; ');
  }
  if (typeof message === 'string' && message !== '') return message;
  return typeof code === 'string' ? code : String(current);
}
