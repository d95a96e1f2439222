import type { ContractRoute } from '../../../http/contract-routes.ts';
import type { SignedInRouteContract } from '../../../http/signed-in/surface.ts';
import { clientDateTime } from '../../../validation/date-time.ts';
import { consoleRoutes as contract } from '../contract.ts';
import type { ConsoleCaller, ConsoleDeps } from '../deps.ts';
import { createBulkJob, preflightBulk, readBulkJob } from './bulk-jobs.ts';
import { actionOf } from './eligibility.ts';
import { selectionOf } from './selection.ts';

/** Bulk actions: the preflight, running one as a job, and the job's page. */
export function registerBulkRoutes(
  route: ContractRoute<ConsoleCaller, SignedInRouteContract>,
  deps: ConsoleDeps,
): void {
  const { db } = deps;
  route(contract.preflightBulk, async (caller, { body }) => ({
    preflight: await preflightBulk(db, {
      organizationId: caller.organization.id,
      role: caller.user.role,
      selection: selectionOf(body.selection),
      action: actionOf(body.action),
      offset: body.offset,
    }),
  }));
  route(contract.runBulk, async (caller, { body }) => {
    const job = await createBulkJob(db, {
      organizationId: caller.organization.id,
      userId: caller.user.id,
      role: caller.user.role,
      selection: selectionOf(body.selection),
      action: actionOf(body.action),
      checkedAt: clientDateTime(body.checkedAt, { name: 'checkedAt', part: 'field' }),
      idempotencyKey: body.idempotencyKey,
    });
    // Its items are acted on now, on this node, rather than at the next look of any node.
    deps.bulkRuns?.kick();
    return { job };
  });
  route(contract.readBulk, async (caller, { params, query }) => ({
    job: await readBulkJob(db, {
      organizationId: caller.organization.id,
      jobId: params.id,
      status: query.status,
      offset: query.offset,
    }),
  }));
}
