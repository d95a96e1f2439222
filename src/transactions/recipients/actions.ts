// Kept as one file: what a recipient does to a revision (save, sign, submit) shares the revision's lookups, locks
// and completeness checks, which the sender's countersignature (documents/countersign.ts) signs through too.
import { randomUUID } from 'node:crypto';
import type { Queryable, Transaction } from '../../db/database.ts';
import {
  AppError,
  blank,
  consentWithheld,
  itemDataDoesNotFit,
  notFound,
  quote,
  revisionIncomplete,
  revisionSubmitted,
  signingNeedsConsent,
  tooLong,
} from '../../errors.ts';
import type { FileStore } from '../../files/file-store.ts';
import { checkMoneyValues } from '../templates/money-fields.ts';
import { itemRules, listProblems, MAX_PROBLEM_DETAILS } from '../templates/item-data.ts';
import type { ProcessDefinition } from '../templates/schema.ts';
import { uploadFieldProblems } from './uploads.ts';
import { isPrimaryRole, recordRecipientActivity } from './activity.ts';
import type { Actor } from '../actor.ts';
import { refreshCompletion } from '../completion.ts';
import { renderDocument } from '../documents/signed-document.ts';
import type { DocumentWorkers } from '../documents/document-workers.ts';
import { requireEsignConsent } from '../esign/consent.ts';
import { applyEvent, eventAllowed, type LockedTransaction, type Transition } from '../transitions.ts';

/** The longest name a signature may carry, as the recipient routes also say. */
const MAX_SIGNED_NAME_LENGTH = 200;

/**
 * What the recipients of a transaction do: fill in items, sign documents, submit revisions. The primary
 * recipient acts with the transmit token; the sender signs for its roles (e.g. countersigner) through the API or
 * the console (documents/countersign.ts). Each action runs in the caller's database transaction, with the
 * transaction's row locked.
 */

/** Who acts: one recipient of the transaction. */
export interface Signer {
  recipientId: string;
  role: string;
}

/** Context recorded with a signature. */
export interface SignatureContext {
  ipAddress: string;
  userAgent: string | undefined;
  /** The request that signs: the mail and webhook a completion queues name it in their log lines. */
  requestId?: string | undefined;
}

/** A signature asked for: the document, the typed name, explicit consent, and where the PDF goes. */
export interface SignatureRequest {
  documentKey: string;
  signedName: string;
  consent: boolean;
  context: SignatureContext;
  files: FileStore;
  /** The threads the signed copy is made in. @default the process's (documents/document-workers.ts) */
  workers?: DocumentWorkers | undefined;
  /** Refuse (REVISION_SUBMITTED) when the revision was submitted: a recipient signs before submitting. */
  openRevisionOnly?: boolean;
}

/** A signature made: the document is `COMPLETED` once its last signature is, else `PENDING`. */
export interface SignatureResult {
  documentKey: string;
  state: 'PENDING' | 'COMPLETED';
}

export interface LatestRevision {
  processId: string;
  revisionId: string;
  number: number;
  createdAt: Date;
  committedAt: Date | null;
}

/**
 * Refuses (REVISION_INCOMPLETE) a revision whose items are not all complete or whose documents the signer signs
 * are not signed by them yet, naming both.
 */
async function checkComplete(
  tx: Queryable,
  subject: LockedTransaction,
  options: { process: ProcessDefinition; revision: LatestRevision; signer: Signer },
): Promise<void> {
  const { process, revision, signer } = options;
  const incomplete = await tx.query<{ vulcanKey: string; data: unknown }>(
    `select vulcan_key as "vulcanKey", data from transaction_items
     where transaction_process_revision_id = $1 and completion_percentage < 100 order by created_at, sequence`,
    [revision.revisionId],
  );
  // What each incomplete item still lacks, so that a missing consent is named, not only its item.
  const fields = Object.fromEntries(
    incomplete.map(({ vulcanKey, data }) => {
      const item = process.items.find((candidate) => candidate.vulcanKey === vulcanKey);
      return [vulcanKey, item ? itemRules(item).missing(data) : []];
    }),
  );
  const signedHere = await tx.query<{ documentKey: string }>(
    `select c.document_key as "documentKey" from transaction_signature_containers c
     join transaction_signatures s on s.transaction_signature_container_id = c.id and s.state = 'signed'
     where c.transaction_process_id = $1 and c.state <> 'voided' and c.created_at >= $2
       and s.transaction_recipient_id = $3`,
    [revision.processId, revision.createdAt, signer.recipientId],
  );
  const unsigned = (process.documents ?? [])
    .filter((document) => document.signedBy.includes(signer.role))
    .filter((document) => !signedHere.some((signed) => signed.documentKey === document.key))
    .map((document) => document.key);
  if (incomplete.length === 0 && unsigned.length === 0) return;
  const parts = [
    ...(incomplete.length > 0
      ? [
          `complete ${incomplete
            .map(({ vulcanKey }) => {
              const lacking = fields[vulcanKey] ?? [];
              return lacking.length > 0 ? `${vulcanKey} (${lacking.join(', ')})` : vulcanKey;
            })
            .join(', ')}`,
        ]
      : []),
    ...(unsigned.length > 0 ? [`sign ${unsigned.join(', ')}`] : []),
  ];
  throw revisionIncomplete(parts, {
    items: incomplete.map((i) => i.vulcanKey),
    fields,
    documents: unsigned,
  });
}

/** The recipient of `role` in the transaction. */
export async function recipientOf(
  tx: Queryable,
  transactionId: string,
  role: string,
): Promise<Signer | undefined> {
  const [row] = await tx.query<{ id: string }>(
    'select id from transaction_recipients where transaction_id = $1 and vulcan_key = $2 order by created_at, sequence limit 1',
    [transactionId, role],
  );
  return row ? { recipientId: row.id, role } : undefined;
}

/** The primary recipient: the one the transmit token opens the transaction for. */
export async function primaryRecipient(tx: Queryable, subject: LockedTransaction): Promise<Signer> {
  const role = subject.definition.recipientRoles.find((candidate) => candidate.primary === true)?.key ?? '';
  const signer = await recipientOf(tx, subject.id, role);
  if (!signer) throw new Error(`transaction ${subject.id} has no primary recipient`);
  return signer;
}

export async function latestRevision(
  tx: Queryable,
  transactionId: string,
  processKey: string,
): Promise<LatestRevision> {
  const [row] = await tx.query<LatestRevision>(
    `select p.id as "processId", r.id as "revisionId", r.number, r.created_at as "createdAt", r.committed_at as "committedAt"
     from transaction_processes p
     join transaction_process_revisions r on r.transaction_process_id = p.id
     where p.transaction_id = $1 and p.key = $2 order by r.number desc limit 1`,
    [transactionId, processKey],
  );
  if (!row) throw notFound('process', processKey);
  return row;
}

export function processOfItem(subject: LockedTransaction, vulcanKey: string) {
  const process = subject.definition.processes.find((p) =>
    p.items.some((item) => item.vulcanKey === vulcanKey),
  );
  const item = process?.items.find((candidate) => candidate.vulcanKey === vulcanKey);
  if (!process || !item) throw notFound('item', vulcanKey);
  return { process, item };
}

/** The process of a document of the transaction's template, and the document; NOT_FOUND when there is none. */
export function processOfDocument(subject: LockedTransaction, documentKey: string) {
  const process = subject.definition.processes.find((p) =>
    (p.documents ?? []).some((d) => d.key === documentKey),
  );
  const document = process?.documents?.find((d) => d.key === documentKey);
  if (!process || !document) throw notFound('document', documentKey);
  return { process, document };
}

/** The latest revision of a process while it takes changes; REVISION_SUBMITTED once it was submitted. */
export async function latestOpenRevision(
  tx: Queryable,
  transactionId: string,
  processKey: string,
): Promise<LatestRevision> {
  const revision = await latestRevision(tx, transactionId, processKey);
  if (revision.committedAt !== null) throw revisionSubmitted(revision.number, processKey);
  return revision;
}

/** An item of a revision: its data, and when each consent in it was given. */
export interface RevisionItem {
  vulcanKey: string;
  data: unknown;
  consents: Record<string, string>;
}

/** The items of a revision with their data and consents, in the template's order. */
export async function revisionItems(tx: Queryable, revisionId: string): Promise<RevisionItem[]> {
  const rows = await tx.query<{ vulcanKey: string; data: unknown; consents: Record<string, string> }>(
    `select vulcan_key as "vulcanKey", data, consents from transaction_items
     where transaction_process_revision_id = $1 order by created_at, sequence`,
    [revisionId],
  );
  return rows.map((row) => ({ ...row, consents: consentTimes(row.consents) }));
}

/**
 * Saves the data of an item of the latest revision (replacing what was there). Partial data is allowed; data
 * that breaks the item's schema is refused with each problem. A submitted revision no longer changes.
 */
export async function saveItem(
  tx: Transaction,
  subject: LockedTransaction,
  options: { vulcanKey: string; data: unknown },
): Promise<{
  vulcanKey: string;
  data: unknown;
  completionPercentage: number;
  /** When each consent the data gives was first given (ISO 8601). */
  consents: Record<string, string>;
}> {
  const { process, item } = processOfItem(subject, options.vulcanKey);
  const rules = itemRules(item);
  // Checked before the schema, whose `const` would only say "must be equal to constant".
  const [withheld, ...more] = rules.withheldConsents(options.data);
  if (withheld !== undefined) {
    throw consentWithheld(item.vulcanKey, [withheld, ...more]);
  }
  checkMoneyValues(item, options.data);
  const problems = rules.problems(options.data);
  if (problems.length > 0) {
    throw itemDataDoesNotFit(item.vulcanKey, listProblems(problems), {
      problems: problems.slice(0, MAX_PROBLEM_DETAILS),
    });
  }
  const revision = await latestOpenRevision(tx, subject.id, process.key);
  const fileProblems = await uploadFieldProblems(tx, subject.id, item, options.data);
  if (fileProblems.length > 0) {
    throw itemDataDoesNotFit(item.vulcanKey, listProblems(fileProblems), { problems: fileProblems });
  }
  const completionPercentage = rules.completion(options.data);
  // A consent keeps the time it was first given while saves keep it; one left out is withdrawn.
  const given = rules.consents.filter(
    (field) => (options.data as Record<string, unknown> | null)?.[field] === true,
  );
  const [saved] = await tx.query<{ consents: Record<string, string>; before: Record<string, string> | null }>(
    `with before as (
       select consents from transaction_items where transaction_process_revision_id = $1 and vulcan_key = $2)
     update transaction_items set data = $3, completion_percentage = $4,
       consents = (select coalesce(jsonb_object_agg(field, coalesce(consents -> field, to_jsonb(clock_timestamp()))), '{}')
                   from unnest($5::text[]) as field)
     where transaction_process_revision_id = $1 and vulcan_key = $2
     returning consents, (select consents from before) as before`,
    [revision.revisionId, item.vulcanKey, options.data, completionPercentage, given],
  );
  await tx.query(
    'update transactions set updated_at = clock_timestamp(), recipient_active_at = clock_timestamp() where id = $1',
    [subject.id],
  );
  // Each consent given or withdrawn is an act of the recipient, in the transaction's events.
  const before = Object.keys(saved?.before ?? {});
  const after = Object.keys(saved?.consents ?? {});
  const acts = [
    ...after
      .filter((field) => !before.includes(field))
      .map((field) => `consent.given.${item.vulcanKey}.${field}`),
    ...before
      .filter((field) => !after.includes(field))
      .map((field) => `consent.withdrawn.${item.vulcanKey}.${field}`),
  ];
  if (acts.length > 0) {
    const { recipientId } = await primaryRecipient(tx, subject);
    await tx.query(
      `insert into transaction_events (organization_id, transaction_id, event_key, source_state, target_state, actor_type, actor_id)
       select $1, $2, act, state, state, 'recipient', $4 from transactions, unnest($3::text[]) as act where id = $2`,
      [subject.organizationId, subject.id, acts, recipientId],
    );
  }
  return {
    vulcanKey: item.vulcanKey,
    data: options.data,
    completionPercentage,
    consents: consentTimes(saved?.consents),
  };
}

/** Consent times as stored (jsonb strings) to ISO 8601 in UTC. */
export function consentTimes(stored: Record<string, string> | null | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(stored ?? {}).map(([field, at]) => [field, new Date(at).toISOString()]),
  );
}

/**
 * Signs a document of the latest revision of its process for one recipient, by typed name with explicit consent,
 * recording time, IP address and user agent. A recipient who is not a sender role signs only while their consent
 * to use electronic records and signatures is on record (ESIGN_CONSENT_REQUIRED otherwise). Roles sign in the order the template lists them. When the last
 * signature is made, the signed document is generated (a PDF of the revision's data and the signatures).
 */
export async function signDocument(
  tx: Transaction,
  subject: LockedTransaction,
  options: SignatureRequest & { signer: Signer },
): Promise<SignatureResult> {
  const { signer, documentKey } = options;
  if (!options.consent) {
    throw signingNeedsConsent();
  }
  const signedName = options.signedName.trim();
  if (signedName === '') throw blank('A signed name', { field: 'signedName' });
  if (signedName.length > MAX_SIGNED_NAME_LENGTH) {
    throw tooLong('A signed name', MAX_SIGNED_NAME_LENGTH, { field: 'signedName' });
  }
  const { process, document } = processOfDocument(subject, documentKey);
  if (!document.signedBy.includes(signer.role)) {
    throw new AppError('FORBIDDEN', `the ${signer.role} does not sign ${quote(documentKey)}`);
  }
  // A recipient signs only while they agree to use electronic records (esign/consent.ts); a sender role passes.
  await requireEsignConsent(tx, subject, signer);
  const revision = await latestRevision(tx, subject.id, process.key);
  if (options.openRevisionOnly === true && revision.committedAt !== null) {
    throw revisionSubmitted(revision.number, process.key);
  }
  const [found] = await tx.query<{ id: string }>(
    `select id from transaction_signature_containers
     where transaction_process_id = $1 and document_key = $2 and state <> 'voided' and created_at >= $3
     order by created_at, sequence limit 1`,
    [revision.processId, documentKey, revision.createdAt],
  );
  const containerId =
    found?.id ??
    (
      await tx.query<{ id: string }>(
        `insert into transaction_signature_containers (organization_id, transaction_id, transaction_process_id, document_key)
         values ($1, $2, $3, $4) returning id`,
        [subject.organizationId, subject.id, revision.processId, documentKey],
      )
    )[0]?.id;
  if (!containerId) throw new Error('no signature container');
  const signed = await tx.query<{ role: string; signedName: string; signedAt: Date }>(
    `select r.vulcan_key as role, s.signed_name as "signedName", s.signed_at as "signedAt"
     from transaction_signatures s join transaction_recipients r on r.id = s.transaction_recipient_id
     where s.transaction_signature_container_id = $1 and s.state = 'signed'`,
    [containerId],
  );
  if (signed.some((signature) => signature.role === signer.role)) {
    throw new AppError('CONFLICT', `the ${signer.role} has signed ${quote(documentKey)} already`);
  }
  const waitingFor = document.signedBy
    .slice(0, document.signedBy.indexOf(signer.role))
    .filter((role) => !signed.some((signature) => signature.role === role));
  if (waitingFor.length > 0) {
    throw new AppError('CONFLICT', `${quote(documentKey)} is signed by ${waitingFor.join(', ')} first`);
  }
  const [signature] = await tx.query<{ signedAt: Date }>(
    `insert into transaction_signatures (organization_id, transaction_signature_container_id, transaction_recipient_id,
       state, signed_name, signed_at, ip_address, user_agent)
     values ($1, $2, $3, 'signed', $4, clock_timestamp(), $5, $6) returning signed_at as "signedAt"`,
    [
      subject.organizationId,
      containerId,
      signer.recipientId,
      signedName,
      options.context.ipAddress,
      options.context.userAgent ?? null,
    ],
  );
  signed.push({ role: signer.role, signedName, signedAt: signature?.signedAt ?? new Date() });
  if (isPrimaryRole(subject.definition, signer.role)) await recordRecipientActivity(tx, subject.id);
  if (!document.signedBy.every((role) => signed.some((s) => s.role === role))) {
    return { documentKey, state: 'PENDING' };
  }

  await tx.query(
    `update transaction_signature_containers set state = 'completed', completed_at = clock_timestamp() where id = $1`,
    [containerId],
  );
  const items = await revisionItems(tx, revision.revisionId);
  const pdf = await renderDocument(tx, {
    organizationId: subject.organizationId,
    transactionId: subject.id,
    process,
    document,
    items,
    signatures: signed,
    preview: false,
    workers: options.workers,
  });
  const storageKey = `${subject.organizationId}/${randomUUID()}.pdf`;
  await options.files.put(storageKey, pdf);
  const [file] = await tx.query<{ id: string }>(
    `insert into files (organization_id, mime_type, extension, original_filename, storage_key, byte_size, uploaded_at)
     values ($1, 'application/pdf', 'pdf', $2, $3, $4, clock_timestamp()) returning id`,
    [subject.organizationId, `${document.title ?? documentKey} - signed.pdf`, storageKey, pdf.byteLength],
  );
  await tx.query(
    `insert into transaction_signature_files (organization_id, transaction_id, transaction_signature_container_id, file_id)
     values ($1, $2, $3, $4)`,
    [subject.organizationId, subject.id, containerId, file?.id],
  );
  await refreshCompletion(tx, subject, options.context.requestId);
  return { documentKey, state: 'COMPLETED' };
}

/**
 * Submits the latest revision of a process: it is committed (and no longer changes), completion is brought up
 * to date, and the process's `submitEvent` fires when the workflow allows it now.
 */
export async function submitRevision(
  tx: Transaction,
  subject: LockedTransaction,
  options: {
    processKey: string;
    actor: Actor;
    /** Refuse (REVISION_INCOMPLETE) while items are below 100% or the signer's documents wait for them. */
    requireComplete?: { signer: Signer };
  },
): Promise<{ committedAt: Date; event: Transition | null }> {
  const process = subject.definition.processes.find((p) => p.key === options.processKey);
  if (!process) throw notFound('process', options.processKey);
  const revision = await latestOpenRevision(tx, subject.id, process.key);
  if (options.requireComplete) {
    await checkComplete(tx, subject, { process, revision, signer: options.requireComplete.signer });
  }
  const [committed] = await tx.query<{ committedAt: Date }>(
    `update transaction_process_revisions set committed_at = clock_timestamp() where id = $1
     returning committed_at as "committedAt"`,
    [revision.revisionId],
  );
  if (options.actor.type === 'recipient') await recordRecipientActivity(tx, subject.id);
  await refreshCompletion(tx, subject, options.actor.requestId);
  let event: Transition | null = null;
  if (process.submitEvent !== undefined && (await eventAllowed(tx, subject, process.submitEvent))) {
    event = await applyEvent(tx, subject, process.submitEvent, options.actor);
  }
  return { committedAt: committed?.committedAt ?? new Date(), event };
}
