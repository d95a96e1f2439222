import type { ContractRoute } from '../../../http/contract-routes.ts';
import type { SignedInRouteContract } from '../../../http/signed-in/surface.ts';
import { consoleRoutes as contract } from '../contract.ts';
import type { ConsoleCaller, ConsoleDeps } from '../deps.ts';
import { closingDetail, listClosings } from './closing-detail.ts';
import { createClosing, dropClosingRow, editClosingRow, runClosing } from './closings.ts';

/** Closings: the list, making one, its page, fixing and dropping rows, and running it. */
export function registerClosingRoutes(
  route: ContractRoute<ConsoleCaller, SignedInRouteContract>,
  deps: ConsoleDeps,
): void {
  const { db } = deps;
  const of = (caller: ConsoleCaller, id: string) => ({
    organizationId: caller.organization.id,
    closingId: id,
  });
  route(contract.listClosings, async (caller) => ({
    closings: await listClosings(db, caller.organization.id),
  }));
  route(contract.createClosing, async (caller, { body: { idempotencyKey, ...input } }) => ({
    closing: await createClosing(db, {
      organizationId: caller.organization.id,
      userId: caller.user.id,
      input,
      idempotencyKey,
    }),
  }));
  route(contract.readClosing, async (caller, { params }) => ({
    closing: await closingDetail(db, of(caller, params.id)),
  }));
  route(contract.editClosingRow, (caller, { params, body }) =>
    editClosingRow(db, { ...of(caller, params.id), rowId: params.rowId, cells: body.cells }),
  );
  route(contract.dropClosingRow, (caller, { params, body }) =>
    dropClosingRow(db, { ...of(caller, params.id), rowId: params.rowId, dropped: body.dropped }),
  );
  route(contract.runClosing, async (caller, { params }) => {
    const run = await runClosing(db, { ...of(caller, params.id), userId: caller.user.id });
    // Its rows are created now, on this node, rather than at the next look of any node.
    deps.closingRuns?.kick();
    return run;
  });
}
