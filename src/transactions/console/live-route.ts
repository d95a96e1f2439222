import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { schemaOf } from '../../http/contract-routes.ts';
import { signedInPerson } from '../../http/signed-in/person.ts';
import { consoleRoutes as contract } from './contract.ts';
import type { LiveChanges } from './live.ts';
import { endEvent, type LiveStream, type LiveStreams } from './live-streams.ts';

/** How long a browser waits before reconnecting a stream that dropped. */
const RETRY_MS = 2_000;

/**
 * GET /live: a server-sent event stream of the changes that touch the caller's organization, as
 * `event: change` with `{"transactions": [ids] | null}` (null: any), so that an open console reads again what
 * changed within a second, whichever node or process changed it (live.ts, fed by LISTEN/NOTIFY). The stream
 * carries ids only: reads go through the other routes, which check the session each time. It lasts as long as
 * its session signs the person in, checked at each heartbeat and before each change (live-streams.ts), and ends
 * with `event: signed-out` once it does not; a person's oldest stream past their cap ends with `event: replaced`.
 */
export function registerLiveRoute(routes: FastifyInstance, live: LiveChanges, streams: LiveStreams): void {
  // Open streams end before the server closes, which would otherwise wait for them.
  routes.addHook('preClose', (done) => {
    streams.close();
    done();
  });
  const connections = routes.metrics?.consoleLiveConnections;
  // A stream lasts as long as the browser keeps it: its duration is no latency (request-metrics.ts).
  const { method, url, access } = contract.live;
  routes.route({
    method,
    url,
    schema: schemaOf(contract.live),
    config: { access, stream: true },
    handler: async (request, reply) => {
      const caller = signedInPerson(request, 'organization');
      const stream = new PassThrough();
      const send = (text: string) => {
        if (!stream.writableEnded) stream.write(text);
      };
      let unsubscribe: (() => void) | undefined = undefined;
      let ended = false;
      const held: LiveStream = {
        sessionId: request.session.sessionId,
        userId: caller.user.id,
        write: send,
        end: (why) => {
          if (ended) return;
          ended = true;
          streams.remove(held);
          connections?.dec();
          unsubscribe?.();
          if (why) send(endEvent(why));
          stream.end();
        },
      };
      unsubscribe = await live.subscribe(caller.organization.id, (transactions) => {
        streams.change(held, transactions);
      });
      connections?.inc();
      streams.add(held);
      // The response closes when the browser goes away (the request's own 'close' comes once its body is read).
      reply.raw.once('close', () => {
        held.end();
      });
      send(`retry: ${String(RETRY_MS)}\n: listening\n\n`);
      return reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-accel-buffering', 'no')
        .send(stream);
    },
  });
}
