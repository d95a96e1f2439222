import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import { NO_TRACE, traceLogFields } from './observability/tracing.ts';

interface LoggedRequest {
  method: string;
  url: string;
  ip?: string;
  headers: Record<string, unknown>;
}

/**
 * The path segments and query parameters of a request that are credentials: a recipient's transmit token (the
 * portal's pages `/r/<token>/…`, but not its assets under `/r/assets/`, and its JSON routes
 * `/recipient/<token>/…`), a signed link's `signature`, and any `token` sent in a query.
 */
const CREDENTIALS_IN_PATHS: [RegExp, string][] = [
  [/(\/r\/)(?!assets(?:[/?#]|$))[^/?#]+/gi, '$1[redacted]'],
  [/(\/recipient\/)[^/?#]+/gi, '$1[redacted]'],
  [/([?&](?:signature|token)=)[^&#]*/gi, '$1[redacted]'],
];

/**
 * A request's path and query as a log line keeps them: every credential they carry replaced by `[redacted]`.
 * Invitation and password-reset tokens and a key delivery's secret ride in links' fragments, which no browser
 * sends.
 *
 * @example loggedUrl('/r/6f1c…/subscription/sign') // '/r/[redacted]/subscription/sign'
 */
export function loggedUrl(url: string): string {
  return CREDENTIALS_IN_PATHS.reduce(
    (path, [pattern, replacement]) => path.replace(pattern, replacement),
    url,
  );
}

/**
 * The JSON logger of a Portico process. Requests are logged by method, path, address and user agent only:
 * never a header that could carry a key, and the credentials a path can carry are redacted (`loggedUrl`).
 */
export function createLogger(level: Config['logLevel'], destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      // The trace of the span in force on each line, while tracing (observability/tracing.ts); else nothing.
      mixin: (_object, _level, logger) => traceLogFields(logger),
      // pino's own strategy writes the line into the mixin's object; the shared empty one must stay empty.
      mixinMergeStrategy: (line, ids) => (ids === NO_TRACE ? line : Object.assign(ids, line)),
      serializers: {
        err: pino.stdSerializers.err,
        req: (request: LoggedRequest) => ({
          method: request.method,
          url: loggedUrl(request.url),
          remoteAddress: request.ip,
          userAgent: request.headers['user-agent'],
        }),
        res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
      },
      redact: {
        paths: ['apiKey', '*.apiKey', 'key', '*.key', 'headers.authorization'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/** The logger of a CLI command: the same lines on stderr, so that stdout keeps the command's result. */
export function createCliLogger(level: Config['logLevel']): Logger {
  return createLogger(level, pino.destination(2));
}

/**
 * Exits the process with `code` once the line just logged is written. pino's destination on stdout writes
 * asynchronously (and its `flush` answers at once), so a process that exits right after logging can lose the
 * line that says why it stopped; that destination says 'drain' once everything it was given is written. Any
 * other destination (stderr's, a test's) writes as it is called. A logger that cannot write (a stuck pipe) holds
 * the exit up for a second at most.
 */
export function exitOnceLogged(logger: Logger, code: number): void {
  const exit = () => process.exit(code);
  setTimeout(exit, 1000).unref();
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as
    { sync?: unknown; once?: unknown } | undefined;
  if (stream?.sync === false && typeof stream.once === 'function') {
    (stream as { once: (event: 'drain', listener: () => void) => void }).once('drain', exit);
  } else exit();
}
