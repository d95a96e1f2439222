import type { ContractRoute } from '../../../http/contract-routes.ts';
import type { SignedInRouteContract } from '../../../http/signed-in/surface.ts';
import { clientDateTime } from '../../../validation/date-time.ts';
import { verifyHistory, type HistoryCheck } from '../../history/chain.ts';
import { timelineOf } from '../../history/timeline.ts';
import { addReviewComment, resolveReviewComment } from '../../review/comments.ts';
import { reviewOf } from '../../review/review.ts';
import { consoleRoutes as contract, type HistorySeal } from '../contract.ts';
import { consoleActor, type ConsoleCaller, type ConsoleDeps } from '../deps.ts';
import { remindNow, resendWebhook, resetLink, setLinkExpiry, signInConsole } from './actions.ts';
import { transactionDetail } from './detail.ts';
import { decideApproval } from './approvals.ts';
import { checkMayTrigger, checkNotStale, previewConsoleEvent, runConsoleEvent } from './console-events.ts';
import { workflowPanelOf } from './workflow-panel.ts';

/** A check of the history as the page shows it: its head, and where it stops matching if it does. */
function historySeal(check: HistoryCheck): HistorySeal {
  return check.ok
    ? { head: check.head, intact: true }
    : { head: check.head, intact: false, brokenAt: { position: check.position, reason: check.reason } };
}

/**
 * A transaction's page: its detail (recipients' progress, files), its timeline, its review (revisions, what
 * changed, comments) and the reviewer's comments. Every read is of the caller's organization; another's reads as
 * one that does not exist.
 */
export function registerTransactionRoutes(
  route: ContractRoute<ConsoleCaller, SignedInRouteContract>,
  deps: ConsoleDeps,
): void {
  const { db } = deps;
  const of = (caller: ConsoleCaller, id: string) => ({
    organizationId: caller.organization.id,
    transactionId: id,
  });

  /** An action that may queue recipient mail: sent once it committed. */
  const thenMail = async <Result>(work: Promise<Result>) => {
    const result = await work;
    deps.recipientNotices?.kick();
    return result;
  };
  route(contract.readTransaction, async (caller, { params }) => ({
    transaction: await transactionDetail(db, { ...of(caller, params.id), links: deps.links }),
  }));
  route(contract.timeline, async (caller, { params, query }) => ({
    entries: await timelineOf(db, {
      ...of(caller, params.id),
      kinds: query.kind,
      actorType: query.actor,
      links: deps.links,
    }),
    // The whole history, whatever the filters: the chain runs through every entry.
    history: historySeal(await verifyHistory(db, of(caller, params.id))),
  }));
  route(contract.review, (caller, { params }) =>
    reviewOf(db, { ...of(caller, params.id), links: deps.links }),
  );
  route(contract.addComment, async (caller, { params, body }, request) => {
    return {
      comment: await addReviewComment(db, {
        ...of(caller, params.id),
        ...body,
        actor: consoleActor(caller, request),
      }),
    };
  });
  route(contract.workflow, async (caller, { params }) => ({
    workflow: await workflowPanelOf(db, { ...of(caller, params.id), role: caller.user.role }),
  }));
  route(contract.previewEvent, async (caller, { params, body }) => {
    const preview = await previewConsoleEvent(db, {
      ...of(caller, params.id),
      ...body,
      role: caller.user.role,
    });
    if (!preview.decision.ok) throw new Error('a refused preview was answered');
    const { decision, messageRequired, mails, webhooks, completes } = preview;
    return {
      preview: {
        eventKey: decision.eventKey,
        from: decision.source,
        to: decision.target,
        actions: decision.actions,
        messageRequired,
        mails,
        webhooks,
        completes,
      },
    };
  });
  route(contract.runEvent, (caller, { params, body }, request) =>
    thenMail(
      runConsoleEvent(db, {
        ...of(caller, params.id),
        ...body,
        role: caller.user.role,
        actor: consoleActor(caller, request),
      }),
    ),
  );
  const checks = { mayTrigger: checkMayTrigger, notStale: checkNotStale };
  route(contract.approve, async (caller, { params }, request) => {
    const { transition } = await decideApproval(db, {
      organizationId: caller.organization.id,
      approvalId: params.id,
      decision: 'approve',
      role: caller.user.role,
      actor: consoleActor(caller, request),
      checks,
    });
    if (!transition) throw new Error('an approval ran no event');
    deps.recipientNotices?.kick();
    return { outcome: 'approved' as const, ...transition };
  });
  route(contract.decline, async (caller, { params }, request) => {
    await decideApproval(db, {
      organizationId: caller.organization.id,
      approvalId: params.id,
      decision: 'decline',
      role: caller.user.role,
      actor: consoleActor(caller, request),
      checks,
    });
    return { outcome: 'declined' as const };
  });
  route(contract.sign, (caller, { params, body }, request) =>
    signInConsole(db, {
      ...of(caller, params.id),
      ...body,
      files: deps.files,
      workers: deps.documentWorkers,
      context: { ipAddress: request.ip, userAgent: request.headers['user-agent'], requestId: request.id },
    }),
  );
  route(contract.remind, (caller, { params }, request) =>
    thenMail(remindNow(db, { ...of(caller, params.id), actor: consoleActor(caller, request) })),
  );
  route(contract.resetLink, (caller, { params }, request) =>
    thenMail(resetLink(db, { ...of(caller, params.id), actor: consoleActor(caller, request) })),
  );
  route(contract.setLinkExpiry, (caller, { params, body }, request) =>
    setLinkExpiry(db, {
      ...of(caller, params.id),
      actor: consoleActor(caller, request),
      expiresAt: clientDateTime(body.expiresAt, { name: 'expiresAt', part: 'field' }),
    }),
  );
  route(contract.resendWebhook, async (caller, { params }, request) => {
    await resendWebhook(db, {
      organizationId: caller.organization.id,
      deliveryId: params.id,
      actor: consoleActor(caller, request),
    });
    return { resent: true as const };
  });
  route(contract.resolveComment, async (caller, { params }, request) => ({
    comment: await resolveReviewComment(db, {
      organizationId: caller.organization.id,
      commentId: params.id,
      actor: consoleActor(caller, request),
    }),
  }));
}
