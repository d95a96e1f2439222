import { createContext, useContext, useEffect, useMemo, useRef, type ReactNode } from 'react';
import { consoleApi } from './api.ts';
import { useSession } from './session.tsx';

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
 * listeners hear "anything may have changed", since what changed meanwhile was not heard. The server ends the
 * stream when the session ends (`signed-out`: the listeners hear "anything", and the pages' next read asks to sign
 * in again) and when the person opened newer streams past their cap (`replaced`, src/transactions/console/
 * live-streams.ts). A stream ended or refused opens again once the person is signed in again, or the tab is shown
 * again: the tabs a person looks at are the live ones.
 */
export function LiveProvider({ children }: { children: ReactNode }) {
  const listeners = useRef(new Set<Listener>());
  const source = useRef<EventSource | null>(null);
  const { session } = useSession();
  const signedIn = session.status === 'signed-in' && session.ended === undefined;
  const live = useMemo(() => {
    const tell = (changed: Changed) => {
      for (const listener of listeners.current) listener(changed);
    };
    const open = () => {
      const stream = new EventSource(consoleApi.urlOf('GET /live'));
      let dropped = false;
      const ended = () => {
        stream.close();
        if (source.current === stream) source.current = null;
      };
      stream.addEventListener('change', (event) => {
        tell(parseChange((event as MessageEvent<string>).data));
      });
      stream.addEventListener('signed-out', () => {
        ended();
        tell(null);
      });
      stream.addEventListener('replaced', ended);
      stream.addEventListener('error', () => {
        dropped = true;
        // Refused (the session had ended), the browser does not try again by itself.
        if (stream.readyState === EventSource.CLOSED) ended();
      });
      stream.addEventListener('open', () => {
        if (dropped) tell(null);
        dropped = false;
      });
      return stream;
    };
    return {
      /** Opens the stream again after the server ended it, if a page listens; they hear "anything". */
      reopen() {
        if (source.current !== null || listeners.current.size === 0) return;
        source.current = open();
        tell(null);
      },
      subscribe(listener: Listener) {
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
  useEffect(() => {
    if (signedIn) live.reopen();
  }, [live, signedIn]);
  useEffect(() => {
    const shown = () => {
      if (document.visibilityState === 'visible') live.reopen();
    };
    document.addEventListener('visibilitychange', shown);
    return () => {
      document.removeEventListener('visibilitychange', shown);
    };
  }, [live]);
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
