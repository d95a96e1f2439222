import { Secret, TOTP } from 'otpauth';
import type { Queryable } from '../../db/database.ts';
import { loadInstanceSecret } from '../../db/instance-secrets.ts';
import { factorErrors } from '../../errors.ts';
import { open, seal } from '../../keys/sealed-box.ts';

/**
 * A person's authenticator app (TOTP, RFC 6238: 6 digits, 30-second steps, SHA-1, as every app reads a QR code):
 * its secret sealed under the `authenticator_secrets` instance secret (it must be read back to check codes, so it
 * is never hashed, and never left readable in the database or a log), added in two steps (the secret, then a code
 * from the app proves it was stored), and checked with a window of ±1 step. A code works once: the last accepted
 * step is stored, and a step at or before it is refused (CODE_REPLAYED), in the one statement that accepts it, so
 * two tries of one code at once never both pass.
 */

const PERIOD_SECONDS = 30;
/** The instance secret that seals every app's secret. */
const SEALING_KEY = 'authenticator_secrets';

/** What a person's page shows to add an app: the secret as typed (in groups of 4), its URI and a QR code of it. */
export interface NewAuthenticator {
  secret: string;
  uri: string;
  /** The QR code of `uri`, an SVG drawn on the server: no image leaves for another host. */
  qrSvg: string;
}

const totpOf = (secret: string, label: string) =>
  new TOTP({
    issuer: 'Portico',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });

async function secretOf(db: Queryable, sealed: Uint8Array): Promise<string> {
  const { secret } = open(Buffer.from(sealed), await loadInstanceSecret(db, SEALING_KEY)) as {
    secret: string;
  };
  return secret;
}

/** Whether the person has an app they confirmed (what sign-in asks a second step for). */
export async function hasAuthenticator(db: Queryable, userId: string): Promise<boolean> {
  const [row] = await db.query<{ confirmed: boolean }>(
    'select confirmed_at is not null as confirmed from authenticator_apps where user_id = $1',
    [userId],
  );
  return row?.confirmed ?? false;
}

/**
 * Begins adding an app: a new secret (160 bits), kept sealed and unconfirmed until {@link confirmAuthenticator};
 * a previous unconfirmed one is replaced. CONFLICT when the person has a confirmed app.
 */
export async function beginAuthenticator(
  db: Queryable,
  person: { userId: string; email: string },
): Promise<NewAuthenticator> {
  const secret = new Secret({ size: 20 }).base32;
  const sealed = seal({ secret }, await loadInstanceSecret(db, SEALING_KEY));
  const [stored] = await db.query<{ userId: string }>(
    `insert into authenticator_apps (user_id, secret_sealed) values ($1, $2)
     on conflict (user_id) do update set secret_sealed = excluded.secret_sealed, last_step = 0,
       created_at = clock_timestamp()
     where authenticator_apps.confirmed_at is null
     returning user_id as "userId"`,
    [person.userId, sealed],
  );
  if (!stored) throw factorErrors.appExists();
  const uri = totpOf(secret, person.email).toString();
  const { default: QRCode } = await import('qrcode');
  const qrSvg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { secret: secret.replace(/(.{4})(?=.)/g, '$1 '), uri, qrSvg };
}

/** The time step a code of the app matches now, within ±1 step, or undefined. */
function stepOf(secret: string, code: string): number | undefined {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const now = Date.now();
  const delta = totpOf(secret, 'check').validate({ token, timestamp: now, window: 1 });
  return delta === null ? undefined : Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}

/**
 * Checks a code of the person's app and uses it up: true when right and of a step after the last accepted one
 * (which it becomes), false when wrong; CODE_REPLAYED for a step accepted already; CONFLICT when they have no app.
 * `confirming` checks the unconfirmed app being added, and confirms it; else only a confirmed app counts.
 */
export async function useAuthenticatorCode(
  db: Queryable,
  userId: string,
  code: string,
  options: { confirming?: boolean } = {},
): Promise<boolean> {
  const confirming = options.confirming ?? false;
  const [app] = await db.query<{ sealed: Uint8Array }>(
    `select secret_sealed as sealed from authenticator_apps
     where user_id = $1 and (confirmed_at is null) = $2`,
    [userId, confirming],
  );
  if (!app) throw factorErrors.noApp();
  const step = stepOf(await secretOf(db, app.sealed), code);
  if (step === undefined) return false;
  // Accepted only past the last step, in the statement that moves it on: one code passes once, even at once.
  const accepted = await db.query(
    `update authenticator_apps set last_step = $2,
       confirmed_at = coalesce(confirmed_at, clock_timestamp())
     where user_id = $1 and last_step < $2 and secret_sealed = $3 returning user_id`,
    [userId, step, app.sealed],
  );
  if (accepted.length === 0) throw factorErrors.replayed();
  return true;
}

/** Removes the person's app, confirmed or not, and their recovery codes with it. */
export async function removeAuthenticator(db: Queryable, userId: string): Promise<void> {
  await db.query('delete from authenticator_apps where user_id = $1', [userId]);
  await db.query('delete from recovery_codes where user_id = $1', [userId]);
}

/** What a person's page shows of their second factor: since when they have an app, and recovery codes unused. */
export async function factorsOf(
  db: Queryable,
  userId: string,
): Promise<{ authenticatorAddedAt: Date | null; recoveryCodesLeft: number }> {
  const [row] = await db.query<{ addedAt: Date | null; left: number }>(
    `select (select confirmed_at from authenticator_apps where user_id = $1) as "addedAt",
       (select count(*)::int from recovery_codes where user_id = $1 and used_at is null) as left`,
    [userId],
  );
  return { authenticatorAddedAt: row?.addedAt ?? null, recoveryCodesLeft: row?.left ?? 0 };
}
