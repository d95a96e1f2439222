import { createHash } from 'node:crypto';
import { AppError } from '../../../errors.ts';
import { readDateTime } from '../../../validation/date-time.ts';

/**
 * The queue's cursors: opaque to the console, and bound to the list they came from. A cursor holds the sort key
 * of the last row handed out (its time, to the microsecond, and its `sequence`) and a fingerprint of the
 * organization, the sort and the filters of its first page; a cursor of another list, or anything that is not a
 * cursor, is refused as INVALID_CURSOR before it reaches a query. Unlike the Portfolio API's (portfolio/cursor.ts)
 * it is not signed: it only says where to go on in the organization's own rows, which every query is scoped to
 * anyway, and holds no count or revision that a changed cursor could falsify. So a cursor is read as a forged
 * one would be: its time must exist and fall in the years both databases hold, and its sequence fit a `bigint`,
 * or a changed cursor would reach PostgreSQL and fail there (a 500).
 */

const VERSION = 1;
const MAX_LENGTH = 300;
/** The time of a sort key as the queue writes it: UTC, to the microsecond (what `timestamptz` holds). */
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** The sequence of a sort key: a positive `bigint` (an identity column's), in digits. */
const SEQUENCE = /^\d{1,19}$/;
const MAX_BIGINT = 2n ** 63n - 1n;

/** Where a walk through the queue stands: after the row with this sort time and sequence. */
export interface QueuePosition {
  time: string;
  sequence: string;
}

/** INVALID_CURSOR naming the query's `after`, where a cursor is given. */
function refused(message: string): AppError {
  return new AppError('INVALID_CURSOR', message, { field: 'after' });
}

/** A short fingerprint of what a list is: the organization, the sort and every filter. */
export function listFingerprint(list: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(list)).digest('base64url').slice(0, 16);
}

/** The cursor for the next page of the list `fingerprint`, after `position`. */
export function encodeQueueCursor(fingerprint: string, position: QueuePosition): string {
  return Buffer.from(JSON.stringify([VERSION, fingerprint, position.time, position.sequence])).toString(
    'base64url',
  );
}

/** The position a cursor of the list `fingerprint` holds; INVALID_CURSOR for anything else. */
export function decodeQueueCursor(cursor: string, fingerprint: string): QueuePosition {
  if (cursor.length > MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw refused('"after" is not a queue cursor: pass the nextCursor of the previous page as it is.');
  }
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    fields = undefined;
  }
  if (!Array.isArray(fields) || fields.length !== 4 || fields[0] !== VERSION) {
    throw refused(
      '"after" is not a queue cursor, or one of an older version: start again from the first page.',
    );
  }
  const [, list, time, sequence] = fields as unknown[];
  if (list !== fingerprint) {
    throw refused(
      'The cursor in "after" belongs to another list (another sort, filter or search): start again from the first page.',
    );
  }
  if (
    typeof time !== 'string' ||
    !TIME.test(time) ||
    !(readDateTime(time) instanceof Date) ||
    typeof sequence !== 'string' ||
    !SEQUENCE.test(sequence) ||
    BigInt(sequence) > MAX_BIGINT
  ) {
    throw refused(
      'The queue cursor in "after" is damaged: pass the nextCursor of the previous page as it is.',
    );
  }
  return { time, sequence };
}
