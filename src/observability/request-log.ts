import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * The log line of each request: one line, `request completed` (or `request errored`), written when the answer
 * has gone, with the request (method, path with link secrets redacted, address, user agent: logger.ts), the
 * status, the time taken in milliseconds, the `requestId` and, while tracing, its `traceId` and `spanId`.
 * Fastify's own `incoming request` line is left out: it said the same half as often, and doubled the volume.
 */
class RequestLog extends LogController {
  override incomingRequest(): void {
    // The request is logged once, with its outcome (requestCompleted).
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/** The log controller of both services' apps (see {@link RequestLog}). */
export function requestLog(): LogController {
  return new RequestLog({ requestIdLogLabel: 'requestId' });
}
