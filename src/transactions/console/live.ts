import type { Database, Listener } from '../../db/database.ts';

/** The channel migration 0017 notifies when a statement inserts or changes transactions. */
export const CONSOLE_CHANNEL = 'portico_console';

/** What changed, as one notification names it: `null` means "any" (too many to list, or notifications lost). */
export interface ConsoleChange {
  organizations: readonly string[] | null;
  transactions: readonly string[] | null;
}

const ANY: ConsoleChange = { organizations: null, transactions: null };

const idsIn = (value: unknown): string[] | null =>
  Array.isArray(value) && value.every((id) => typeof id === 'string') ? value : null;

/**
 * A notification's payload as a {@link ConsoleChange}. Without a payload (the listening connection came back
 * after notifications were lost) or with one that does not parse, anything may have changed.
 */
export function parseConsoleChange(payload: string | undefined): ConsoleChange {
  if (payload === undefined) return ANY;
  try {
    const parsed = JSON.parse(payload) as Record<string, unknown>;
    return { organizations: idsIn(parsed.organizations), transactions: idsIn(parsed.transactions) };
  } catch {
    return ANY;
  }
}

/** Called with the transactions of a change that touched the organization (null: any of them). */
export type OnChange = (transactions: readonly string[] | null) => void;

/** The changes of one process's open consoles, fed by one `listen` shared by all of them. */
export interface LiveChanges {
  /** Calls `onChange` for each change that may touch the organization, until the returned function is called. */
  subscribe(organizationId: string, onChange: OnChange): Promise<() => void>;
  /** Stops listening; subscribers hear nothing more. */
  close(): Promise<void>;
}

/**
 * The live changes of the organization console on this node: one listening connection on
 * {@link CONSOLE_CHANNEL} (opened by the first subscriber, kept until `close`), whose notifications go to the
 * subscribers of the organizations they name. A notification is a hint to read again, never the data itself:
 * every read goes through a route that checks the session and the organization.
 *
 * @example
 * const stop = await live.subscribe(organizationId, (transactions) => stream.write(…));
 */
export function createLiveChanges(db: Database): LiveChanges {
  const subscribers = new Map<string, Set<OnChange>>();
  let listening: Promise<Listener> | undefined;
  let closed = false;

  const deliver = (payload?: string) => {
    const change = parseConsoleChange(payload);
    const organizations = change.organizations ?? [...subscribers.keys()];
    for (const organizationId of organizations) {
      for (const onChange of subscribers.get(organizationId) ?? []) onChange(change.transactions);
    }
  };

  return {
    async subscribe(organizationId, onChange) {
      if (closed) throw new Error('the live changes are closed');
      listening ??= db.listen(CONSOLE_CHANNEL, deliver);
      await listening;
      const own = subscribers.get(organizationId) ?? new Set<OnChange>();
      subscribers.set(organizationId, own);
      own.add(onChange);
      return () => {
        own.delete(onChange);
        if (own.size === 0) subscribers.delete(organizationId);
      };
    },
    async close() {
      closed = true;
      subscribers.clear();
      if (listening) await (await listening).close();
    },
  };
}
