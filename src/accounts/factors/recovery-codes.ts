import { createHash, randomInt } from 'node:crypto';
import type { Database, Queryable } from '../../db/database.ts';
import { factorErrors } from '../../errors.ts';

/**
 * Recovery codes: ten per person, shown once when made and stored only as SHA-256 hashes (each code holds 60
 * random bits, far past what the counted tries could guess, so a slow hash would add nothing), each used once.
 * Making new ones deletes the old ones.
 */

const COUNT = 10;
/** Without 0/o, 1/l/i: a code read off paper is typed right. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const LENGTH = 12;

/** A code as typed, reduced to what it holds: case and separators do not matter. */
const normalized = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');
const hashOf = (code: string) => createHash('sha256').update(normalized(code)).digest();

/** Makes the person's ten recovery codes anew (the old ones stop working), and answers them, once. */
export async function makeRecoveryCodes(db: Database, userId: string): Promise<string[]> {
  const codes = Array.from({ length: COUNT }, () => {
    const chars = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return chars.replace(/(.{4})(?=.)/g, '$1-');
  });
  await db.transaction(async (tx) => {
    await tx.query('delete from recovery_codes where user_id = $1', [userId]);
    await tx.query(
      'insert into recovery_codes (user_id, code_hash) select $1, h from unnest($2::bytea[]) as h',
      [userId, codes.map(hashOf)],
    );
  });
  return codes;
}

/** Whether a typed code has the shape of a recovery code (rather than an app's six digits). */
export function looksLikeRecoveryCode(code: string): boolean {
  return normalized(code).length === LENGTH;
}

/**
 * Uses one of the person's recovery codes: true when it was theirs and unused (it is used now, in the one
 * statement that checks it), RECOVERY_CODE_USED when used already, false when it is none of theirs.
 */
export async function useRecoveryCode(db: Queryable, userId: string, code: string): Promise<boolean> {
  const [row] = await db.query<{ usedBefore: boolean }>(
    `with used as (
       update recovery_codes set used_at = clock_timestamp()
       where user_id = $1 and code_hash = $2 and used_at is null returning false as "usedBefore")
     select "usedBefore" from used
     union all select true from recovery_codes where user_id = $1 and code_hash = $2 and used_at is not null
     limit 1`,
    [userId, hashOf(code)],
  );
  if (!row) return false;
  if (row.usedBefore) throw factorErrors.recoveryCodeUsed();
  return true;
}
