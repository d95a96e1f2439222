// Where a transaction's page links back to the work queue: a module of its own, so that a transaction's page
// does not load the queue's chunk for it (web/vite.config.ts).
import type { FromQueue } from './queue-row.tsx';

/** Where a transaction's "← Work queue" goes: back to the tab, search, filters and page it came from, if any. */
export function queueAddressFrom(state: unknown): string {
  const queue = typeof state === 'object' && state !== null ? (state as FromQueue).queue : undefined;
  // Only a query string of the queue's own: never another path.
  return typeof queue === 'string' && queue.startsWith('?') ? `/queue${queue}` : '/queue';
}
