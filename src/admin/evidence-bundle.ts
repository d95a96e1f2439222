import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { createFileStore } from '../files/create-file-store.ts';
import { planEvidenceBundle, writeEvidenceBundle } from '../transactions/evidence/bundle.ts';
import { cannotWrite } from './backup.ts';

/** What `portico evidence bundle` wrote, for the operator. */
export interface EvidenceBundleSummary {
  path: string;
  /** The zip's size on disk. */
  bytes: number;
  kind: 'transaction' | 'closing';
  transactions: number;
}

/**
 * `portico evidence bundle`: the evidence bundle of any organization's transaction or closing (an operator reads
 * the whole instance), written from the database and the file store the server uses to `output`, or to the
 * plan's file name in `directory`: a new file, written beside it and renamed into place whole.
 */
export async function writeEvidenceBundleFile(
  db: Database,
  config: Pick<Config, 'dataDir'> & { s3?: Config['s3'] },
  input: {
    transaction?: string | undefined;
    closing?: string | undefined;
    output?: string | undefined;
    directory: string;
  },
): Promise<EvidenceBundleSummary> {
  if ((input.transaction === undefined) === (input.closing === undefined))
    throw new AppError('BAD_USER_INPUT', 'Give --transaction <id> or --closing <id>: what the bundle is of.');
  const plan = await planEvidenceBundle(
    db,
    input.transaction === undefined
      ? { organizationId: null, closingId: input.closing ?? '' }
      : { organizationId: null, transactionId: input.transaction },
  );
  const path = input.output ?? join(input.directory, plan.fileName);
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  if (exists) throw new AppError('CONFLICT', `${path} exists already; name a new file with --output.`);
  const partial = `${path}.partial`;
  try {
    const files = await createFileStore({ dataDir: config.dataDir, s3: config.s3 });
    await writeEvidenceBundle({ db, files }, plan, createWriteStream(partial, { flags: 'wx' }));
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR' || code === 'EEXIST')
      throw cannotWrite(path, code, error);
    throw error;
  }
  return { path, bytes: (await stat(path)).size, kind: plan.kind, transactions: plan.transactionIds.length };
}
