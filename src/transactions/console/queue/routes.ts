import type { Queryable } from '../../../db/database.ts';
import type { ContractRoute } from '../../../http/contract-routes.ts';
import type { SignedInRouteContract } from '../../../http/signed-in/surface.ts';
import { consoleRoutes as contract } from '../contract.ts';
import { consoleActor, type ConsoleCaller, type ConsoleDeps } from '../deps.ts';
import { assignInConsole } from './assignee.ts';
import { readQueue } from './queue.ts';

/**
 * What the queue's filters offer an organization: its templates (by key, the latest version's name), the
 * entities its transactions are sent from, and the people transactions can be assigned to.
 */
async function queueOptionsOf(db: Queryable, organizationId: string) {
  const [templates, senders, people] = await Promise.all([
    db.query<{ key: string; name: string }>(
      `select distinct on (key) key, name from templates where organization_id = $1 order by key, version desc`,
      [organizationId],
    ),
    db.query<{ id: string; name: string }>(
      `select e.id, e.name from entities e where e.organization_id = $1
         and exists (select 1 from transactions t where t.sender_entity_id = e.id)
       order by e.name, e.id`,
      [organizationId],
    ),
    db.query<{ id: string; name: string }>(
      `select id, coalesce(nullif(name, ''), email) as name from users
       where organization_id = $1 and password_hash is not null and deactivated_at is null
       order by 2, id`,
      [organizationId],
    ),
  ]);
  return { templates, senders, people };
}

/** The work queue: a page of transactions with its tabs, what its filters offer, and assigning. */
export function registerQueueRoutes(
  route: ContractRoute<ConsoleCaller, SignedInRouteContract>,
  deps: ConsoleDeps,
): void {
  const { db } = deps;
  route(contract.queue, (caller, { query }) =>
    readQueue(db, {
      organizationId: caller.organization.id,
      query: {
        search: query.search,
        templateKey: query.template,
        state: query.state,
        senderEntityId: query.sender,
        closingId: query.closing,
        inStateForDays: query.inStateForDays,
        sort: query.sort,
        first: query.first,
        after: query.after,
      },
    }),
  );
  route(contract.queueOptions, (caller) => queueOptionsOf(db, caller.organization.id));
  route(contract.assign, async (caller, { params, body }, request) => {
    const assignee = await assignInConsole(db, {
      organizationId: caller.organization.id,
      transactionId: params.id,
      userId: body.userId,
      actor: consoleActor(caller, request),
    });
    return { assignee };
  });
}
