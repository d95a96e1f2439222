import { listed } from '../errors.ts';
import type { Queryable } from '../db/database.ts';
import { itemRules } from './templates/item-data.ts';
import type { ProcessDefinition, TemplateDefinition } from './templates/schema.ts';

/**
 * Submissions: what a recipient's revision still lacks before it can be submitted (required answers, consents,
 * uploads, the recipient roles' signatures), read for each process a recipient submits, and said in words. The
 * workflow engine refuses a recipient's event on these facts (workflow.ts); completion.ts reads them with the
 * rest of the facts.
 */

/** A process a recipient submits, as its latest revision stands (read by `workflowFactsOf` in completion.ts). */
export interface SubmissionFacts {
  /** The process's key. */
  process: string;
  /** The event that submits it: the process's `submitEvent`, the recipient's event. */
  event: string;
  /** Whether its latest revision was submitted (committed): its event may then happen whatever it lacks. */
  submitted: boolean;
  /** What the latest revision still lacks before it can be submitted. */
  missing: MissingParts;
}

/** What a revision lacks before it can be submitted, counted by kind, with the titles of where. */
export interface MissingParts {
  answers: number;
  consents: number;
  uploads: number;
  /** Signatures of the recipient roles (the sender's come after the review). */
  signatures: number;
  /** The titles of the items and documents that lack them, in the template's order. */
  where: string[];
}

/** Whether a revision lacks nothing. */
export const lacksNothing = (missing: MissingParts): boolean =>
  missing.answers + missing.consents + missing.uploads + missing.signatures === 0;

/** `4 required answers and 1 upload missing in About you and Tax residency and forms`. */
export function describeMissing(missing: MissingParts): string {
  const counted = (count: number, one: string, many: string) =>
    count === 0 ? [] : [`${String(count)} ${count === 1 ? one : many}`];
  const parts = [
    ...counted(missing.answers, 'required answer', 'required answers'),
    ...counted(missing.consents, 'consent', 'consents'),
    ...counted(missing.uploads, 'upload', 'uploads'),
    ...counted(missing.signatures, 'signature', 'signatures'),
  ];
  return `${listed(parts, 'and')} missing in ${listed(missing.where, 'and')}`;
}

/** The parts of processes that lack something, added up (one process: its own). */
export function summed(submissions: readonly SubmissionFacts[]): MissingParts {
  return submissions.reduce<MissingParts>(
    (sum, { missing }) => ({
      answers: sum.answers + missing.answers,
      consents: sum.consents + missing.consents,
      uploads: sum.uploads + missing.uploads,
      signatures: sum.signatures + missing.signatures,
      where: [...sum.where, ...missing.where],
    }),
    { answers: 0, consents: 0, uploads: 0, signatures: 0, where: [] },
  );
}

/**
 * The processes of a transaction that a recipient submits (those with a `submitEvent`), as their latest
 * revisions stand: whether each was submitted, and which required answers, consents, uploads and recipient
 * signatures it still lacks. A template without recipient's events reads nothing.
 */
export async function submissionsOf(
  tx: Queryable,
  transaction: { id: string; definition: TemplateDefinition },
): Promise<SubmissionFacts[]> {
  const { definition } = transaction;
  const submitted = definition.processes.filter((process) => process.submitEvent !== undefined);
  if (submitted.length === 0) return [];
  const rows = await tx.query<{
    key: string;
    submitted: boolean;
    incomplete: { key: string; data: unknown }[];
    signed: { document: string; role: string }[];
  }>(
    `select p.key, r.committed_at is not null as submitted,
       coalesce((select jsonb_agg(jsonb_build_object('key', i.vulcan_key, 'data', i.data))
                 from transaction_items i
                 where i.transaction_process_revision_id = r.id and i.completion_percentage < 100), '[]') as incomplete,
       coalesce((select jsonb_agg(jsonb_build_object('document', c.document_key, 'role', rc.vulcan_key))
                 from transaction_signature_containers c
                 join transaction_signatures s on s.transaction_signature_container_id = c.id and s.state = 'signed'
                 join transaction_recipients rc on rc.id = s.transaction_recipient_id
                 where c.transaction_process_id = p.id and c.state <> 'voided' and c.created_at >= r.created_at),
                '[]') as signed
     from transaction_processes p
     join lateral (
       select id, committed_at, created_at from transaction_process_revisions
       where transaction_process_id = p.id order by number desc limit 1
     ) r on true
     where p.transaction_id = $1 and p.key = any($2::text[])
     order by p.created_at, p.sequence`,
    [transaction.id, submitted.map((process) => process.key)],
  );
  const senderRoles = new Set(
    definition.recipientRoles.filter((role) => role.sender === true).map((role) => role.key),
  );
  return rows.flatMap((row) => {
    const process = submitted.find((candidate) => candidate.key === row.key);
    if (process?.submitEvent === undefined) return [];
    return [
      {
        process: row.key,
        event: process.submitEvent,
        submitted: row.submitted,
        missing: missingParts(process, row.incomplete, row.signed, senderRoles),
      },
    ];
  });
}

/**
 * What a revision of `process` lacks: the required answers, consents and uploads of its incomplete items (their
 * data as stored), and the signatures of recipient roles on its documents (the sender signs after the review).
 */
function missingParts(
  process: ProcessDefinition,
  incomplete: readonly { key: string; data: unknown }[],
  signed: readonly { document: string; role: string }[],
  senderRoles: ReadonlySet<string>,
): MissingParts {
  const missing: MissingParts = { answers: 0, consents: 0, uploads: 0, signatures: 0, where: [] };
  for (const item of process.items) {
    const stored = incomplete.find((candidate) => candidate.key === item.vulcanKey);
    if (!stored) continue;
    const rules = itemRules(item);
    const lacking = rules.missing(stored.data);
    if (lacking.length === 0) continue;
    for (const field of lacking) {
      if (rules.consents.includes(field)) missing.consents += 1;
      else if (item.uploads?.[field] !== undefined) missing.uploads += 1;
      else missing.answers += 1;
    }
    missing.where.push(item.title ?? item.vulcanKey);
  }
  for (const document of process.documents ?? []) {
    const unsigned = document.signedBy.filter(
      (role) =>
        !senderRoles.has(role) &&
        !signed.some((signature) => signature.document === document.key && signature.role === role),
    );
    if (unsigned.length === 0) continue;
    missing.signatures += unsigned.length;
    missing.where.push(document.title ?? document.key);
  }
  return missing;
}
