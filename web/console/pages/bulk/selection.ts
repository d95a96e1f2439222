// What the work queue's checkboxes chose for a bulk action: transactions picked by hand, or every one its filters
// keep ("all 240 matching"). Kept in the tab's sessionStorage, one per organization and person, so that a reload,
// a page of the queue after another, or the bulk page opened from it loses nothing; forgotten once run.

import type { Static } from '@sinclair/typebox';
import type { ConsoleRoutes } from '../../../../src/transactions/console/contract.ts';
import { isRecord } from '../closings/stored-state.ts';

/** A run as its route takes it, kept from its click to its answer (`sentRunKey`). */
export type SentRun = Static<ConsoleRoutes['runBulk']['body']>;

/** A selection as the bulk routes take it (bulk-contract.ts). */
export type BulkSelection = Static<ConsoleRoutes['preflightBulk']['body']>['selection'];
/** The queue's filters, as a selection by filter names them. */
export type BulkFilter = NonNullable<BulkSelection['filter']>;

/** What is chosen: ids by hand, or a filter with how many it kept when it was chosen. */
export type ChosenSelection = { ids: string[] } | { filter: BulkFilter; count: number };

/** The most transactions one bulk action takes (selection.ts `MAX_BULK_SELECTION`). */
export const MAX_SELECTION = 10_000;

/** The sessionStorage key of the selection of a person in an organization. */
export const selectionKey = (handle: string, userId: string): string =>
  `portico.console.bulk-selection.${handle}.${userId}`;

/**
 * The sessionStorage key of a run sent and not yet answered (the connection dropped, the page was reloaded), which
 * the bulk page sends again as it was, idempotency key and all, so that the server makes its job once.
 */
export const sentRunKey = (handle: string, userId: string): string =>
  `portico.console.bulk-run.${handle}.${userId}`;

/** A stored run, when it has the run's parts (the route checks the rest). */
export function readSentRun(stored: unknown): SentRun | null | undefined {
  if (!isRecord(stored) || !isRecord(stored.selection) || !isRecord(stored.action)) return undefined;
  const { checkedAt, idempotencyKey } = stored;
  if (typeof checkedAt !== 'string' || typeof idempotencyKey !== 'string') return undefined;
  // Its parts as the route takes them, which checks them again.
  return stored as SentRun;
}

/** A stored selection, when it has one of the two shapes. */
export function readSelection(stored: unknown): ChosenSelection | null | undefined {
  if (!isRecord(stored)) return undefined;
  if (Array.isArray(stored.ids)) {
    const ids = stored.ids.filter((id): id is string => typeof id === 'string');
    return ids.length === 0 ? null : { ids: ids.slice(0, MAX_SELECTION) };
  }
  if (isRecord(stored.filter) && typeof stored.count === 'number') {
    return { filter: stored.filter, count: stored.count };
  }
  return undefined;
}

/** The selection as the routes take it. */
export const selectionBody = (chosen: ChosenSelection): BulkSelection =>
  'ids' in chosen ? { ids: chosen.ids } : { filter: chosen.filter };

/** How many transactions are chosen. */
export const chosenCount = (chosen: ChosenSelection | null): number =>
  chosen === null ? 0 : 'ids' in chosen ? chosen.ids.length : chosen.count;

/** The queue's filters of its address (`search`, `template`, …) as a selection by filter names them. */
export function filterOf(params: URLSearchParams): BulkFilter {
  const filter: BulkFilter = {};
  const given = (name: string) => {
    const value = params.get(name);
    return value === null || value === '' ? undefined : value;
  };
  const names = {
    search: 'search',
    template: 'templateKey',
    state: 'state',
    sender: 'senderEntityId',
    closing: 'closingId',
  } as const;
  for (const [name, field] of Object.entries(names)) {
    const value = given(name);
    if (value !== undefined) filter[field] = value;
  }
  const days = given('inStateForDays');
  if (days !== undefined) filter.inStateForDays = Number(days);
  const sort = given('sort');
  if (sort !== undefined) filter.sort = sort as NonNullable<BulkFilter['sort']>;
  return filter;
}

/** Whether two filters keep the same transactions. */
export const sameFilter = (a: BulkFilter, b: BulkFilter): boolean =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
