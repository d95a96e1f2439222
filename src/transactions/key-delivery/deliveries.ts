// Kept as one file: a delivery's life (issue, code, reveal, expire, revoke) is one state machine on one row and
// its codes, whose locks and checks each step relies on.
import { createCipheriv, createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { normalizeEmail } from '../../accounts/users.ts';
import type { Environment } from '../../config.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { oneRow } from '../../db/one-row.ts';
import {
  addressNotListed,
  AppError,
  codeErrors,
  linkErrors,
  notFound,
  quote,
  tooManyAttempts,
} from '../../errors.ts';
import { createApiKey } from '../../keys/api-key-store.ts';
import type { ViewsRequired } from './views.ts';

/**
 * Key delivery (Transactions spec, part 5): a key for an organization and an environment, revealed only to the
 * named e-mail addresses through a link that expires within an hour.
 *
 * The key is generated once and encrypted (AES-256-GCM) under a random 256-bit secret that travels only in the
 * link's fragment (`#…`), which browsers never send to a server. The database keeps the ciphertext, the key's
 * SHA-256 (in `api_keys`), and SHA-256 hashes of the link's id, of the secret and of the mailed codes: neither
 * a database dump nor a server log reveals an issued key. The delivery page proves the address with a code
 * mailed to it, receives the ciphertext once, and decrypts it in the browser with WebCrypto.
 */

/** How long a delivery may last, and lasts unless told otherwise, in minutes. */
export const DELIVERY_MAX_MINUTES = 60;
/** The most addresses one delivery names. */
export const DELIVERY_MAX_ADDRESSES = 20;
/** A mailed code: its digits, its lifetime and how many wrong tries it takes. */
export const CODE_DIGITS = 8;
export const CODE_LIFETIME_MS = 10 * 60_000;
export const CODE_ATTEMPTS = 5;
/** The most codes one delivery mails in a code's lifetime, whoever asks. */
export const CODES_PER_DELIVERY = 10;

/** Where a delivery stands. */
export type DeliveryStatus = 'pending' | 'viewed' | 'expired' | 'revoked';

/** A delivery as the operator sees it: never the key, the link or its secret. */
export interface KeyDelivery {
  id: string;
  organizationId: string;
  environment: Environment;
  /** The key it delivers, as `keys list` shows it. */
  apiKeyId: string;
  keyPrefix: string;
  keyName: string | null;
  viewsRequired: ViewsRequired;
  status: DeliveryStatus;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  recipients: {
    email: string;
    viewedAt: Date | null;
    viewedIp: string | null;
    viewedUserAgent: string | null;
  }[];
}

const sha256 = (value: string | Buffer) => createHash('sha256').update(value).digest();

/** What of a link's fragment the server is shown: the secret's SHA-256, base64url. */
export function secretProof(secret: string): string {
  return sha256(Buffer.from(secret, 'base64url')).toString('base64url');
}

/** `https://host/key-delivery/<link id>#<secret>`: the link mailed to every address of a delivery. */
export function keyDeliveryLink(transactionsUrl: string, linkId: string, secret: string): string {
  return `${transactionsUrl}/key-delivery/${linkId}#${secret}`;
}

const DELIVERY_COLUMNS = `d.id, d.organization_id as "organizationId", k.environment, d.api_key_id as "apiKeyId",
  k.display_prefix as "keyPrefix", k.name as "keyName", d.views_required as "viewsRequired",
  d.created_at as "createdAt", d.expires_at as "expiresAt", d.revoked_at as "revokedAt",
  case
    when d.revoked_at is not null then 'revoked'
    when exists (select 1 from key_delivery_recipients r where r.delivery_id = d.id and r.viewed_at is not null)
      and (d.views_required = 'first' or not exists (
        select 1 from key_delivery_recipients r where r.delivery_id = d.id and r.viewed_at is null))
      then 'viewed'
    when d.expires_at <= clock_timestamp() then 'expired'
    else 'pending'
  end as status,
  (select json_agg(json_build_object('email', r.email, 'viewedAt', r.viewed_at, 'viewedIp', r.viewed_ip,
      'viewedUserAgent', r.viewed_user_agent) order by r.position)
   from key_delivery_recipients r where r.delivery_id = d.id) as recipients`;

/** Dates inside the recipients' JSON arrive as strings. */
function withDates(delivery: KeyDelivery): KeyDelivery {
  return {
    ...delivery,
    recipients: delivery.recipients.map((recipient) => ({
      ...recipient,
      viewedAt: recipient.viewedAt === null ? null : new Date(recipient.viewedAt),
    })),
  };
}

/** The addresses of a delivery, checked: one to 20, each an address, none twice. */
function checkAddresses(emails: readonly string[]): string[] {
  if (emails.length === 0) {
    throw new AppError('BAD_USER_INPUT', 'Name at least one e-mail address to deliver the key to.', {
      field: 'emails',
    });
  }
  if (emails.length > DELIVERY_MAX_ADDRESSES) {
    throw new AppError(
      'BAD_USER_INPUT',
      `A delivery names at most ${String(DELIVERY_MAX_ADDRESSES)} addresses.`,
      { field: 'emails' },
    );
  }
  const addresses = emails.map(normalizeEmail);
  const twice = addresses.find((address, index) => addresses.indexOf(address) !== index);
  if (twice !== undefined) {
    throw new AppError('BAD_USER_INPUT', `${quote(twice)} is named twice.`, { field: 'emails' });
  }
  return addresses;
}

/**
 * Issues a key for the organization and delivers it to `emails`: creates the key, encrypts it under a new
 * secret, and stores the delivery. Answers the delivery and what goes into the link (its id and secret), for
 * the caller to mail; neither is kept. BAD_USER_INPUT for no address, more than 20, one that is not an
 * address or one named twice, and a lifetime outside 1–60 minutes.
 */
export async function issueKeyDelivery(
  db: Database,
  options: {
    organizationId: string;
    environment: Environment;
    emails: readonly string[];
    name?: string | undefined;
    /** @default 60 */
    expiresInMinutes?: number | undefined;
    /** @default 'first' */
    viewsRequired?: ViewsRequired | undefined;
  },
): Promise<{ delivery: KeyDelivery; linkId: string; secret: string }> {
  const addresses = checkAddresses(options.emails);
  const minutes = options.expiresInMinutes ?? DELIVERY_MAX_MINUTES;
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > DELIVERY_MAX_MINUTES) {
    throw new AppError(
      'BAD_USER_INPUT',
      `A delivery lasts 1 to ${String(DELIVERY_MAX_MINUTES)} minutes (got ${quote(String(minutes))}).`,
      { field: 'expiresInMinutes' },
    );
  }
  const linkId = randomBytes(16).toString('base64url');
  const secretBytes = randomBytes(32);
  const secret = secretBytes.toString('base64url');
  return db.transaction(async (tx) => {
    const { key, record } = await createApiKey(tx, {
      organizationId: options.organizationId,
      environment: options.environment,
      name: options.name,
    });
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', secretBytes, iv);
    // The link's id is authenticated with the key: a ciphertext does not decrypt under another link.
    cipher.setAAD(Buffer.from(linkId));
    const ciphertext = Buffer.concat([cipher.update(key, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    const row = await oneRow<{ id: string }>(
      tx,
      `insert into key_deliveries (organization_id, api_key_id, link_hash, secret_check, ciphertext, iv,
         views_required, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, clock_timestamp() + $8 * interval '1 minute') returning id`,
      [
        options.organizationId,
        record.id,
        sha256(linkId),
        sha256(secretBytes),
        ciphertext,
        iv,
        options.viewsRequired ?? 'first',
        minutes,
      ],
    );
    for (const [position, email] of addresses.entries()) {
      await tx.query(
        'insert into key_delivery_recipients (delivery_id, email, position) values ($1, $2, $3)',
        [row.id, email, position],
      );
    }
    return { delivery: await getDelivery(tx, row.id), linkId, secret };
  });
}

async function getDelivery(db: Queryable, id: string): Promise<KeyDelivery> {
  const [delivery] = await db.query<KeyDelivery>(
    `select ${DELIVERY_COLUMNS} from key_deliveries d join api_keys k on k.id = d.api_key_id where d.id = $1`,
    [id],
  );
  if (!delivery) throw notFound('key delivery', id);
  return withDates(delivery);
}

/** An organization's deliveries, newest first, each with its status and who viewed it when. */
export async function listDeliveries(db: Queryable, organizationId: string): Promise<KeyDelivery[]> {
  const deliveries = await db.query<KeyDelivery>(
    `select ${DELIVERY_COLUMNS} from key_deliveries d join api_keys k on k.id = d.api_key_id
     where d.organization_id = $1 order by d.created_at desc, d.sequence desc`,
    [organizationId],
  );
  return deliveries.map(withDates);
}

/**
 * Revokes a delivery and its key, and deletes the ciphertext: the link then shows that it was revoked, and the
 * key (if anyone saw it) stops working. NOT_FOUND for an id of no delivery; revoking twice changes nothing.
 */
export async function revokeDelivery(db: Database, id: string): Promise<KeyDelivery> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ apiKeyId: string }>(
      `update key_deliveries set revoked_at = coalesce(revoked_at, clock_timestamp()), ciphertext = null, iv = null
       where id = $1 returning api_key_id as "apiKeyId"`,
      [id],
    );
    if (!row) throw notFound('key delivery', id);
    await tx.query('update api_keys set revoked_at = coalesce(revoked_at, clock_timestamp()) where id = $1', [
      row.apiKeyId,
    ]);
    return getDelivery(tx, id);
  });
}

/**
 * Ends the deliveries whose hour is over: their ciphertext is deleted, and the key of one that nobody viewed
 * is revoked (no one can have it). Run by `serve` every minute and before each list; answers how many ended.
 */
export async function expireDeliveries(db: Database): Promise<number> {
  return db.transaction(async (tx) => {
    const ended = await tx.query<{ apiKeyId: string; viewed: boolean }>(
      `update key_deliveries d set ciphertext = null, iv = null
       where d.ciphertext is not null and d.expires_at <= clock_timestamp()
       returning d.api_key_id as "apiKeyId",
         exists (select 1 from key_delivery_recipients r where r.delivery_id = d.id and r.viewed_at is not null)
           as viewed`,
    );
    const unseen = ended.filter((delivery) => !delivery.viewed).map((delivery) => delivery.apiKeyId);
    if (unseen.length > 0) {
      await tx.query(
        `update api_keys set revoked_at = coalesce(revoked_at, clock_timestamp()) where id = any($1::uuid[])`,
        [unseen],
      );
    }
    return ended.length;
  });
}

/** What the delivery page is told of a delivery before anyone proves an address: nothing about the key. */
export interface DeliveryInvitation {
  organizationName: string;
  environment: Environment;
  expiresAt: Date;
  /** How many listed addresses must view the key: the first one, or each of them. */
  viewsRequired: ViewsRequired;
}

/** A delivery's row as `openDelivery` reads it (bytea arrives as a Buffer from pg, a Uint8Array from PGlite). */
interface DeliveryRow {
  id: string;
  organizationName: string;
  environment: Environment;
  secretCheck: Uint8Array;
  ciphertext: Uint8Array | null;
  iv: Uint8Array | null;
  viewsRequired: ViewsRequired;
  keyPrefix: string;
  expiresAt: Date;
  revokedAt: Date | null;
  expired: boolean;
}

/**
 * The open delivery of a link, locked in the caller's transaction when `lock`, after the checks every step
 * makes: the link names a delivery (LINK_INVALID), its fragment is whole (LINK_INVALID), it is not revoked
 * (LINK_REVOKED), not past its hour (LINK_EXPIRED), and not seen as often as it may be (LINK_USED).
 */
async function openDelivery(
  db: Queryable,
  options: { linkId: string; proof: string; lock?: boolean },
): Promise<DeliveryRow> {
  const [row] = await db.query<DeliveryRow>(
    `select d.id, o.name as "organizationName", k.environment, d.secret_check as "secretCheck", d.ciphertext,
       d.iv, d.views_required as "viewsRequired", k.display_prefix as "keyPrefix", d.expires_at as "expiresAt",
       d.revoked_at as "revokedAt", d.expires_at <= clock_timestamp() as expired
     from key_deliveries d join organizations o on o.id = d.organization_id join api_keys k on k.id = d.api_key_id
     where d.link_hash = $1 ${options.lock ? 'for update of d' : ''}`,
    [sha256(options.linkId)],
  );
  if (!row) throw linkErrors.deliveryNotValid();
  const proof = Buffer.from(options.proof, 'base64url');
  if (proof.length !== row.secretCheck.length || !timingSafeEqual(proof, row.secretCheck)) {
    throw linkErrors.deliveryProofChanged();
  }
  if (row.revokedAt !== null) throw linkErrors.deliveryRevoked();
  if (row.expired) throw linkErrors.deliveryExpired(row.expiresAt);
  if (row.ciphertext === null) throw linkErrors.keyViewed();
  return row;
}

/** What the page shows before the address is proved: who issued what, and until when. */
export async function describeDelivery(
  db: Queryable,
  options: { linkId: string; proof: string },
): Promise<DeliveryInvitation> {
  const { organizationName, environment, expiresAt, viewsRequired } = await openDelivery(db, options);
  return { organizationName, environment, expiresAt, viewsRequired };
}

/** A listed address of the open delivery that has not viewed it: ADDRESS_NOT_LISTED or LINK_USED otherwise. */
async function pendingRecipient(db: Queryable, deliveryId: string, email: string): Promise<string> {
  let address: string;
  try {
    address = normalizeEmail(email);
  } catch (error) {
    throw new AppError(
      'BAD_USER_INPUT',
      'Enter your e-mail address, like ada@example.com.',
      { field: 'email' },
      { cause: error },
    );
  }
  const [recipient] = await db.query<{ viewedAt: Date | null }>(
    'select viewed_at as "viewedAt" from key_delivery_recipients where delivery_id = $1 and email = $2',
    [deliveryId, address],
  );
  if (!recipient) throw addressNotListed(address);
  if (recipient.viewedAt !== null) throw linkErrors.keyViewedBy(address, recipient.viewedAt);
  return address;
}

/**
 * A new code for a listed address that has not viewed the key, for the caller to mail: 8 digits, for 10
 * minutes; it ends the address's earlier codes. The delivery's checks as `describeDelivery`; BAD_USER_INPUT
 * for text that is not an address, ADDRESS_NOT_LISTED, LINK_USED for an address that has viewed the key;
 * RATE_LIMITED once the delivery has mailed {@link CODES_PER_DELIVERY} codes in 10 minutes.
 */
export async function issueCode(
  db: Database,
  options: { linkId: string; proof: string; email: string },
): Promise<{
  email: string;
  code: string;
  expiresAt: Date;
  organizationName: string;
  environment: Environment;
}> {
  return db.transaction(async (tx) => {
    const delivery = await openDelivery(tx, { ...options, lock: true });
    const email = await pendingRecipient(tx, delivery.id, options.email);
    // Counted from the codes themselves, under the delivery's lock, and only once the link's secret is
    // proved: its id alone (which access logs may hold) cannot use up the codes of the people it names.
    const [recent] = await tx.query<{ count: number; retryAfterSeconds: number }>(
      `select count(*)::integer as count, coalesce(ceil(extract(epoch from
         min(created_at) + $2 * interval '1 millisecond' - clock_timestamp())), 0)::integer as "retryAfterSeconds"
       from key_delivery_codes where delivery_id = $1 and created_at > clock_timestamp() - $2 * interval '1 millisecond'`,
      [delivery.id, CODE_LIFETIME_MS],
    );
    if (recent && recent.count >= CODES_PER_DELIVERY) {
      throw tooManyAttempts('codes asked for', recent.retryAfterSeconds);
    }
    const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
    await tx.query(
      `update key_delivery_codes set expires_at = least(expires_at, clock_timestamp())
       where delivery_id = $1 and email = $2 and used_at is null`,
      [delivery.id, email],
    );
    const row = await oneRow<{ expiresAt: Date }>(
      tx,
      `insert into key_delivery_codes (delivery_id, email, code_hash, expires_at)
       values ($1, $2, $3, least($4::timestamptz, clock_timestamp() + $5 * interval '1 millisecond'))
       returning expires_at as "expiresAt"`,
      [delivery.id, email, sha256(`${delivery.id}:${code}`), delivery.expiresAt, CODE_LIFETIME_MS],
    );
    return {
      email,
      code,
      expiresAt: row.expiresAt,
      organizationName: delivery.organizationName,
      environment: delivery.environment,
    };
  });
}

/** What the page decrypts the key from, once: the ciphertext and nonce, and what to say about the key. */
export interface RevealedKey {
  /** AES-256-GCM ciphertext then tag, base64url; decrypted with the link's secret, the link's id as AAD. */
  ciphertext: string;
  iv: string;
  environment: Environment;
  keyPrefix: string;
}

/**
 * Hands the encrypted key to a listed address that proves itself with the code mailed to it, once: the view
 * is recorded (time, address, client address, browser), and the ciphertext is deleted when the delivery needs
 * no other view. The delivery's and the address's checks as `issueCode`; CODE_EXPIRED when no code was asked
 * for, or the latest is past its 10 minutes or used; CODE_LOCKED after 5 wrong tries; CODE_INVALID for a wrong
 * code (the try counts: a wrong code commits its count and is refused once the transaction is over).
 */
export async function revealKey(
  db: Database,
  options: { linkId: string; proof: string; email: string; code: string; ip: string; userAgent: string },
): Promise<RevealedKey> {
  type Outcome = { revealed: RevealedKey } | { left: number };
  const outcome = await db.transaction(async (tx): Promise<Outcome> => {
    const delivery = await openDelivery(tx, { ...options, lock: true });
    const email = await pendingRecipient(tx, delivery.id, options.email);
    const [latest] = await tx.query<{ id: string; usable: boolean }>(
      `select id, used_at is null and expires_at > clock_timestamp() as usable
       from key_delivery_codes where delivery_id = $1 and email = $2 order by created_at desc limit 1`,
      [delivery.id, email],
    );
    if (!latest?.usable) throw codeErrors.expired();
    // The try is counted before the code is compared, in the statement that reads the count, and commits
    // with this transaction whatever the outcome: tries sent at once never compare more than CODE_ATTEMPTS.
    const [code] = await tx.query<{ codeHash: Uint8Array; attempts: number }>(
      `update key_delivery_codes set attempts = attempts + 1 where id = $1 and attempts < $2
       returning code_hash as "codeHash", attempts`,
      [latest.id, CODE_ATTEMPTS],
    );
    if (!code) throw codeErrors.locked(CODE_ATTEMPTS);
    const given = sha256(`${delivery.id}:${options.code.trim()}`);
    if (!timingSafeEqual(given, code.codeHash)) return { left: CODE_ATTEMPTS - code.attempts };
    await tx.query('update key_delivery_codes set used_at = clock_timestamp() where id = $1', [latest.id]);
    await tx.query(
      `update key_delivery_recipients set viewed_at = clock_timestamp(), viewed_ip = $3, viewed_user_agent = $4
       where delivery_id = $1 and email = $2`,
      [delivery.id, email, options.ip, options.userAgent.slice(0, 500)],
    );
    const waiting = await tx.query(
      'select 1 from key_delivery_recipients where delivery_id = $1 and viewed_at is null limit 1',
      [delivery.id],
    );
    if (delivery.viewsRequired === 'first' || waiting.length === 0) {
      await tx.query('update key_deliveries set ciphertext = null, iv = null where id = $1', [delivery.id]);
    }
    if (!delivery.ciphertext || !delivery.iv) throw new Error('an open delivery without its ciphertext');
    return {
      revealed: {
        ciphertext: Buffer.from(delivery.ciphertext).toString('base64url'),
        iv: Buffer.from(delivery.iv).toString('base64url'),
        environment: delivery.environment,
        keyPrefix: delivery.keyPrefix,
      },
    };
  });
  if ('revealed' in outcome) return outcome.revealed;
  throw outcome.left > 0
    ? codeErrors.wrong(outcome.left)
    : codeErrors.locked(CODE_ATTEMPTS, { field: 'code' });
}
