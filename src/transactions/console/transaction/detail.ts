import { workflowTitles, type WorkflowTitles } from '../../workflow.ts';
import { PAPER_FORM_KEY } from '../../transitions.ts';
import type { Queryable } from '../../../db/database.ts';
import { notFound } from '../../../errors.ts';
import { linkExpiry, type FileLinks } from '../../../files/file-links.ts';
import { fieldInWords } from '../../templates/answer-text.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import { stageOf, type StateStage } from '../queue/queue.ts';
import { linkActionsOf, type LinkAction } from './actions.ts';
import type { EsignAct } from '../../esign/consent.ts';

/** A recipient of a transaction as the console shows them: how far they have got. */
export interface RecipientProgress {
  id: string;
  /** The template's role, e.g. investor or countersigner. */
  role: string;
  name: string;
  email: string | null;
  primary: boolean;
  /** The primary recipient's mail: invited when, the last message sent, failures in the mail server's words. */
  mail: {
    invitationDueAt: Date | null;
    invitedAt: Date | null;
    lastSent: { message: string; at: Date } | null;
    failures: number;
    lastFailure: string | null;
    nextReminderAt: Date | null;
    remindersSent: number;
    lastReminderAt: Date | null;
  } | null;
  /** When they last opened their link (recipient activity `opened`); null if never. */
  openedAt: Date | null;
  /** How much of their latest revisions they have filled, 0–100; null for a role that fills nothing. */
  percentDone: number | null;
  /** When they last submitted a revision; null if never. */
  submittedAt: Date | null;
  /** When they last signed a document; null if never. */
  signedAt: Date | null;
  /**
   * Their latest act about electronic records and signatures (esign/consent.ts): agreed, withdrew, or asked for
   * paper; null while they have done none.
   */
  esign: { act: EsignAct; at: Date; message: string | null } | null;
}

/** A file of a transaction, with a signed link to download it for the next quarter of an hour. */
export interface TransactionFileLink {
  id: string;
  kind: 'upload' | 'signed' | 'paper';
  name: string;
  /** What it is, in the template's words: the field an upload answers (`W-9 (Tax residency and forms)`), or
   * the document a signed copy is of. */
  of: string;
  byteSize: number | null;
  createdAt: Date;
  /** A path on this service (`/files/<id>?expires=…&signature=…`). */
  downloadPath: string;
}

/**
 * What a file is of, in the template's words: an upload's field (`item.field`), a signed copy's document; a
 * paper form is the recipient's forms, received on paper.
 */
function fileOfInWords(
  definition: TemplateDefinition,
  kind: TransactionFileLink['kind'],
  of: string,
): string {
  if (kind === 'paper') return 'The forms, signed on paper and received by staff';
  if (kind === 'signed') {
    const documents = definition.processes.flatMap((process) => process.documents ?? []);
    return documents.find((document) => document.key === of)?.title ?? of;
  }
  const [vulcanKey = '', ...field] = of.split('.');
  return field.length === 0 ? of : fieldInWords(definition, vulcanKey, field.join('.'));
}

/** A document of the template, and the role through which the sender signs it (null: recipients alone sign). */
export interface TransactionDocument {
  key: string;
  title: string | null;
  senderRole: string | null;
  /**
   * Whether its process's latest revision was submitted on paper: the paper form stands for its signatures, the
   * sender's too, so nothing is signed here.
   */
  onPaper: boolean;
}

/**
 * The documents of a template, each with the sender's role among its signers, if any (to countersign), and
 * whether its process was submitted on paper (`paperProcesses`, by key).
 */
function documentsOf(
  definition: TemplateDefinition,
  paperProcesses: ReadonlySet<string>,
): TransactionDocument[] {
  const senderRoles = new Set(
    definition.recipientRoles.filter((role) => role.sender === true).map((role) => role.key),
  );
  return definition.processes.flatMap((process) =>
    (process.documents ?? []).map((document) => ({
      key: document.key,
      title: document.title ?? null,
      senderRole: document.signedBy.find((role) => senderRoles.has(role)) ?? null,
      onPaper: paperProcesses.has(process.key),
    })),
  );
}

/** What the console's transaction page shows above its workflow, review and timeline. */
export interface TransactionDetail {
  id: string;
  state: string;
  /** Where it stands in its state, from the template's workflow: the colour of the state's badge. */
  stage: StateStage;
  template: { id: string; key: string; name: string; version: number };
  sender: { id: string; name: string };
  /**
   * The investor, who the page is about: the name of the primary recipient's entity, as the queue names it
   * (`transactions.investor_name`, migration 0023).
   */
  investorName: string;
  /** The contact person: whom the invitation and the mail go to. */
  noticeName: string;
  noticeEmail: string;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  /** Until when the recipient's link works; null when it has none (e.g. dropped after completion). */
  linkExpiresAt: Date | null;
  /** Who of the organization looks after it; null when no one is assigned. */
  assignee: { id: string; name: string } | null;
  recipients: RecipientProgress[];
  files: TransactionFileLink[];
  /** How the page names the workflow's states and events (workflow.ts). */
  workflowTitles: WorkflowTitles;
  /** The template's documents: the page offers the sender's signature while its role has one to sign. */
  documents: TransactionDocument[];
  /** Whether each action on the recipient's link can be done now, and why not (actions.ts). */
  linkActions: Record<LinkAction, { allowed: boolean; reason: string | null }>;
  /** Its certificate of completion (docs/evidence.md): being made while due, then made; null before completion. */
  certificate: CertificateLink | null;
}

/** A certificate of completion as the page lists it: its file's name and link once made. */
export type CertificateLink =
  { status: 'due' } | { status: 'made'; name: string; madeAt: Date; downloadPath: string };

/**
 * A transaction of the organization as the console's page shows it: its recipients' progress (invitation and
 * mail, link opened, share filled, submitted, signed), its files with download links and its certificate of
 * completion. NOT_FOUND for a
 * transaction of another organization.
 */
export async function transactionDetail(
  db: Queryable,
  options: { organizationId: string; transactionId: string; links: FileLinks },
): Promise<TransactionDetail> {
  const ids = [options.transactionId, options.organizationId];
  const [row] = await db.query<
    Omit<
      TransactionDetail,
      'stage' | 'recipients' | 'files' | 'documents' | 'linkActions' | 'workflowTitles' | 'certificate'
    > & {
      definition: TemplateDefinition;
    }
  >(
    `select t.id, t.state, json_build_object('id', tp.id, 'key', tp.key, 'name', tp.name, 'version', tp.version) as template,
       json_build_object('id', s.id, 'name', s.name) as sender,
       coalesce(t.investor_name, t.notice_name) as "investorName", t.notice_name as "noticeName",
       t.notice_email as "noticeEmail", t.created_at as "createdAt", t.updated_at as "updatedAt",
       t.completed_at as "completedAt",
       case when t.transmit_token_hash is null then null else t.transmit_token_expires_at end as "linkExpiresAt",
       (select json_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email)) from users u
        where u.id = t.assignee_user_id) as assignee,
       tp.definition
     from transactions t join templates tp on tp.id = t.template_id join entities s on s.id = t.sender_entity_id
     where t.id = $1 and t.organization_id = $2`,
    ids,
  );
  if (!row) throw notFound('transaction');
  const { definition, ...transaction } = row;
  const recipients = await db.query<Omit<RecipientProgress, 'mail'> & { mail: RecipientProgress['mail'] }>(
    `with latest as (
       select distinct on (r.transaction_process_id) r.id, r.committed_at from transaction_process_revisions r
       where r.transaction_id = $1 and r.organization_id = $2 order by r.transaction_process_id, r.number desc)
     select r.id, r.vulcan_key as role, e.name, e.email, r.id = first.id as primary,
       case when r.id = first.id then json_build_object(
         'invitationDueAt', n.invitation_due_at, 'invitedAt', n.invited_at,
         'lastSent', (select json_build_object('message', substr(ev.event_key, 6), 'at', ev.created_at)
                      from transaction_events ev where ev.transaction_id = $1 and ev.event_key like 'mail.%'
                      order by ev.created_at desc, ev.sequence desc limit 1),
         'failures', coalesce(n.failures, 0), 'lastFailure', n.last_failure, 'nextReminderAt', n.next_reminder_at,
         'remindersSent', coalesce(n.reminders_sent, 0),
         'lastReminderAt', (select max(ev.created_at) from transaction_events ev
                            where ev.transaction_id = $1 and ev.event_key = 'mail.reminder')) end as mail,
       (select max(a.created_at) from transaction_activity a where a.transaction_id = $1 and a.action = 'opened'
          and a.actor_type = 'recipient' and a.actor_id = r.id::text) as "openedAt",
       case when r.id = first.id then (select round(avg(i.completion_percentage))::int from transaction_items i
          where i.transaction_process_revision_id in (select id from latest)) end as "percentDone",
       case when r.id = first.id then (select max(committed_at) from latest) end as "submittedAt",
       (select max(sg.signed_at) from transaction_signatures sg where sg.transaction_recipient_id = r.id
          and sg.state = 'signed') as "signedAt",
       (select json_build_object('act', c.act, 'at', c.created_at, 'message', c.message) from esign_consents c
        where c.transaction_recipient_id = r.id and c.organization_id = $2
        order by c.created_at desc, c.sequence desc limit 1) as esign
     from transaction_recipients r
     join entities e on e.id = r.entity_id
     cross join lateral (select id from transaction_recipients where transaction_id = $1
                         order by created_at, sequence limit 1) first
     left join recipient_notices n on n.transaction_id = r.transaction_id
     where r.transaction_id = $1 and r.organization_id = $2
     order by r.created_at, r.sequence`,
    ids,
  );
  // byte_size is a bigint, which the driver reads as a string.
  const files = await db.query<
    Omit<TransactionFileLink, 'downloadPath' | 'byteSize'> & { byteSize: string | null }
  >(
    `select f.id, case when tf.vulcan_key = $3 then 'paper' else 'upload' end as kind,
       coalesce(f.override_filename, f.original_filename) as name, tf.vulcan_key as of,
       f.byte_size as "byteSize", tf.created_at as "createdAt", tf.sequence
     from transaction_files tf join files f on f.id = tf.file_id
     where tf.transaction_id = $1 and tf.organization_id = $2 and f.storage_key is not null
     union all
     select f.id, 'signed', coalesce(f.override_filename, f.original_filename), c.document_key, f.byte_size,
       sf.created_at, sf.sequence
     from transaction_signature_files sf join files f on f.id = sf.file_id
     join transaction_signature_containers c on c.id = sf.transaction_signature_container_id
     where sf.transaction_id = $1 and sf.organization_id = $2
     order by "createdAt", sequence`,
    [...ids, PAPER_FORM_KEY],
  );
  // The processes whose latest revision was submitted on paper.
  const onPaper = await db.query<{ key: string }>(
    `select p.key from transaction_processes p
     join lateral (
       select paper_file_id from transaction_process_revisions
       where transaction_process_id = p.id order by number desc limit 1
     ) r on r.paper_file_id is not null
     where p.transaction_id = $1 and p.organization_id = $2`,
    ids,
  );
  const [certificate] = await db.query<{ fileId: string | null; name: string | null; madeAt: Date | null }>(
    `select c.file_id as "fileId", coalesce(f.override_filename, f.original_filename) as name, c.made_at as "madeAt"
     from transaction_certificates c left join files f on f.id = c.file_id
     where c.transaction_id = $1 and c.organization_id = $2`,
    ids,
  );
  const expiresAt = linkExpiry();
  return {
    ...transaction,
    stage: stageOf(definition, transaction.state),
    recipients,
    files: files.map(({ id, kind, name, of, byteSize, createdAt }) => ({
      id,
      kind,
      name,
      of: fileOfInWords(definition, kind, of),
      byteSize: byteSize === null ? null : Number(byteSize),
      createdAt,
      downloadPath: options.links.pathFor(id, expiresAt),
    })),
    documents: documentsOf(definition, new Set(onPaper.map((process) => process.key))),
    workflowTitles: workflowTitles(definition.workflow),
    linkActions: await linkActionsOf(db, options),
    certificate:
      certificate === undefined
        ? null
        : certificate.fileId === null || certificate.name === null || certificate.madeAt === null
          ? { status: 'due' }
          : {
              status: 'made',
              name: certificate.name,
              madeAt: certificate.madeAt,
              downloadPath: options.links.pathFor(certificate.fileId, expiresAt),
            },
  };
}
