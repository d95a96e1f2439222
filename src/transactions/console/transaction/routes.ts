import type { FastifyRequest } from 'fastify';
import type { ContractRoute } from '../../../http/contract-routes.ts';
import { clientDateTime } from '../../../validation/date-time.ts';
import { timelineOf } from '../../history/timeline.ts';
import { addReviewComment, resolveReviewComment } from '../../review/comments.ts';
import { reviewOf } from '../../review/review.ts';
import type { ConsoleCaller } from '../caller.ts';
import { consoleRoutes as contract } from '../contract.ts';
import type { ConsoleDeps } from '../deps.ts';
import { requirePermission } from '../permissions.ts';
import { remindNow, resendWebhook, resetLink, setLinkExpiry } from './actions.ts';
import { transactionDetail } from './detail.ts';
import { decideApproval } from './approvals.ts';
import {
  checkMayTrigger,
  checkNotStale,
  previewConsoleEvent,
  runConsoleEvent,
  signInConsole,
  workflowPanelOf,
} from './workflow-panel.ts';

/** The caller as the actor of what they change, with the request that changes it. */
function actorOf(caller: ConsoleCaller, request: FastifyRequest) {
  return { type: 'user' as const, id: caller.user.id, requestId: request.id };
}

/**
 * A transaction's page: its detail (recipients' progress, files), its timeline, its review (revisions, what
 * changed, comments) and the reviewer's comments. Every read is of the caller's organization; another's reads as
 * one that does not exist.
 */
export function registerTransactionRoutes(route: ContractRoute<ConsoleCaller>, deps: ConsoleDeps): void {
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
  route('GET', '/transactions/:id', contract.readTransaction, async (caller, { params }) => ({
    transaction: await transactionDetail(db, { ...of(caller, params.id), links: deps.links }),
  }));
  route('GET', '/transactions/:id/timeline', contract.timeline, async (caller, { params, query }) => ({
    entries: await timelineOf(db, { ...of(caller, params.id), kinds: query.kind, actorType: query.actor }),
  }));
  route('GET', '/transactions/:id/review', contract.review, (caller, { params }) =>
    reviewOf(db, of(caller, params.id)),
  );
  route(
    'POST',
    '/transactions/:id/comments',
    contract.addComment,
    async (caller, { params, body }, request) => {
      requirePermission(caller, 'review', 'comment on answers');
      return {
        comment: await addReviewComment(db, {
          ...of(caller, params.id),
          ...body,
          actor: actorOf(caller, request),
        }),
      };
    },
  );
  route('GET', '/transactions/:id/workflow', contract.workflow, async (caller, { params }) => ({
    workflow: await workflowPanelOf(db, { ...of(caller, params.id), role: caller.user.role }),
  }));
  route(
    'POST',
    '/transactions/:id/events/preview',
    contract.previewEvent,
    async (caller, { params, body }) => {
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
    },
  );
  route('POST', '/transactions/:id/events', contract.runEvent, (caller, { params, body }, request) =>
    thenMail(
      runConsoleEvent(db, {
        ...of(caller, params.id),
        ...body,
        role: caller.user.role,
        actor: actorOf(caller, request),
      }),
    ),
  );
  const checks = { mayTrigger: checkMayTrigger, notStale: checkNotStale };
  route('POST', '/approvals/:id/approve', contract.approve, async (caller, { params }, request) => {
    const { transition } = await decideApproval(db, {
      organizationId: caller.organization.id,
      approvalId: params.id,
      decision: 'approve',
      role: caller.user.role,
      actor: actorOf(caller, request),
      checks,
    });
    if (!transition) throw new Error('an approval ran no event');
    deps.recipientNotices?.kick();
    return { outcome: 'approved' as const, ...transition };
  });
  route('POST', '/approvals/:id/decline', contract.decline, async (caller, { params }, request) => {
    await decideApproval(db, {
      organizationId: caller.organization.id,
      approvalId: params.id,
      decision: 'decline',
      role: caller.user.role,
      actor: actorOf(caller, request),
      checks,
    });
    return { outcome: 'declined' as const };
  });
  route('POST', '/transactions/:id/sign', contract.sign, (caller, { params, body }, request) =>
    signInConsole(db, {
      ...of(caller, params.id),
      ...body,
      role: caller.user.role,
      files: deps.files,
      workers: deps.documentWorkers,
      context: { ipAddress: request.ip, userAgent: request.headers['user-agent'], requestId: request.id },
    }),
  );
  const operate = (caller: ConsoleCaller, what: string) => {
    requirePermission(caller, 'operate', what);
  };
  route('POST', '/transactions/:id/remind', contract.remind, (caller, { params }, request) => {
    operate(caller, 'remind recipients');
    return thenMail(remindNow(db, { ...of(caller, params.id), actor: actorOf(caller, request) }));
  });
  route('POST', '/transactions/:id/reset-link', contract.resetLink, (caller, { params }, request) => {
    operate(caller, "reset recipients' links");
    return thenMail(resetLink(db, { ...of(caller, params.id), actor: actorOf(caller, request) }));
  });
  route(
    'PUT',
    '/transactions/:id/link-expiry',
    contract.setLinkExpiry,
    (caller, { params, body }, request) => {
      operate(caller, "set when recipients' links expire");
      return setLinkExpiry(db, {
        ...of(caller, params.id),
        actor: actorOf(caller, request),
        expiresAt: clientDateTime(body.expiresAt, { name: 'expiresAt', part: 'field' }),
      });
    },
  );
  route(
    'POST',
    '/webhook-deliveries/:id/resend',
    contract.resendWebhook,
    async (caller, { params }, request) => {
      operate(caller, 'resend webhooks');
      await resendWebhook(db, {
        organizationId: caller.organization.id,
        deliveryId: params.id,
        actor: actorOf(caller, request),
      });
      return { resent: true as const };
    },
  );
  route('POST', '/comments/:id/resolve', contract.resolveComment, async (caller, { params }, request) => {
    requirePermission(caller, 'review', 'resolve comments');
    return {
      comment: await resolveReviewComment(db, {
        organizationId: caller.organization.id,
        commentId: params.id,
        actor: actorOf(caller, request),
      }),
    };
  });
}
