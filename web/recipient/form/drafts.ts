// Answers on their way to the server: which part of them the server takes now (it saves partial answers, not
// ones that break the schema), and what this device keeps of the rest so that a reload loses nothing.

import { deepEquals, unsetByPath } from '@rjsf/utils';
import { schemaProblems, type SchemaNode } from './schema-check.ts';

export type ItemData = Record<string, unknown>;

/** Answers with the empty ones (rjsf's `undefined`) left out, as JSON carries them. */
export function plain(data: unknown): ItemData {
  const copy: unknown = JSON.parse(JSON.stringify(data ?? {}));
  return typeof copy === 'object' && copy !== null && !Array.isArray(copy) ? (copy as ItemData) : {};
}

/** What of an item's answers the server would take now, and the answers held back for now. */
export interface Savable {
  data: ItemData;
  /** The top-level fields left out because their answer breaks the schema (or is half given). */
  held: string[];
  /** Whether nothing could be saved, the answers breaking a rule of the whole item. */
  blocked: boolean;
}

/**
 * The part of `data` the server takes as a draft: it checks the item's schema without its top-level `required`
 * (src/transactions/templates/item-data.ts), so every answer that breaks the schema is left out, and with it the object
 * or list it sits in when that is then incomplete (an address without its required city).
 *
 * @example
 * savableData({ type: 'object', properties: { phone: { type: 'string', pattern: '^[0-9]+$' } } }, { phone: 'x1' });
 * // { data: {}, held: ['phone'], blocked: false }
 */
export function savableData(schema: unknown, data: unknown): Savable {
  // The server's check of a draft: the schema without its top-level `required`.
  const partial: Record<string, unknown> = {
    ...(typeof schema === 'object' && schema !== null ? schema : {}),
  };
  delete partial.required;
  const current = plain(data);
  const held = new Set<string>();
  // Each round leaves out what breaks; the containers left incomplete by that go in the next one.
  for (let round = 0; round < 16; round += 1) {
    const problems = schemaProblems(partial, current, schema as SchemaNode);
    if (problems.length === 0) return { data: current, held: [...held], blocked: false };
    let removed = false;
    for (const problem of problems) {
      const at = problem.keyword === 'required' ? problem.dataPath : problem.path;
      // A list is left out whole: removing one element would shift the others.
      const firstIndex = at.findIndex((segment) => typeof segment === 'number');
      const cut = firstIndex === -1 ? at : at.slice(0, firstIndex);
      const [top] = cut;
      if (typeof top !== 'string') continue;
      held.add(top);
      unsetByPath(current, cut.map(String));
      removed = true;
    }
    if (!removed) return { data: current, held: [...held], blocked: true };
  }
  return { data: current, held: [...held], blocked: true };
}

/** What this device keeps of an item's answers: all of them, and the server's answers they were typed over. */
interface StoredDraft {
  data: ItemData;
  base: ItemData;
}

/** Where: per transaction, process, revision and item (never the link, which is a secret). */
export interface DraftPlace {
  transactionId: string;
  processKey: string;
  revision: number;
  vulcanKey: string;
}

const PREFIX = 'portico-recipient';
const keyOf = (place: DraftPlace) =>
  [PREFIX, place.transactionId, place.processKey, String(place.revision), place.vulcanKey].join(':');

function read(place: DraftPlace): StoredDraft | undefined {
  try {
    const text = localStorage.getItem(keyOf(place));
    if (text === null) return undefined;
    const parsed = JSON.parse(text) as Partial<StoredDraft>;
    return typeof parsed.data === 'object' && typeof parsed.base === 'object'
      ? { data: plain(parsed.data), base: plain(parsed.base) }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The answers to start an item's form with: what this device kept, when the server's answers are still the
 * ones it was typed over; else the server's (they changed on another device since).
 */
export function startingData(place: DraftPlace, server: ItemData): ItemData {
  const stored = read(place);
  return stored && deepEquals(stored.base, plain(server)) ? stored.data : plain(server);
}

/**
 * Keeps the answers on this device until the server has all of them (`base`: what it has now); forgets them
 * once it has. Storage that is full or forbidden (private browsing) keeps nothing, silently: the server's
 * drafts still hold what was valid.
 */
export function keepDraft(place: DraftPlace, data: unknown, base: ItemData): void {
  const answers = plain(data);
  try {
    if (deepEquals(answers, plain(base))) localStorage.removeItem(keyOf(place));
    else localStorage.setItem(keyOf(place), JSON.stringify({ data: answers, base: plain(base) }));
  } catch {
    // Nothing more to do: see above.
  }
}

/** Forgets every draft this device keeps for a transaction (once its answers are submitted). */
export function forgetDrafts(transactionId: string): void {
  try {
    const prefix = `${PREFIX}:${transactionId}:`;
    for (let index = localStorage.length - 1; index >= 0; index -= 1) {
      const key = localStorage.key(index);
      if (key?.startsWith(prefix)) localStorage.removeItem(key);
    }
  } catch {
    // Storage forbidden: nothing was kept.
  }
}
