import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Database } from '../../../db/database.ts';
import { pageHeaders } from '../../../http/web-pages.ts';
import { CONSOLE_PATH } from '../links.ts';
import { STOP_PAGE_CSP, stopPage, type StopPage } from './stop-page.ts';
import { readStopLink, stopAlertsByLink } from './stop-tokens.ts';

/** Where a digest's stop link is: public, the token in the path its only credential. */
export const ALERT_STOP_URL = `${CONSOLE_PATH}/alerts/stop/:token`;

const Params = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
/** The most a POST may carry: RFC 8058's `List-Unsubscribe=One-Click` in a form, with room to spare. */
const POST_BODY_LIMIT = 4096;

function send(reply: FastifyReply, shown: StopPage) {
  return reply
    .code(shown.status)
    .headers({ ...pageHeaders(STOP_PAGE_CSP), 'cache-control': 'no-store' })
    .send(shown.html);
}

/**
 * The stop link of the console's alert digests, outside the console's signed-in JSON routes (no session, no CSRF
 * token: a mail provider's one-click POST has neither). `GET` shows what the link stops and a button, and
 * changes nothing; `POST` (the button, or RFC 8058's one-click with a body of `List-Unsubscribe=One-Click`)
 * stops every alert of the link's person and says so. The token is bounded in the path, checked against its
 * hash, and an unknown or expired one gets a page that says which.
 */
export async function registerAlertStopRoute(app: FastifyInstance, deps: { db: Database }): Promise<void> {
  const { db } = deps;
  await app.register((scope, _options, done) => {
    // Whatever a POST's form says, the token decides: its body is read (within the limit) and set aside.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: POST_BODY_LIMIT },
      (_request, _body, next) => {
        next(null, undefined);
      },
    );
    scope.get<{ Params: Static<typeof Params> }>(
      ALERT_STOP_URL,
      { schema: { params: Params } },
      async (request, reply) => send(reply, stopPage(await readStopLink(db, request.params.token), 'asked')),
    );
    scope.post<{ Params: Static<typeof Params> }>(
      ALERT_STOP_URL,
      { schema: { params: Params }, bodyLimit: POST_BODY_LIMIT },
      async (request, reply) =>
        send(reply, stopPage(await stopAlertsByLink(db, request.params.token), 'stopped')),
    );
    done();
  });
}
