import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ConsoleCaller } from './caller.ts';
import { consoleRoutes as contract } from './contract.ts';
import type { LiveChanges } from './live.ts';

/** A comment line this often keeps the connection (and any proxy on the way) from closing it as idle. */
const HEARTBEAT_MS = 15_000;
/** How long a browser waits before reconnecting a stream that dropped. */
const RETRY_MS = 2_000;

/**
 * GET /live: a server-sent event stream of the changes that touch the caller's organization, as
 * `event: change` with `{"transactions": [ids] | null}` (null: any), so that an open console reads again what
 * changed within a second, whichever node or process changed it (live.ts, fed by LISTEN/NOTIFY). The stream
 * carries ids only: reads go through the other routes, which check the session each time.
 */
export function registerLiveRoute(
  routes: FastifyInstance,
  live: LiveChanges,
  callerOf: (request: FastifyRequest) => ConsoleCaller,
): void {
  // Open streams end before the server closes, which would otherwise wait for them.
  const open = new Set<() => void>();
  routes.addHook('preClose', (done) => {
    for (const end of open) end();
    done();
  });
  const connections = routes.metrics?.consoleLiveConnections;
  // A stream lasts as long as the browser keeps it: its duration is no latency (request-metrics.ts).
  routes.get('/live', { schema: contract.live, config: { stream: true } }, async (request, reply) => {
    const caller = callerOf(request);
    const stream = new PassThrough();
    const send = (text: string) => {
      if (!stream.writableEnded) stream.write(text);
    };
    const unsubscribe = await live.subscribe(caller.organization.id, (transactions) => {
      send(`event: change\ndata: ${JSON.stringify({ transactions })}\n\n`);
    });
    const heartbeat = setInterval(() => {
      send(': still here\n\n');
    }, HEARTBEAT_MS);
    heartbeat.unref();
    connections?.inc();
    const end = () => {
      if (!open.delete(end)) return;
      connections?.dec();
      clearInterval(heartbeat);
      unsubscribe();
      stream.end();
    };
    open.add(end);
    // The response closes when the browser goes away (the request's own 'close' comes once its body is read).
    reply.raw.once('close', end);
    send(`retry: ${String(RETRY_MS)}\n: listening\n\n`);
    return reply
      .header('content-type', 'text/event-stream; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-accel-buffering', 'no')
      .send(stream);
  });
}
