import { CONSOLE_CHANNEL } from '../console/live.ts';
import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Database, Listener } from '../../db/database.ts';
import { operatorMessage } from '../../errors.ts';
import type { FileStore } from '../../files/file-store.ts';
import { createKickedRuns, type KickedRuns } from '../../jobs/kicked-runs.ts';
import type { DocumentWorkers } from '../documents/document-workers.ts';
import { certificateFactsOf, HistoryNotCertified } from './certificate-facts.ts';
import { CERTIFICATE_CHANNEL } from './certificate-queue.ts';

/**
 * Making the certificates of completion that completions queue (certificate-queue.ts; docs/evidence.md, "The
 * certificate of completion"). Any number of nodes run `makeDueCertificates` side by side: each claims one due row
 * at a time with `FOR UPDATE SKIP LOCKED` by setting its lease (`claimed_until`, committed at once, so that no row
 * lock is held while the PDF is made), reads the facts (the history checked against its chain first), has the
 * PDF laid out and sealed in a document worker, stores it, and records the file, its SHA-256 and the chain's head
 * in one statement, only while its lease is still its own. A node that dies mid-way leaves its lease to run out;
 * another then makes the certificate (the dead node's file, if stored, is swept as an orphan). A failure is kept
 * on the row (`last_error`, `attempts`) and tried again after a backoff; a history that does not match its chain
 * is not certified, and is said as a warning.
 */

/** How long a claimed certificate belongs to the run that claimed it: far beyond a document worker's time limit. */
const CLAIM_MS = 5 * 60_000;
/** How long a failed certificate waits before its next try, by failures in a row: 1, 5, 15, then every 60 minutes. */
export const CERTIFICATE_RETRY_DELAYS_MS: readonly number[] = [1, 5, 15, 60].map(
  (minutes) => minutes * 60_000,
);

/** What a run of {@link makeDueCertificates} did. */
export interface CertificateCounts {
  made: number;
  /** Certificates that failed (a history that does not match its chain among them), each to be tried again. */
  failed: number;
}

interface Claimed {
  transactionId: string;
  organizationId: string;
  attempts: number;
  /** The lease as written: the run's proof that the row is still its own when it records. */
  claimedUntil: Date;
  now: Date;
}

/** Claims the next due certificate (at `now`, else by the database's clock): its lease committed at once. */
async function claimNext(db: Database, now: Date | undefined): Promise<Claimed | undefined> {
  const [claimed] = await db.query<Claimed>(
    `with clock as (select coalesce($1::timestamptz, now()) as now),
     due as (
       select c.transaction_id from transaction_certificates c, clock
       where c.file_id is null and c.due_at <= clock.now and (c.claimed_until is null or c.claimed_until <= clock.now)
       order by c.due_at
       limit 1
       for update of c skip locked)
     update transaction_certificates c
     set claimed_until = date_trunc('milliseconds', clock.now + make_interval(secs => $2::float8 / 1000)),
       attempts = c.attempts + 1
     from due, clock
     where c.transaction_id = due.transaction_id
     returning c.transaction_id as "transactionId", c.organization_id as "organizationId", c.attempts,
       c.claimed_until as "claimedUntil", clock.now`,
    [now ?? null, CLAIM_MS],
  );
  return claimed;
}

/** A file's name without what file systems and headers refuse, and not too long. */
function fileNameOf(title: string): string {
  const safe = title
    .replace(/[\\/:*?"<>|]/g, ' ')
    .replace(/\p{Cc}/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 150);
  return `${safe} - certificate of completion.pdf`;
}

/** Makes, stores and records one claimed certificate; false when its lease was taken over meanwhile. */
async function makeOne(
  db: Database,
  claimed: Claimed,
  options: { files: FileStore; workers: DocumentWorkers },
): Promise<boolean> {
  const facts = await certificateFactsOf(db, {
    organizationId: claimed.organizationId,
    transactionId: claimed.transactionId,
    files: options.files,
    madeAt: new Date(),
  });
  const pdf = await options.workers.certify(facts);
  const sha256 = createHash('sha256').update(pdf).digest('hex');
  const storageKey = `${claimed.organizationId}/${randomUUID()}.pdf`;
  await options.files.put(storageKey, pdf, { contentType: 'application/pdf' });
  try {
    return await db.transaction(async (tx) => {
      const [file] = await tx.query<{ id: string }>(
        `insert into files (organization_id, mime_type, extension, original_filename, storage_key, byte_size, uploaded_at)
         values ($1, 'application/pdf', 'pdf', $2, $3, $4, clock_timestamp()) returning id`,
        [claimed.organizationId, fileNameOf(facts.title), storageKey, pdf.byteLength],
      );
      const recorded = await tx.query(
        `update transaction_certificates set file_id = $4, sha256 = $5, chain_position = $6, chain_head = $7,
           made_at = $8, claimed_until = null, last_error = null
         where transaction_id = $1 and organization_id = $2 and claimed_until = $3 and file_id is null
         returning transaction_id`,
        [
          claimed.transactionId,
          claimed.organizationId,
          claimed.claimedUntil,
          file?.id,
          sha256,
          facts.chain.position,
          facts.chain.head,
          facts.madeAt,
        ],
      );
      // Another run took the lease over (this one ran past it) and made it, or will: this one's file goes.
      if (recorded.length === 0) throw new LeaseLost();
      // The console's open pages of it read it again (live.ts), and list the certificate made.
      await tx.query(
        `select pg_notify($1, json_build_object('organizations', array[$2::text], 'transactions', array[$3::text])::text)`,
        [CONSOLE_CHANNEL, claimed.organizationId, claimed.transactionId],
      );
      return true;
    });
  } catch (error) {
    await options.files.delete(storageKey).catch(() => undefined);
    if (error instanceof LeaseLost) return false;
    throw error;
  }
}

class LeaseLost extends Error {}

/** Keeps a failure on its row, and when it is tried again, unless the lease is no longer this run's. */
async function recordFailure(db: Database, claimed: Claimed, reason: string): Promise<Date> {
  const delay =
    CERTIFICATE_RETRY_DELAYS_MS[Math.min(claimed.attempts, CERTIFICATE_RETRY_DELAYS_MS.length) - 1] ??
    3_600_000;
  const retryAt = new Date(claimed.now.getTime() + delay);
  await db.query(
    `update transaction_certificates set last_error = $4, due_at = $5, claimed_until = null
     where transaction_id = $1 and organization_id = $2 and claimed_until = $3 and file_id is null`,
    [claimed.transactionId, claimed.organizationId, claimed.claimedUntil, reason.slice(0, 1000), retryAt],
  );
  return retryAt;
}

/**
 * Makes the certificates of completion due (at `now`, else by the database's clock), one after another until none
 * is left or `shouldStop` says so, and says how many were made and how many failed. Safe to run on any number of
 * nodes at once: each certificate is made once.
 *
 * @example
 * const counts = await makeDueCertificates(db, { files, workers });
 * // { made: 1, failed: 0 }
 */
export async function makeDueCertificates(
  db: Database,
  options: {
    files: FileStore;
    workers: DocumentWorkers;
    logger?: Logger | undefined;
    now?: Date | undefined;
    shouldStop?: () => boolean;
  },
): Promise<CertificateCounts> {
  const counts: CertificateCounts = { made: 0, failed: 0 };
  for (;;) {
    if (options.shouldStop?.() === true) return counts;
    // Every claim moves its row's lease past `now`, so each claim holds a new row and the loop ends.
    const claimed = await claimNext(db, options.now);
    if (claimed === undefined) return counts;
    const log = { transactionId: claimed.transactionId, attempts: claimed.attempts };
    try {
      if (await makeOne(db, claimed, options)) counts.made += 1;
    } catch (error) {
      counts.failed += 1;
      const reason = operatorMessage(error);
      const retryAt = await recordFailure(db, claimed, reason);
      if (error instanceof HistoryNotCertified) {
        options.logger?.warn(
          { ...log, reason, retryAt },
          'a certificate of completion was refused: the history does not match its hash chain',
        );
      } else {
        options.logger?.warn(
          { ...log, err: error, retryAt },
          'making a certificate of completion failed; trying again later',
        );
      }
    }
  }
}

/**
 * The maker of certificates of completion: `kick()` to look now; `runDue(now)` makes what is due at `now` and says
 * what it did (a test's way to wait for a transaction's certificate). A commit that queues one notifies
 * {@link CERTIFICATE_CHANNEL}, which kicks it on every node that listens.
 */
export type CertificateRuns = KickedRuns<CertificateCounts> & {
  /** Resolves once it listens for the commits that queue a certificate (or gave up listening, and said so). */
  listening: Promise<void>;
};

/**
 * Makes certificates of completion whenever a commit queues one (it listens on {@link CERTIFICATE_CHANNEL}), every
 * `intervalMs` (for retries that come due, a lease that ran out, anything queued while it was not listening) and
 * once at start. Stopping ends a run after the certificate under way; stop it before its document workers close.
 *
 * @example
 * const certificates = createCertificateRuns({ db, files, workers: documentWorkers, logger });
 * // …
 * await certificates.stop();
 */
export function createCertificateRuns(options: {
  db: Database;
  files: FileStore;
  workers: DocumentWorkers;
  logger?: Logger | undefined;
  /** How often due certificates are looked for besides notifications; 0 for never. @default 60000 */
  intervalMs?: number;
  /** Whether commits that queue a certificate kick it at once. @default true */
  listen?: boolean;
}): CertificateRuns {
  const { db, logger } = options;
  let stopping = false;
  const runs = createKickedRuns({
    run: (now) =>
      makeDueCertificates(db, {
        files: options.files,
        workers: options.workers,
        logger,
        now,
        shouldStop: () => stopping,
      }),
    intervalMs: options.intervalMs ?? 60_000,
    onError: (error) => {
      logger?.warn({ err: error }, 'making certificates of completion failed; trying again in a minute');
    },
  });
  const listening: Promise<Listener | undefined> =
    options.listen === false
      ? Promise.resolve(undefined)
      : db
          .listen(CERTIFICATE_CHANNEL, () => {
            runs.kick();
          })
          .catch((error: unknown) => {
            // The interval alone still makes them, only later.
            logger?.warn({ err: error }, 'listening for certificates of completion failed');
            return undefined;
          });
  // What was due before this node listened (a crash, a stop mid-way), once it listens.
  void listening.then(() => {
    runs.kick();
  });
  return {
    ...runs,
    listening: listening.then(() => undefined),
    async stop() {
      stopping = true;
      await (await listening)?.close();
      await runs.stop();
    },
  };
}

/**
 * The certificates' runs as `portico serve` starts them, named as the step of its stop that ends them: push it
 * after the document workers' step, as steps run last to first.
 */
export function startCertificateRuns(options: Parameters<typeof createCertificateRuns>[0]): {
  what: string;
  close: () => Promise<void>;
} {
  const runs = createCertificateRuns(options);
  return { what: 'the certificates of completion', close: () => runs.stop() };
}
