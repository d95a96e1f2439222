import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import { isUuid } from '../../validation/uuid.ts';

/**
 * A transaction's history (its workflow events and its activity) is one SHA-256 hash chain, made by the database
 * as each entry is inserted (migration 0032_history_chain.sql; docs/evidence.md, "The history's hash chain"):
 * entry N stores the hash of entry N − 1 and its own, SHA-256(previous hash || UTF-8 of its canonical text), and
 * the transaction's head stores the last place and hash. This file checks a chain against its rows.
 */

/** What the first entry follows: 32 zero bytes. */
export const CHAIN_GENESIS = Buffer.alloc(32);

/** One entry of a chain as stored: its place, the hashes it stores (hex) and its canonical text. */
export interface ChainEntry {
  position: number;
  previous: string;
  hash: string;
  /** The text that was hashed, as `portico_history_canonical` makes it from the stored row. */
  canonical: string;
}

/** The transaction's head as stored: its last entry's place and hash (hex); null before its first entry. */
export type ChainHead = { position: number; hash: string } | null;

/**
 * Whether a history matches its chain: its head (hex) and length, or the first entry that does not match, in
 * words, with the head as stored (null when there is none).
 */
export type HistoryCheck =
  | { ok: true; head: string | null; entries: number }
  | { ok: false; position: number; reason: string; head: string | null };

/** An entry's hash: SHA-256 of the previous entry's hash followed by the UTF-8 of the entry's canonical text. */
export function chainHash(previous: Buffer, canonical: string): Buffer {
  return createHash('sha256').update(previous).update(canonical, 'utf8').digest();
}

/**
 * Walks `entries` (in any order) as a chain ending at `head`: each entry must hold the next place, follow the
 * entry before it and match its hash, and the head must close the chain at its last entry. Pure, so that a
 * verifier without the database (an evidence bundle's) walks the same way.
 */
export function checkChain(entries: readonly ChainEntry[], head: ChainHead): HistoryCheck {
  const ordered = [...entries].sort((a, b) => a.position - b.position);
  const mismatch = (position: number, reason: string): HistoryCheck => ({
    ok: false,
    position,
    reason,
    head: head?.hash ?? null,
  });
  let previous = CHAIN_GENESIS.toString('hex');
  for (const [index, entry] of ordered.entries()) {
    const expected = index + 1;
    if (entry.position > expected)
      return mismatch(expected, `entry ${String(expected)} is missing: it was removed`);
    if (entry.position < expected)
      return mismatch(
        entry.position,
        `entry ${String(entry.position)} appears twice: one was added or moved`,
      );
    if (entry.previous !== previous)
      return mismatch(
        expected,
        expected === 1
          ? 'entry 1 does not start the chain: an entry was removed, moved or rewritten'
          : `entry ${String(expected)} does not follow entry ${String(expected - 1)}: an entry was removed, moved or rewritten`,
      );
    if (chainHash(Buffer.from(previous, 'hex'), entry.canonical).toString('hex') !== entry.hash)
      return mismatch(
        expected,
        `entry ${String(expected)} was edited: its content no longer matches its hash`,
      );
    previous = entry.hash;
  }
  const count = ordered.length;
  if (head === null) {
    if (count === 0) return { ok: true, head: null, entries: 0 };
    return mismatch(1, 'the head of the chain is missing');
  }
  if (head.position > count) {
    const missing = count + 1;
    return mismatch(missing, `entry ${String(missing)} is missing: it was removed`);
  }
  if (head.position < count) {
    const extra = head.position + 1;
    return mismatch(
      extra,
      `entry ${String(extra)} comes after the last entry the head records: it was added`,
    );
  }
  if (head.hash !== previous)
    return mismatch(count, `the head does not match entry ${String(count)}: the chain was rewritten`);
  return { ok: true, head: head.hash, entries: count };
}

/** The sentence a page and the CLI say for a history that does not match. */
export function historyMismatch(check: { position: number; reason: string }): string {
  return `The history does not match from entry ${String(check.position)}: ${check.reason}.`;
}

/** A transaction's history as stored: its entries, in order, and its head. */
export interface StoredChain {
  entries: ChainEntry[];
  head: ChainHead;
}

/**
 * Reads a transaction's history as stored: every entry with the hashes it stores and its canonical text made
 * again from its row (by the same SQL function that made it), and the head. One statement, so that entries and
 * head are read at one moment even while others write. Without `organizationId` (an operator's CLI), any
 * organization's transaction. NOT_FOUND for a transaction that is not there (or not the organization's).
 */
export async function readChain(
  db: Queryable,
  options: { organizationId?: string | undefined; transactionId: string },
): Promise<StoredChain> {
  if (!isUuid(options.transactionId)) throw notFound('transaction', options.transactionId);
  const rows = await db.query<{
    source: 'head' | 'entry';
    position: string | null;
    previous: string | null;
    hash: string | null;
    canonical: string | null;
  }>(
    `with owner as (
       select t.id, t.organization_id from transactions t
       where t.id = $1 and ($2::uuid is null or t.organization_id = $2))
     select 'head' as source, h.position::text as position, null as previous, encode(h.head, 'hex') as hash,
       null as canonical
     from owner left join transaction_history_heads h
       on h.transaction_id = owner.id and h.organization_id = owner.organization_id
     union all
     select 'entry', e.chain_position::text, encode(e.chain_previous, 'hex'), encode(e.chain_hash, 'hex'),
       portico_history_canonical(e)
     from owner join transaction_events e on e.transaction_id = owner.id and e.organization_id = owner.organization_id
     union all
     select 'entry', a.chain_position::text, encode(a.chain_previous, 'hex'), encode(a.chain_hash, 'hex'),
       portico_history_canonical(a)
     from owner join transaction_activity a on a.transaction_id = owner.id and a.organization_id = owner.organization_id`,
    [options.transactionId, options.organizationId ?? null],
  );
  const headRow = rows.find((row) => row.source === 'head');
  if (headRow === undefined) throw notFound('transaction', options.transactionId);
  const entries = rows
    .filter((row) => row.source === 'entry')
    .map((row) => ({
      position: Number(row.position),
      previous: row.previous ?? '',
      hash: row.hash ?? '',
      canonical: row.canonical ?? '',
    }))
    .sort((a, b) => a.position - b.position);
  const head =
    headRow.position === null || headRow.hash === null
      ? null
      : { position: Number(headRow.position), hash: headRow.hash };
  return { entries, head };
}

/**
 * Checks a transaction's history against its chain (`readChain`, then `checkChain`): every entry's canonical
 * text is made again from its stored row, hashed, and linked to the one before, up to the head.
 * Without `organizationId` (an operator's CLI), any organization's transaction.
 *
 * @example
 * const check = await verifyHistory(db, { organizationId, transactionId });
 * if (!check.ok) console.log(historyMismatch(check));
 */
export async function verifyHistory(
  db: Queryable,
  options: { organizationId?: string | undefined; transactionId: string },
): Promise<HistoryCheck> {
  const { entries, head } = await readChain(db, options);
  return checkChain(entries, head);
}
