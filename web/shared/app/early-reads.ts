import type { ContractClient, InputArgs, JsonRouteName } from '../contract-client.ts';

/** A read a page's entry started before its components mounted, and its answer once it came. */
interface EarlyRead {
  answer: Promise<unknown>;
  /** Set when the answer came and was a success. */
  settled?: { data: unknown };
}

/** Early reads by address; each is taken once. */
const started = new Map<string, EarlyRead>();

/**
 * Starts reading a GET route now, from a page's entry (by the address the page was opened at), so the read goes
 * out beside the session's and the page's own chunk rather than after them: on a phone's network each of those
 * is a round trip. The first `useResource` of the same address takes its answer: at once when it has come.
 *
 * @example
 * readEarly(consoleApi, 'GET /transactions/:id', { params: { id } });
 */
export function readEarly<Contract, Name extends JsonRouteName<Contract> & `GET ${string}`>(
  api: ContractClient<Contract>,
  name: Name,
  ...input: InputArgs<Contract, Name>
): void {
  const read: EarlyRead = { answer: api(name, ...input) };
  read.answer.then(
    (data) => {
      read.settled = { data };
    },
    // Whoever takes it handles a failure; one that is never taken must not be reported as unhandled.
    () => undefined,
  );
  started.set(api.urlOf(name, ...input), read);
}

/** The answer of an early read of `url` that has come, taken: a component can start with it. */
export function takeEarlyAnswer(url: string): { data: unknown } | undefined {
  const settled = started.get(url)?.settled;
  if (settled) started.delete(url);
  return settled;
}

/**
 * The answer of an early read of `url` still on its way, taken. A read that fails (the person was signed out,
 * say) is read again by `readAgain`, so an early refusal never outlives the moment it was true.
 */
export function takeEarly<T>(url: string, readAgain: () => Promise<T>): Promise<T> | undefined {
  const read = started.get(url);
  started.delete(url);
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
export function loadEarly(load: () => Promise<unknown>): void {
  load().catch(() => undefined);
}

/**
 * Imports a page's app once the page's element is there: the entry is `async` (web/vite.config.ts, `preloadApp`), so
 * it may run before the document is parsed, when its app's chunk was at hand (cached).
 *
 * @example
 * importWhenParsed(() => import('./mount.tsx'));
 */
export function importWhenParsed(load: () => Promise<unknown>): void {
  if (document.readyState !== 'loading') void load();
  else document.addEventListener('DOMContentLoaded', () => void load(), { once: true });
}
