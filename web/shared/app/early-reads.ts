import type { ContractClient, InputArgs, JsonRouteName } from '../contract-client.ts';

/** A read a page's entry started before its components mounted, and its answer once it came. */
interface EarlyRead {
  answer: Promise<unknown>;
  /** Set when the answer came and was a success. */
  settled?: { data: unknown };
  /** Taken by every render rather than once: a page drawn on the server, whose lazy parts render again. */
  kept?: boolean;
}

/** What an entry started early: `settled` when its answer or chunk has come, or failed (it never rejects). */
export interface Started {
  settled: Promise<void>;
}

const settledOf = (promise: Promise<unknown>): Started => ({
  settled: promise.then(
    () => undefined,
    () => undefined,
  ),
});

/** Early reads by address; each is taken once. */
const started = new Map<string, EarlyRead>();

/**
 * Starts reading a GET route now, from a page's entry (by the address the page was opened at), so the read goes
 * out beside the session's and the page's own chunk rather than after them: on a phone's network each of those
 * is a round trip. The first `useResource` of the same address takes its answer: at once when it has come. Answers
 * when it has settled, for an entry that waits for it.
 *
 * @example
 * readEarly(consoleApi, 'GET /transactions/:id', { params: { id } });
 */
export function readEarly<Contract, Name extends JsonRouteName<Contract> & `GET ${string}`>(
  api: ContractClient<Contract>,
  name: Name,
  ...input: InputArgs<Contract, Name>
): Started {
  // The page was drawn on the server with this answer (`answerEarly`), or it is already on its way.
  const url = api.urlOf(name, ...input);
  const already = started.get(url);
  if (already) return settledOf(already.answer);
  const read: EarlyRead = { answer: api(name, ...input) };
  read.answer.then(
    (data) => {
      read.settled = { data };
    },
    // Whoever takes it handles a failure; one that is never taken must not be reported as unhandled.
    () => undefined,
  );
  started.set(url, read);
  return settledOf(read.answer);
}

/**
 * Gives the answer of `url` at once: the server drew the page with it, and sent it with the page (drawn-page.ts).
 * `kept`: every render takes it, not only the first (the server's render, which draws a lazy part twice).
 */
export function answerEarly(url: string, data: unknown, options: { kept?: boolean } = {}): void {
  started.set(url, { answer: Promise.resolve(data), settled: { data }, kept: options.kept });
}

/** Forgets every early read and answer: the server's renderer, between two people's pages. */
export function forgetEarly(): void {
  started.clear();
}

/** The answer of an early read of `url` that has come, taken: a component can start with it. */
export function takeEarlyAnswer(url: string): { data: unknown } | undefined {
  const read = started.get(url);
  if (read?.settled && read.kept !== true) started.delete(url);
  return read?.settled;
}

/**
 * The answer of an early read of `url` still on its way, taken. A read that fails (the person was signed out,
 * say) is read again by `readAgain`, so an early refusal never outlives the moment it was true.
 */
export function takeEarly<T>(url: string, readAgain: () => Promise<T>): Promise<T> | undefined {
  const read = started.get(url);
  if (read?.kept !== true) started.delete(url);
  return (read?.answer as Promise<T> | undefined)?.catch(readAgain);
}

/**
 * Starts loading a page's chunk now, from a page's entry (by the address the page was opened at), beside the app's
 * script. The page's route loads it again when it renders, and takes the same module, or reports that it did not
 * come; an early start that fails (its style sheet did not come: the person left the page first, or the network
 * failed) is the route's to report, and is not reported as unhandled, as an early read is not.
 *
 * @example
 * loadEarly(loadTransactionPage);
 */
export function loadEarly(load: () => Promise<unknown>): Started {
  return settledOf(load());
}

/** A page's chunk loader that remembers its module once it has come (see {@link pageLoader}). */
export interface PageLoader<Module> {
  (): Promise<Module>;
  /** The module, once it has come: the page's route renders it at once rather than suspending. */
  loaded?: Module;
}

/**
 * A page's chunk loader (`() => import('./page.tsx')`) that loads it once, and remembers it once it has come: a
 * page drawn on the server waits for its chunk before the app renders over it, so that the route renders the page
 * at once (web/shared/app/lazy-page.ts) instead of its "Loading" in place of the words already on screen. A load
 * that failed is tried again by the next call.
 *
 * @example
 * export const loadTransactionPage = pageLoader(() => import('./pages/transaction/transaction-page.tsx'));
 */
export function pageLoader<Module>(load: () => Promise<Module>): PageLoader<Module> {
  let loading: Promise<Module> | undefined;
  const loader: PageLoader<Module> = () =>
    (loading ??= load().then(
      (module) => (loader.loaded = module),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    ));
  return loader;
}

/**
 * Imports a page's app once the page's element is there: the entry is `async` (web/vite.config.ts, `preloadApp`), so
 * it may run before the document is parsed, when its app's chunk was at hand (cached). An app that did not come
 * goes to `failed`, rather than being left as an unhandled rejection.
 *
 * @example
 * importWhenParsed(async () => (await import('./mount.tsx')).mountConsole(), sayAppNotLoaded);
 */
export function importWhenParsed(load: () => Promise<unknown>, failed: (error: unknown) => void): void {
  const start = () => {
    load().catch(failed);
  };
  if (document.readyState !== 'loading') start();
  else document.addEventListener('DOMContentLoaded', start, { once: true });
}
