import type { FastifyInstance } from 'fastify';
import { clientAddressKey, createAttemptLimits } from '../../http/attempt-limits.ts';
import { contractRoutes } from '../../http/contract-routes.ts';
import { pageContentSecurityPolicy, registerWebSurface } from '../../http/web-pages.ts';
import type { Mailer } from '../../mail/mailer.ts';
import type { Database } from '../../db/database.ts';
import { keyDeliveryRoutes as contract } from './contract.ts';
import { keyDeliveryCodeMail } from './mail.ts';
import { describeDelivery, issueCode, revealKey } from './deliveries.ts';

/** Where the key-delivery page is (`/key-delivery/<link id>#<secret>`) and where its JSON routes are. */
export const KEY_DELIVERY_PATH = '/key-delivery';
const API_PATH = `${KEY_DELIVERY_PATH}/api`;

/** Codes mailed and code tries per client address, in 10 minutes (a delivery's own budget: CODES_PER_DELIVERY). */
const WINDOW_MS = 10 * 60_000;
const CODES_PER_CLIENT = 30;
const TRIES_PER_CLIENT = 30;

export interface KeyDeliveryDeps {
  db: Database;
  /** Where the codes go out. */
  mailer: Mailer;
  /** The built front end. @default web/dist of this checkout */
  distDir?: string | undefined;
}

/**
 * The key-delivery page on the Transactions service and its JSON routes, which take the link's id and the
 * proof of its fragment's secret in the body (never in the address, so they stay out of access logs):
 * `describe` (who issued what, until when), `code` (mails a code to a listed address), `reveal` (the encrypted
 * key, once, for the right code). The page decrypts the key in the browser with the secret.
 */
export async function registerKeyDelivery(app: FastifyInstance, deps: KeyDeliveryDeps): Promise<void> {
  registerWebSurface(app, {
    surface: 'key-delivery',
    path: KEY_DELIVERY_PATH,
    contentSecurityPolicy: pageContentSecurityPolicy(),
    clientRoutes: true,
    title: 'The key-delivery page',
    worksWithout: 'Ask the team that issued the key to issue it with `portico keys create` instead.',
    distDir: deps.distDir,
  });
  const { db } = deps;
  await app.register(
    (api, _options, done) => {
      const codesAskedFor = createAttemptLimits(db, 'codes asked for', [
        {
          name: 'key-delivery-code:client',
          max: CODES_PER_CLIENT,
          windowMs: WINDOW_MS,
          by: clientAddressKey,
        },
      ]);
      const codesTried = createAttemptLimits(db, 'codes tried', [
        {
          name: 'key-delivery-reveal:client',
          max: TRIES_PER_CLIENT,
          windowMs: WINDOW_MS,
          by: clientAddressKey,
        },
      ]);

      // The link's id and proof in the body are the only credential, and each route checks them itself: the
      // caller is the request.
      const route = contractRoutes(api, (request) => request);

      route(contract.describe, (_request, { body }) => describeDelivery(db, body));

      route(contract.code, async (request, { body }) => {
        // The link's secret first: a request without it is refused before it counts toward anything.
        await describeDelivery(db, body);
        await codesAskedFor.reserve(request);
        const issued = await issueCode(db, body);
        await deps.mailer.send(
          keyDeliveryCodeMail({
            to: issued.email,
            organizationName: issued.organizationName,
            code: issued.code,
            expiresAt: issued.expiresAt,
          }),
        );
        return { sentTo: issued.email, expiresAt: issued.expiresAt };
      });

      route(contract.reveal, async (request, { body }) => {
        await codesTried.reserve(request);
        return revealKey(db, { ...body, ip: request.ip, userAgent: request.headers['user-agent'] ?? '' });
      });
      done();
    },
    { prefix: API_PATH },
  );
}
