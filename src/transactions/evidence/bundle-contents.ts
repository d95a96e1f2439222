import type { Readable } from 'node:stream';
import type { Queryable } from '../../db/database.ts';
import type { FileStore } from '../../files/file-store.ts';
import { readChain } from '../history/chain.ts';
import { declaredProperties } from '../templates/schema-properties.ts';
import type { TemplateDefinition } from '../templates/schema.ts';
import { PAPER_FORM_KEY } from '../transitions.ts';
import {
  BUNDLE_FORMAT,
  BUNDLE_PATHS,
  HASHING,
  UniqueNames,
  type HistoryFile,
  type ManifestCertificate,
  type TransactionManifest,
} from './bundle-manifest.ts';
import type { BundleFile, BundlePart } from './bundle-zip.ts';

/**
 * One transaction's evidence, as parts of a bundle's zip (bundle.ts): read from the database one transaction at a
 * time, its files streamed from the file store one at a time, and its manifest last, from the hashes the zip's
 * writer made of what it wrote.
 */

/** A transaction as its evidence names it. */
interface TransactionRow {
  id: string;
  organizationId: string;
  state: string;
  createdAt: Date;
  completedAt: Date | null;
  investor: string;
  templateKey: string;
  templateVersion: number;
  templateName: string;
  definition: TemplateDefinition;
  certificateRow: boolean;
  certificateKey: string | null;
  certificateSha256: string | null;
  certificatePosition: string | null;
  certificateHead: string | null;
  certificateMadeAt: Date | null;
}

/** A transaction's title in a bundle: its investor and its template, e.g. "Jane Doe, Fund I subscription". */
function titleOf(row: Pick<TransactionRow, 'investor' | 'templateName'>): string {
  return `${row.investor}, ${row.templateName}`;
}

/** The transaction's row, its template and its certificate, in the organization; undefined when not there. */
async function readTransaction(
  db: Queryable,
  organizationId: string,
  transactionId: string,
): Promise<TransactionRow | undefined> {
  const [row] = await db.query<TransactionRow>(
    `select t.id, t.organization_id as "organizationId", t.state, t.created_at as "createdAt",
       t.completed_at as "completedAt", coalesce(t.investor_name, t.notice_name) as investor,
       tp.key as "templateKey", tp.version as "templateVersion", tp.name as "templateName", tp.definition,
       c.transaction_id is not null as "certificateRow", f.storage_key as "certificateKey",
       c.sha256 as "certificateSha256", c.chain_position::text as "certificatePosition",
       c.chain_head as "certificateHead", c.made_at as "certificateMadeAt"
     from transactions t
     join templates tp on tp.id = t.template_id and tp.organization_id = t.organization_id
     left join transaction_certificates c on c.transaction_id = t.id and c.organization_id = t.organization_id
     left join files f on f.id = c.file_id and f.organization_id = t.organization_id
     where t.id = $1 and t.organization_id = $2`,
    [transactionId, organizationId],
  );
  return row;
}

/** The title of the transaction, for a closing's folder and manifest, read alone. */
export async function transactionTitle(
  db: Queryable,
  organizationId: string,
  transactionId: string,
): Promise<{ title: string; investor: string } | undefined> {
  const [row] = await db.query<{ investor: string; templateName: string }>(
    `select coalesce(t.investor_name, t.notice_name) as investor, tp.name as "templateName"
     from transactions t join templates tp on tp.id = t.template_id and tp.organization_id = t.organization_id
     where t.id = $1 and t.organization_id = $2`,
    [transactionId, organizationId],
  );
  return row === undefined ? undefined : { title: titleOf(row), investor: row.investor };
}

/** A stored file of the transaction: the signed documents and the uploads, in the order they were made. */
interface StoredFileRow {
  kind: 'signed' | 'upload';
  storageKey: string;
  name: string;
  of: string;
}

function storedFiles(db: Queryable, organizationId: string, transactionId: string): Promise<StoredFileRow[]> {
  return db.query<StoredFileRow>(
    `select 'upload' as kind, f.storage_key as "storageKey", coalesce(f.override_filename, f.original_filename) as name,
       tf.vulcan_key as of, tf.created_at, tf.sequence
     from transaction_files tf join files f on f.id = tf.file_id and f.organization_id = tf.organization_id
     where tf.transaction_id = $1 and tf.organization_id = $2 and f.storage_key is not null
     union all
     select 'signed', f.storage_key, coalesce(f.override_filename, f.original_filename), c.document_key,
       sf.created_at, sf.sequence
     from transaction_signature_files sf join files f on f.id = sf.file_id and f.organization_id = sf.organization_id
     join transaction_signature_containers c
       on c.id = sf.transaction_signature_container_id and c.organization_id = sf.organization_id
     where sf.transaction_id = $1 and sf.organization_id = $2 and f.storage_key is not null
     order by kind, created_at, sequence`,
    [transactionId, organizationId],
  );
}

/** The folder of an upload: its field's title ("W-9 (U.S. persons) or W-8BEN (others)"), else its key. */
function uploadFolder(definition: TemplateDefinition, of: string): string {
  if (of === PAPER_FORM_KEY) return 'Paper forms';
  const [vulcanKey = '', ...rest] = of.split('.');
  const field = rest.join('.');
  const item = definition.processes
    .flatMap((process) => process.items)
    .find((candidate) => candidate.vulcanKey === vulcanKey);
  const property = declaredProperties(item?.schema)[field] as { title?: unknown } | undefined;
  return typeof property?.title === 'string' ? property.title : of;
}

/**
 * A stored file's content, opened only when the zip takes it; a file the store does not hold fails the bundle
 * (a bundle without it would say less than the transaction holds).
 */
async function opened(files: FileStore, storageKey: string, what: string): Promise<Readable> {
  const found = await files.open(storageKey);
  if (found === undefined) {
    throw new Error(`${what} is missing from the file store (storage key ${storageKey}): no bundle was made`);
  }
  return found.stream;
}

const json = (value: unknown) => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);

/**
 * The parts of one transaction's evidence, under `folder` ('' at the top of the bundle, or `Jane Doe (6f1c2e0a)/`):
 * its certificate, its signed documents, its uploads, its history with its chain, its template version, and
 * last its manifest, made from `written` (the files the zip's writer has written so far, with their hashes).
 * Undefined rows (a transaction removed since the plan) end the bundle with NOT_FOUND's words.
 */
export async function* transactionParts(
  deps: { db: Queryable; files: FileStore },
  options: {
    organizationId: string;
    transactionId: string;
    folder: string;
    madeAt: Date;
    written: readonly BundleFile[];
  },
): AsyncGenerator<BundlePart, TransactionManifest> {
  const { db, files } = deps;
  const { organizationId, transactionId, folder } = options;
  const row = await readTransaction(db, organizationId, transactionId);
  if (row === undefined) throw new Error(`the transaction ${transactionId} is gone: no bundle was made`);
  const chain = await readChain(db, { organizationId, transactionId });
  const stored = await storedFiles(db, organizationId, transactionId);
  const firstWritten = options.written.length;
  const what = (name: string) => `${name} of transaction ${transactionId}`;

  let certificate: ManifestCertificate = { status: row.certificateRow ? 'due' : 'none' };
  if (row.certificateKey !== null && row.certificateMadeAt !== null) {
    yield {
      name: `${folder}${BUNDLE_PATHS.certificate}`,
      content: await opened(files, row.certificateKey, what('the certificate of completion')),
    };
    certificate = {
      status: 'made',
      path: BUNDLE_PATHS.certificate,
      sha256: row.certificateSha256 ?? '',
      chainPosition: Number(row.certificatePosition ?? 0),
      chainHead: row.certificateHead ?? '',
      madeAt: row.certificateMadeAt.toISOString(),
    };
  }
  const folders = new Map<string, UniqueNames>();
  const named = (parent: string, name: string) => {
    const names = folders.get(parent) ?? new UniqueNames();
    folders.set(parent, names);
    return `${parent}/${names.name(name)}`;
  };
  const topFolders = new UniqueNames();
  const uploadFolders = new Map<string, string>();
  for (const file of stored) {
    let path: string;
    if (file.kind === 'signed') path = named(BUNDLE_PATHS.documents, file.name);
    else {
      const title = uploadFolder(row.definition, file.of);
      let parent = uploadFolders.get(title);
      if (parent === undefined) {
        parent = `${BUNDLE_PATHS.uploads}/${topFolders.name(title, 'upload')}`;
        uploadFolders.set(title, parent);
      }
      path = named(parent, file.name);
    }
    yield { name: `${folder}${path}`, content: await opened(files, file.storageKey, what(file.name)) };
  }
  const history: HistoryFile = { transactionId, hashing: HASHING, head: chain.head, entries: chain.entries };
  yield { name: `${folder}${BUNDLE_PATHS.history}`, content: json(history) };
  const template = {
    key: row.templateKey,
    version: row.templateVersion,
    name: row.templateName,
    definition: row.definition,
  };
  yield { name: `${folder}${BUNDLE_PATHS.template}`, content: json(template) };

  const manifest: TransactionManifest = {
    format: BUNDLE_FORMAT,
    kind: 'transaction',
    madeAt: options.madeAt.toISOString(),
    transaction: {
      id: row.id,
      organizationId: row.organizationId,
      title: titleOf(row),
      state: row.state,
      createdAt: row.createdAt.toISOString(),
      completedAt: row.completedAt?.toISOString() ?? null,
    },
    template: { key: row.templateKey, version: row.templateVersion },
    history: { entries: chain.entries.length, head: chain.head },
    certificate,
    files: options.written
      .slice(firstWritten)
      .map((file) => ({ ...file, name: file.name.slice(folder.length) })),
  };
  yield { name: `${folder}${BUNDLE_PATHS.manifest}`, content: json(manifest) };
  return manifest;
}
