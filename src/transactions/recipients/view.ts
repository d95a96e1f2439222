import { commentsOf } from '../review/comments.ts';
import type { Queryable } from '../../db/database.ts';
import { DEFAULT_LINK_SECONDS, type FileLinks } from '../../files/file-links.ts';
import { consentTimes, primaryRecipient } from './actions.ts';
import type { ItemDefinition, UiHints } from '../templates/schema.ts';
import { boundedSchema } from '../templates/answer-bounds.ts';
import type { LockedTransaction } from '../transitions.ts';
import { moneyRulesOf, type MoneyRule } from '../templates/money-fields.ts';
import { uploadFieldsOf, uploadKey } from './uploads.ts';
import { disclosureFor, esignStanding, type EsignStanding } from '../esign/consent.ts';
import type { Disclosure } from '../esign/disclosure.ts';

/** What the primary recipient sees of a transaction through its link (`GET /recipient/:token`). */
export interface RecipientView {
  transaction: { id: string; state: string; stateDescription: string | null; completedAt: Date | null };
  organization: { name: string };
  template: { name: string };
  recipient: { role: string; name: string; email: string };
  link: { expiresAt: Date };
  /** The disclosure to read before the first signature, and the recipient's latest act about it. */
  esign: { disclosure: Disclosure; standing: EsignStanding | null };
  processes: ProcessShown[];
}

interface ProcessShown {
  key: string;
  title: string;
  revision: {
    number: number;
    committedAt: Date | null;
    /** The event that opened this revision after an earlier one (e.g. request_changes) and what was said. */
    changesRequested: { at: Date; message: string | null } | null;
  };
  items: ItemShown[];
  documents: DocumentShown[];
}

interface ItemShown {
  vulcanKey: string;
  title: string;
  schema: unknown;
  ui: UiHints | null;
  uploads: Record<string, { accept: readonly string[]; maxBytes: number }>;
  /** The fields answered with an amount of money: their currencies and bounds, in minor units. */
  money: Record<string, MoneyRule>;
  data: unknown;
  /** The data of the revision before, when there is one: what the recipient submitted last time. */
  previousData: unknown;
  completionPercentage: number;
  /** When the recipient gave each consent the data holds (ISO 8601). */
  consents: Record<string, string>;
  files: FileShown[];
  /** The reviewer's open comments on fields of this item: shown beside each field. */
  comments: CommentShown[];
}

interface CommentShown {
  id: string;
  field: string;
  body: string;
  /** Who wrote it, as the recipient sees them: the organization's person by name. */
  author: string | null;
  createdAt: Date;
}

interface FileShown {
  id: string;
  field: string;
  originalFilename: string;
  mimeType: string;
  byteSize: number;
  uploadedAt: Date;
}

interface DocumentShown {
  key: string;
  title: string;
  signedBy: string[];
  signatures: { role: string; signedName: string; signedAt: string }[];
  /** Whether it is this recipient's turn to sign it now. */
  canSign: boolean;
  state: 'PENDING' | 'COMPLETED';
  /** The document as it would be signed now, as a PDF (relative to the service). */
  previewUrl: string;
  /** The signed PDF, once every role has signed: a signed download link (relative to the service). */
  signedFile: { filename: string; url: string; byteSize: number } | null;
}

interface ProcessRow {
  key: string;
  number: number;
  createdAt: Date;
  committedAt: Date | null;
  items: Record<string, { data: unknown; completionPercentage: number; consents: Record<string, string> }>;
  previousItems: Record<string, unknown> | null;
  signatures: { documentKey: string; role: string; signedName: string; signedAt: string }[];
  completedFiles: { documentKey: string; fileId: string; filename: string; byteSize: string }[];
  openedBy: { at: Date; message: string | null } | null;
}

/**
 * The recipient's view of a transaction: who asks what of them, each process's latest revision with its items
 * (as the template orders them, with their form hints, uploads, data, the data submitted before, and completion)
 * and its documents (signatures made on that revision, whose turn it is, a preview, the signed PDF).
 */
export async function recipientView(
  tx: Queryable,
  options: {
    transaction: LockedTransaction;
    token: string;
    linkExpiresAt: Date;
    links: FileLinks;
    uploadMaxBytes: number;
    now?: Date;
  },
): Promise<RecipientView> {
  const subject = options.transaction;
  const signer = await primaryRecipient(tx, subject);
  const [facts] = await tx.query<{
    organizationName: string;
    recipientName: string;
    recipientEmail: string;
    recipientType: string;
    completedAt: Date | null;
  }>(
    `select o.name as "organizationName", e.name as "recipientName", coalesce(e.email, t.notice_email) as "recipientEmail",
       e.type as "recipientType",
       t.completed_at as "completedAt"
     from transactions t join organizations o on o.id = t.organization_id
     join transaction_recipients r on r.id = $2 join entities e on e.id = r.entity_id
     where t.id = $1`,
    [subject.id, signer.recipientId],
  );
  // Only what the team wrote for the investor: an internal note never reaches the portal.
  const comments = await commentsOf(tx, {
    organizationId: subject.organizationId,
    transactionId: subject.id,
    open: true,
    forInvestor: true,
  });
  const rows = await tx.query<ProcessRow>(
    `select p.key, r.number, r.created_at as "createdAt", r.committed_at as "committedAt",
       (select coalesce(jsonb_object_agg(i.vulcan_key, jsonb_build_object('data', i.data, 'completionPercentage', i.completion_percentage, 'consents', i.consents)), '{}')
        from transaction_items i where i.transaction_process_revision_id = r.id) as items,
       (select jsonb_object_agg(i.vulcan_key, i.data) from transaction_process_revisions pr
        join transaction_items i on i.transaction_process_revision_id = pr.id
        where pr.transaction_process_id = p.id and pr.number = r.number - 1) as "previousItems",
       (select coalesce(jsonb_agg(jsonb_build_object('documentKey', c.document_key, 'role', rc.vulcan_key,
                 'signedName', s.signed_name, 'signedAt', s.signed_at) order by s.signed_at), '[]')
        from transaction_signature_containers c
        join transaction_signatures s on s.transaction_signature_container_id = c.id and s.state = 'signed'
        join transaction_recipients rc on rc.id = s.transaction_recipient_id
        where c.transaction_process_id = p.id and c.state <> 'voided' and c.created_at >= r.created_at) as signatures,
       (select coalesce(jsonb_agg(jsonb_build_object('documentKey', c.document_key, 'fileId', f.id,
                 'filename', coalesce(f.override_filename, f.original_filename), 'byteSize', f.byte_size)), '[]')
        from transaction_signature_containers c
        join transaction_signature_files sf on sf.transaction_signature_container_id = c.id
        join files f on f.id = sf.file_id
        where c.transaction_process_id = p.id and c.state = 'completed' and c.created_at >= r.created_at) as "completedFiles",
       case when r.number > 1 then (
         select jsonb_build_object('at', ev.created_at, 'message', ev.message) from transaction_events ev
         where ev.transaction_id = p.transaction_id and ev.created_at <= r.created_at
         order by ev.created_at desc, ev.sequence desc limit 1) end as "openedBy"
     from transaction_processes p
     join lateral (select * from transaction_process_revisions where transaction_process_id = p.id
                   order by number desc limit 1) r on true
     where p.transaction_id = $1 order by p.created_at, p.sequence`,
    [subject.id],
  );
  const files = await tx.query<FileShown & { vulcanKey: string }>(
    `select f.id, tf.vulcan_key as "vulcanKey", f.original_filename as "originalFilename", f.mime_type as "mimeType",
       f.byte_size::int as "byteSize", f.uploaded_at as "uploadedAt"
     from transaction_files tf join files f on f.id = tf.file_id
     where tf.transaction_id = $1 and f.uploaded_at is not null order by tf.created_at desc, tf.sequence desc`,
    [subject.id],
  );
  const linkExpiry = new Date((options.now ?? new Date()).getTime() + DEFAULT_LINK_SECONDS * 1000);
  const base = `/recipient/${options.token}`;
  const stateDescription =
    subject.definition.workflow.states.find((state) => state.key === subject.state)?.description ?? null;
  return {
    transaction: {
      id: subject.id,
      state: subject.state,
      stateDescription,
      completedAt: facts?.completedAt ?? null,
    },
    organization: { name: facts?.organizationName ?? '' },
    template: { name: subject.definition.name },
    recipient: { role: signer.role, name: facts?.recipientName ?? '', email: facts?.recipientEmail ?? '' },
    link: { expiresAt: options.linkExpiresAt },
    esign: {
      disclosure: await disclosureFor(tx, subject),
      standing: await esignStanding(tx, {
        organizationId: subject.organizationId,
        recipientId: signer.recipientId,
      }),
    },
    processes: rows.map((row) => {
      const definition = subject.definition.processes.find((p) => p.key === row.key);
      return {
        key: row.key,
        title: definition?.title ?? row.key,
        revision: {
          number: row.number,
          committedAt: row.committedAt,
          changesRequested: row.openedBy
            ? { at: new Date(row.openedBy.at), message: row.openedBy.message }
            : null,
        },
        items: (definition?.items ?? []).map((item) => ({
          vulcanKey: item.vulcanKey,
          title: item.title ?? item.vulcanKey,
          // With the bounds the server keeps written in, so that the form stops a long answer as it is typed.
          schema: boundedSchema(withEntityDefaults(item, facts?.recipientType)),
          ui: item.ui ?? null,
          uploads: uploadFieldsOf(item, options.uploadMaxBytes),
          money: moneyRulesOf(item),
          data: row.items[item.vulcanKey]?.data ?? {},
          previousData: row.previousItems?.[item.vulcanKey] ?? null,
          completionPercentage: row.items[item.vulcanKey]?.completionPercentage ?? 0,
          consents: consentTimes(row.items[item.vulcanKey]?.consents),
          comments: comments
            .filter((comment) => comment.vulcanKey === item.vulcanKey)
            .map(({ id, field, body, author, createdAt }) => ({
              id,
              field,
              body,
              author: author?.name ?? null,
              createdAt,
            })),
          files: Object.keys(item.uploads ?? {}).flatMap((field) =>
            files
              .filter((file) => file.vulcanKey === uploadKey(item, field))
              .map((file) => ({
                id: file.id,
                field,
                originalFilename: file.originalFilename,
                mimeType: file.mimeType,
                byteSize: file.byteSize,
                uploadedAt: file.uploadedAt,
              })),
          ),
        })),
        documents: (definition?.documents ?? []).map((document) => {
          const signatures = row.signatures
            .filter((s) => s.documentKey === document.key)
            .map((s) => ({ role: s.role, signedName: s.signedName, signedAt: s.signedAt }));
          const signedRoles = new Set(signatures.map((s) => s.role));
          const myTurn =
            document.signedBy.includes(signer.role) &&
            !signedRoles.has(signer.role) &&
            document.signedBy
              .slice(0, document.signedBy.indexOf(signer.role))
              .every((r) => signedRoles.has(r));
          const completed = row.completedFiles.find((file) => file.documentKey === document.key);
          return {
            key: document.key,
            title: document.title ?? document.key,
            signedBy: document.signedBy,
            signatures,
            canSign: myTurn && row.committedAt === null,
            state: completed ? ('COMPLETED' as const) : ('PENDING' as const),
            previewUrl: `${base}/documents/${document.key}/preview`,
            signedFile: completed
              ? {
                  filename: completed.filename,
                  url: options.links.pathFor(completed.fileId, linkExpiry),
                  byteSize: Number(completed.byteSize),
                }
              : null,
          };
        }),
      };
    }),
  };
}

/**
 * An item's schema with the answers its fields start with for a recipient of this entity type (the template's
 * `defaultByEntityType`) as their `default`: a trust starts as "A trust", not the schema's "An individual".
 */
function withEntityDefaults(item: ItemDefinition, entityType: string | undefined): unknown {
  const schema = item.schema as { properties?: Record<string, Record<string, unknown>> };
  const properties = { ...schema.properties };
  let changed = false;
  for (const [field, hints] of Object.entries(item.ui?.fields ?? {})) {
    const value = entityType === undefined ? undefined : hints.defaultByEntityType?.[entityType];
    const property = properties[field];
    if (value !== undefined && property !== undefined) {
      properties[field] = { ...property, default: value };
      changed = true;
    }
  }
  return changed ? { ...schema, properties } : schema;
}
