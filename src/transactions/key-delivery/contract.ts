import { Type } from '@sinclair/typebox';
import { answers, Body, Timestamp } from '../../http/contract.ts';
import { VIEWS_REQUIRED } from './views.ts';

/**
 * The contract of the key-delivery page's JSON routes (`/key-delivery/api/…`, routes.ts): where each is (its
 * path under `/key-delivery/api`), what it takes and answers (see src/http/contract.ts). The link's id and the
 * proof of its fragment's secret travel in the body, never in the address, and are the only credential, checked
 * by the routes themselves. `web/key-delivery/types.ts` derives the page's types from it.
 */

const Link = { linkId: Type.String({ minLength: 1, maxLength: 64 }), proof: Type.String({ maxLength: 64 }) };
const Email = Type.String({ maxLength: 254 });
const Environment = Type.Union([Type.Literal('staging'), Type.Literal('production')]);

/** What the page is told of a delivery before anyone proves an address: nothing about the key. */
export const Invitation = Type.Object({
  organizationName: Type.String(),
  environment: Environment,
  expiresAt: Timestamp(),
  /** How many listed addresses must view the key: the first one, or each of them. */
  viewsRequired: Type.Union(VIEWS_REQUIRED.map((views) => Type.Literal(views))),
});

export const keyDeliveryRoutes = {
  /** POST /describe: who issued what, until when. */
  describe: {
    method: 'POST',
    url: '/describe',
    body: Type.Object(Link, { additionalProperties: false }),
    response: answers({ 200: Invitation }),
  },
  /** POST /code: mails a code to a listed address (202). */
  code: {
    method: 'POST',
    url: '/code',
    body: Body({ ...Link, email: Email }),
    response: answers({ 202: Type.Object({ sentTo: Type.String(), expiresAt: Timestamp() }) }),
  },
  /** POST /reveal: the encrypted key, once, for the right code; the page decrypts it with the link's secret. */
  reveal: {
    method: 'POST',
    url: '/reveal',
    body: Body({ ...Link, email: Email, code: Type.String({ maxLength: 32 }) }),
    response: answers({
      200: Type.Object({
        /** AES-256-GCM ciphertext then tag, base64url; decrypted with the link's secret, the link's id as AAD. */
        ciphertext: Type.String(),
        iv: Type.String(),
        environment: Environment,
        keyPrefix: Type.String(),
      }),
    }),
  },
} as const;
export type KeyDeliveryRoutes = typeof keyDeliveryRoutes;
