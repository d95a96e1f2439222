import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../../config.ts';
import type { Queryable } from '../../db/database.ts';
import {
  loadSealCredential,
  readConfigFile,
  readP12Credential,
  readPemCredential,
  type SealCredential,
} from './seal-credential.ts';

/**
 * Which seal seals each organization's documents: its own, from the folder PORTICO_SEAL_DIR names, else the
 * instance's (seal-credential.ts). Private keys stay where the operator keeps them (a file system, a mounted
 * secret), never in the database: the folder is read and every seal in it checked at start, so that a seal that
 * cannot seal stops the start with one line naming its file rather than failing a completion.
 */
export interface SealKeeper {
  /** The seal of an organization's documents: its own, else the instance's. */
  sealFor(organizationId: string): SealCredential;
}

/** The seals read at start, before the database opens: the instance's and each handle's own. */
export interface LoadedSeals {
  instance: SealCredential;
  /** Each organization's own seal, by its handle, with the file it came from. */
  byHandle: ReadonlyMap<string, { file: string; seal: SealCredential }>;
}

/** A seal folder's file name: an organization's handle (organizations.handle) and what the file holds. */
const SEAL_FILE = /^([a-z0-9][a-z0-9-]{1,62})\.(p12|p12\.password|cert\.pem|key\.pem)$/;
const NAMING =
  'name each seal <handle>.p12 with its password in <handle>.p12.password, or <handle>.cert.pem with <handle>.key.pem';

/** The files of a seal folder, by handle: what each holds, by its kind (`p12`, `cert.pem`, ...). */
async function sealFiles(dir: string): Promise<Map<string, Map<string, string>>> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch (error) {
    throw new ConfigError(
      `PORTICO_SEAL_DIR: ${dir} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const byHandle = new Map<string, Map<string, string>>();
  for (const name of names) {
    // Hidden files, and the `..data` folders a Kubernetes secret is mounted with, are not seals.
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    if ((await stat(path).catch(() => undefined))?.isDirectory() ?? false) continue;
    const [, handle, kind] = SEAL_FILE.exec(name) ?? [];
    if (handle === undefined || kind === undefined) {
      throw new ConfigError(`PORTICO_SEAL_DIR: ${path} is not a seal: ${NAMING}`);
    }
    const kinds = byHandle.get(handle) ?? new Map<string, string>();
    kinds.set(kind, path);
    byHandle.set(handle, kinds);
  }
  return byHandle;
}

/** The seal of one handle's files, checked as the instance's is; each problem one line naming a file. */
async function handleSeal(dir: string, handle: string, kinds: Map<string, string>): Promise<SealCredential> {
  const file = (kind: string) => kinds.get(kind) ?? join(dir, `${handle}.${kind}`);
  const p12 = kinds.get('p12');
  const pem = kinds.has('cert.pem') || kinds.has('key.pem');
  if (p12 !== undefined && pem) {
    throw new ConfigError(
      `PORTICO_SEAL_DIR: ${p12} and ${file('cert.pem')} are two seals for "${handle}": keep one`,
    );
  }
  if (p12 !== undefined) {
    const passwordFile = file('p12.password');
    if (!kinds.has('p12.password')) {
      throw new ConfigError(
        `PORTICO_SEAL_DIR: ${p12} has no password file ${passwordFile} (an empty one for a file without password)`,
      );
    }
    // The password as a secret mount or an editor writes it: one line, its line ending not part of it.
    const password = (await readConfigFile(passwordFile, 'PORTICO_SEAL_DIR'))
      .toString('utf8')
      .replace(/\r?\n$/, '');
    return readP12Credential(p12, password, { what: p12, passwordFrom: passwordFile });
  }
  if (!pem) {
    throw new ConfigError(
      `PORTICO_SEAL_DIR: ${file('p12.password')} is the password of ${file('p12')}, which is missing`,
    );
  }
  for (const [kind, other] of [
    ['cert.pem', 'key.pem'],
    ['key.pem', 'cert.pem'],
  ] as const) {
    if (!kinds.has(kind)) {
      throw new ConfigError(`PORTICO_SEAL_DIR: ${file(other)} has no ${file(kind)} to go with it`);
    }
  }
  return readPemCredential(file('cert.pem'), file('key.pem'), { what: file('cert.pem'), selfSigned: false });
}

/**
 * Every seal of a seal folder, by handle, each checked as the instance's is (seal-credential.ts
 * `checkedCredential`): a file that is not a seal, a seal without its other half, a password that does not open
 * its PKCS#12 file, a certificate expired, not matching its key or not allowed to sign: a ConfigError of one
 * line naming the file. Files are read in their names' order, so that the same folder names the same problem.
 */
export async function loadSealFolder(
  dir: string,
): Promise<Map<string, { file: string; seal: SealCredential }>> {
  const seals = new Map<string, { file: string; seal: SealCredential }>();
  for (const [handle, kinds] of await sealFiles(dir)) {
    const seal = await handleSeal(dir, handle, kinds);
    seals.set(handle, { file: kinds.get('p12') ?? kinds.get('cert.pem') ?? dir, seal });
  }
  return seals;
}

/** The instance's seal and the folder's, read and checked at start (`sealKeeper` then knows the organizations). */
export async function loadSeals(
  config: Pick<Config, 'sealCert' | 'sealKey' | 'sealP12' | 'sealP12Password' | 'sealDir' | 'dataDir'>,
  logger?: Logger,
): Promise<LoadedSeals> {
  const instance = await loadSealCredential(config, logger);
  const byHandle = config.sealDir === undefined ? new Map() : await loadSealFolder(config.sealDir);
  return { instance, byHandle };
}

/**
 * The keeper of the seals `loaded`, once the database is open: each handle's seal is the seal of the organization
 * of that handle (handles never change). A seal whose handle names no organization yet is said (warn), not
 * refused: it seals that organization's documents from the first start after it is made. The organizations that
 * seal with their own are said by handle (info), never with anything of their keys.
 */
export async function sealKeeper(db: Queryable, loaded: LoadedSeals, logger?: Logger): Promise<SealKeeper> {
  const handles = [...loaded.byHandle.keys()];
  const found =
    handles.length === 0
      ? []
      : await db.query<{ id: string; handle: string }>(
          `select id, handle from organizations where handle = any($1::text[])`,
          [handles],
        );
  const byOrganization = new Map<string, SealCredential>();
  for (const { id, handle } of found) {
    const own = loaded.byHandle.get(handle);
    if (own !== undefined) byOrganization.set(id, own.seal);
  }
  for (const [handle, { file }] of loaded.byHandle) {
    if (found.some((each) => each.handle === handle)) continue;
    logger?.warn(
      { file, handle },
      'a seal in PORTICO_SEAL_DIR names no organization: it will seal the documents of the organization of that handle from the first start after it is made',
    );
  }
  if (handles.length > 0) {
    logger?.info(
      { organizations: found.map((each) => each.handle).sort() },
      'these organizations seal their documents with their own seal; the others with the instance’s',
    );
  }
  return { sealFor: (organizationId) => byOrganization.get(organizationId) ?? loaded.instance };
}
