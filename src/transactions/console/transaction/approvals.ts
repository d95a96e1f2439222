import type { ConsoleRole } from '../../../accounts/roles.ts';
import type { Database, Queryable, Transaction } from '../../../db/database.ts';
import { AppError, notFound, secondPersonDecides } from '../../../errors.ts';
import type { Actor } from '../../actor.ts';
import { recordActivity } from '../../history/activity.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import {
  applyEvent,
  lockOwnTransaction,
  type LockedTransaction,
  type Transition,
} from '../../transitions.ts';

/** A request for an event that needs a second person, as the panel shows it while it waits. */
export interface PendingApproval {
  id: string;
  eventKey: string;
  message: string | null;
  requestedBy: { id: string | null; label: string };
  requestedAt: Date;
}

/** Whether the template asks a second person to approve `eventKey` when a person of the console runs it. */
export function needsSecondPerson(definition: TemplateDefinition, eventKey: string): boolean {
  return definition.workflow.secondPerson?.includes(eventKey) ?? false;
}

const PENDING_COLUMNS = `a.id, a.event_key as "eventKey", a.message,
  json_build_object('id', a.requested_by, 'label', coalesce(nullif(u.name, ''), u.email, 'Someone')) as "requestedBy",
  a.created_at as "requestedAt"`;

/** The request waiting on a transaction, if one is. */
export async function pendingApprovalOf(
  db: Queryable,
  transactionId: string,
): Promise<PendingApproval | null> {
  const [pending] = await db.query<PendingApproval>(
    `select ${PENDING_COLUMNS} from event_approvals a left join users u on u.id = a.requested_by
     where a.transaction_id = $1 and a.decided_at is null`,
    [transactionId],
  );
  return pending ?? null;
}

/**
 * Asks a second person to approve `eventKey` (checked already: allowed now, by this person, with its message):
 * one request waits per transaction (CONFLICT names the one waiting). Joins the timeline as `approval_requested`.
 */
export async function askApproval(
  tx: Transaction,
  subject: LockedTransaction,
  request: { eventKey: string; message: string | undefined; version: string | null; actor: Actor },
): Promise<PendingApproval> {
  const waiting = await pendingApprovalOf(tx, subject.id);
  if (waiting) {
    throw new AppError(
      'CONFLICT',
      `${waiting.requestedBy.label} already asked for ${waiting.eventKey} at ${waiting.requestedAt.toISOString()}: a second person approves or declines that first.`,
      { approvalId: waiting.id },
    );
  }
  const [made] = await tx.query<{ id: string }>(
    `insert into event_approvals (organization_id, transaction_id, event_key, message, version, requested_by, request_id)
     values ($1, $2, $3, $4, $5, $6, $7) returning id`,
    [
      subject.organizationId,
      subject.id,
      request.eventKey,
      request.message ?? null,
      request.version,
      request.actor.id,
      request.actor.requestId ?? null,
    ],
  );
  await recordActivity(tx, {
    organizationId: subject.organizationId,
    transactionId: subject.id,
    kind: 'console',
    action: 'approval_requested',
    actor: request.actor,
    details: { eventKey: request.eventKey, message: request.message ?? null, approvalId: made?.id ?? null },
  });
  const pending = await pendingApprovalOf(tx, subject.id);
  if (!pending) throw new Error('the new approval request is gone');
  return pending;
}

/** What deciding needs to check of the second person, from the workflow panel (who may, and whether stale). */
export interface ApprovalChecks {
  mayTrigger: (subject: LockedTransaction, role: ConsoleRole, eventKey: string) => void;
  notStale: (tx: Queryable, subject: LockedTransaction, version: string | null) => Promise<void>;
}

/**
 * A second person decides a waiting request: `approve` runs its event (with the requester's message) as this
 * person, `decline` drops it. Refused (FORBIDDEN) for the person who asked, or one whose role may not trigger the
 * event; a request whose transaction moved since it was made is marked stale and refused (STALE_STATE), as the
 * event would no longer be the one asked for. NOT_FOUND for a request of another organization, or decided.
 */
export async function decideApproval(
  db: Database,
  options: {
    organizationId: string;
    approvalId: string;
    decision: 'approve' | 'decline';
    role: ConsoleRole;
    actor: Actor & { type: 'user'; id: string };
    checks: ApprovalChecks;
  },
): Promise<{ outcome: 'approved' | 'declined'; transition: Transition | null }> {
  const decided = await db.transaction(async (tx) => {
    const [request] = await tx.query<{
      id: string;
      transactionId: string;
      eventKey: string;
      message: string | null;
      version: string | null;
      requestedBy: string | null;
    }>(
      `select id, transaction_id as "transactionId", event_key as "eventKey", message, version,
         requested_by as "requestedBy"
       from event_approvals where id = $1 and organization_id = $2 and decided_at is null for update`,
      [options.approvalId, options.organizationId],
    );
    if (!request) throw notFound('waiting approval request');
    const subject = await lockOwnTransaction(tx, {
      id: request.transactionId,
      organizationId: options.organizationId,
    });
    if (request.requestedBy === options.actor.id) {
      throw secondPersonDecides(request.eventKey);
    }
    options.checks.mayTrigger(subject, options.role, request.eventKey);
    const decide = async (outcome: 'approved' | 'declined' | 'stale', action: string) => {
      await tx.query(
        `update event_approvals set decided_at = clock_timestamp(), decided_by = $2, outcome = $3 where id = $1`,
        [request.id, options.actor.id, outcome],
      );
      await recordActivity(tx, {
        organizationId: options.organizationId,
        transactionId: request.transactionId,
        kind: 'console',
        action,
        actor: options.actor,
        details: { eventKey: request.eventKey, approvalId: request.id, requestedBy: request.requestedBy },
      });
    };
    if (options.decision === 'decline') {
      await decide('declined', 'approval_declined');
      return { outcome: 'declined' as const, transition: null };
    }
    try {
      await options.checks.notStale(tx, subject, request.version);
    } catch (stale) {
      // Kept: the request is over, whatever the person does next; the refusal is thrown once this commits.
      await decide('stale', 'approval_stale');
      return { stale };
    }
    await decide('approved', 'approval_granted');
    const transition = await applyEvent(
      tx,
      subject,
      request.eventKey,
      options.actor,
      request.message ?? undefined,
    );
    return { outcome: 'approved' as const, transition };
  });
  if ('stale' in decided) throw decided.stale;
  return decided;
}
