import type { ContractRoute } from '../../../http/contract-routes.ts';
import type { SignedInRouteContract } from '../../../http/signed-in/surface.ts';
import { consoleRoutes as contract } from '../contract.ts';
import { consoleActor, type ConsoleCaller, type ConsoleDeps } from '../deps.ts';
import { previewInvitation, startOptions, startTransaction } from './start.ts';

/** Starting one transaction from the console: what the form offers, the invitation's preview, the start. */
export function registerStartRoutes(
  route: ContractRoute<ConsoleCaller, SignedInRouteContract>,
  deps: ConsoleDeps,
): void {
  const { db } = deps;
  route(contract.startOptions, (caller) => startOptions(db, caller.organization.id));
  route(contract.previewInvitation, async (caller, { body }) => ({
    mail: await previewInvitation(db, {
      organizationId: caller.organization.id,
      input: body,
      transactionsUrl: deps.transactionsUrl(),
    }),
  }));
  route(contract.startTransaction, async (caller, { body }, request) => {
    const { idempotencyKey, ...input } = body;
    const transaction = await startTransaction(db, {
      organizationId: caller.organization.id,
      actor: consoleActor(caller, request),
      input,
      idempotencyKey,
    });
    // The invitation goes now rather than within the minute.
    deps.recipientNotices?.kick();
    return { transaction };
  });
}
