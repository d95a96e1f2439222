import { createContext, useContext, useEffect, useMemo, useRef, type ReactNode } from 'react';

/** What changed, as `GET /console/api/live` says it: these transactions, or null for any of them. */
export type Changed = readonly string[] | null;
type Listener = (changed: Changed) => void;

interface Live {
  /** Calls `listener` on each change until the returned function is called. */
  subscribe: (listener: Listener) => () => void;
}

const LiveContext = createContext<Live | null>(null);

/**
 * The console's one stream of changes (`EventSource('/console/api/live')`, server-sent events fed by the
 * database's notifications), open while a page listens and shared by every page that does (a transaction's
 * page, the work queue). The browser reconnects it by itself (the server asks for 2 s); after a reconnection the
 * listeners hear "anything may have changed", since what changed meanwhile was not heard. A stream the server
 * refuses (the session ended) stays closed: the page's next read asks to sign in again.
 */
export function LiveProvider({ children }: { children: ReactNode }) {
  const listeners = useRef(new Set<Listener>());
  const source = useRef<EventSource | null>(null);
  const live = useMemo<Live>(() => {
    const tell = (changed: Changed) => {
      for (const listener of listeners.current) listener(changed);
    };
    const open = () => {
      const stream = new EventSource('/console/api/live');
      let dropped = false;
      stream.addEventListener('change', (event) => {
        tell(parseChange((event as MessageEvent<string>).data));
      });
      stream.addEventListener('error', () => {
        dropped = true;
      });
      stream.addEventListener('open', () => {
        if (dropped) tell(null);
        dropped = false;
      });
      return stream;
    };
    return {
      subscribe(listener) {
        listeners.current.add(listener);
        source.current ??= open();
        return () => {
          listeners.current.delete(listener);
          if (listeners.current.size === 0) {
            source.current?.close();
            source.current = null;
          }
        };
      },
    };
  }, []);
  useEffect(
    () => () => {
      source.current?.close();
      source.current = null;
    },
    [],
  );
  return <LiveContext.Provider value={live}>{children}</LiveContext.Provider>;
}

/** The transactions a change event names; null (any) for what cannot be read. */
function parseChange(data: string): Changed {
  try {
    const { transactions } = JSON.parse(data) as { transactions?: unknown };
    return Array.isArray(transactions) ? transactions.filter((id) => typeof id === 'string') : null;
  } catch {
    return null;
  }
}

/** How long changes are gathered before the page reads again: a burst of changes makes one read. */
const GATHER_MS = 250;

/**
 * Calls `onChange` (within a second) whenever a change names the transaction `id`, or may concern any; with no
 * `id`, on every change (a list of them).
 */
export function useLiveChanges(id: string | undefined, onChange: () => void): void {
  const live = useContext(LiveContext);
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    if (!live) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = live.subscribe((changed) => {
      if (changed !== null && id !== undefined && !changed.includes(id)) return;
      timer ??= setTimeout(() => {
        timer = undefined;
        latest.current();
      }, GATHER_MS);
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [live, id]);
}
