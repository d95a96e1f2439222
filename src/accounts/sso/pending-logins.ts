import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/database.ts';
import { loadInstanceSecret } from '../../db/instance-secrets.ts';
import { ssoErrors } from '../../errors.ts';
import { open, seal } from '../../keys/sealed-box.ts';
import { SSO_SEALING_KEY } from './connections.ts';

/**
 * Sign-ins sent to an identity provider and not back yet (`sso_pending_logins`), for {@link PENDING_LOGIN_MS}:
 * kept by the SHA-256 of their `state`, and bound to the browser that began them by the SHA-256 of a random value
 * of a short SameSite=Lax cookie (the session's cookie is SameSite=Strict, which the provider's redirect back, a
 * cross-site navigation, does not carry). Each is taken once: a second answer with the same state finds nothing.
 */

/** How long a sign-in waits for the provider's answer. */
export const PENDING_LOGIN_MS = 10 * 60_000;

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** A pending sign-in's checks, as the callback gives them to openid-client. */
export interface PendingLogin {
  connectionId: string;
  nonce: string;
  codeVerifier: string;
}

/** A new random value for the browser's binding cookie. */
export function newBrowserBinding(): string {
  return randomBytes(32).toString('base64url');
}

/** Keeps a sign-in sent to the provider; old ones past their time go on the way. */
export async function keepPendingLogin(
  db: Queryable,
  login: PendingLogin & { state: string; browserBinding: string },
): Promise<void> {
  const sealed = seal({ codeVerifier: login.codeVerifier }, await loadInstanceSecret(db, SSO_SEALING_KEY));
  await db.query('delete from sso_pending_logins where expires_at < clock_timestamp()');
  await db.query(
    `insert into sso_pending_logins (state_hash, browser_hash, connection_id, nonce, code_verifier_sealed, expires_at)
     values ($1, $2, $3, $4, $5, clock_timestamp() + make_interval(secs => $6))`,
    [
      sha256(login.state),
      sha256(login.browserBinding),
      login.connectionId,
      login.nonce,
      sealed,
      PENDING_LOGIN_MS / 1000,
    ],
  );
}

/**
 * Takes the pending sign-in of this `state`, begun by this browser (its binding cookie) within its time, using it
 * up. SSO_STATE_INVALID when there is none: an unknown or changed state, another browser's, one used or expired.
 */
export async function takePendingLogin(
  db: Queryable,
  options: { state: string; browserBinding: string | undefined },
): Promise<PendingLogin> {
  if (options.state === '' || options.browserBinding === undefined) throw ssoErrors.stateInvalid();
  const [row] = await db.query<{ connectionId: string; nonce: string; sealed: Uint8Array }>(
    `delete from sso_pending_logins
     where state_hash = $1 and browser_hash = $2 and expires_at > clock_timestamp()
     returning connection_id as "connectionId", nonce, code_verifier_sealed as sealed`,
    [sha256(options.state), sha256(options.browserBinding)],
  );
  if (!row) throw ssoErrors.stateInvalid();
  const { codeVerifier } = open(Buffer.from(row.sealed), await loadInstanceSecret(db, SSO_SEALING_KEY)) as {
    codeVerifier: string;
  };
  return { connectionId: row.connectionId, nonce: row.nonce, codeVerifier };
}
