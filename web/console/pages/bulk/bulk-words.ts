// What the bulk pages say of a bulk action, in words: its items' outcomes, with their badges' colours.

import type { SuccessOf } from '../../../../src/http/contract.ts';
import type { ConsoleRoutes } from '../../../../src/transactions/console/contract.ts';

/** The preflight of a bulk action, as POST /bulk/preflight answers it. */
export type BulkPreflight = SuccessOf<ConsoleRoutes['preflightBulk']>['preflight'];
/** A bulk job and a page of its items, as GET /bulk/:id answers it. */
export type BulkJob = SuccessOf<ConsoleRoutes['readBulk']>['job'];
export type ItemStatus = BulkJob['items'][number]['status'];

/** Each outcome of an item in words, in the order the page lists them, with its badge's colour. */
export const ITEM_STATUS: Record<
  ItemStatus,
  { words: string; plural: string; color: 'gray' | 'blue' | 'green' | 'amber' | 'red' }
> = {
  pending: { words: 'To do', plural: 'to do', color: 'blue' },
  done: { words: 'Done', plural: 'done', color: 'green' },
  asked: { words: 'Asked a second person', plural: 'asked a second person', color: 'amber' },
  failed: { words: 'Failed', plural: 'failed', color: 'red' },
  skipped: { words: 'Skipped', plural: 'skipped', color: 'gray' },
  blocked: { words: 'Blocked', plural: 'blocked at the check', color: 'gray' },
};
