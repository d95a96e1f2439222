// Saving an item's answers as the recipient goes: a moment after they stop typing, the part of their answers
// the server takes (drafts.ts) goes to it; everything, valid or not yet, stays on this device until the server
// has it all. The page says where that stands: saving, saved, or not saved and why.

import { deepEquals } from '@rjsf/utils';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, recipientApi } from '../api.ts';
import type { SavedItem } from '../types.ts';
import { keepDraft, plain, savableData, type DraftPlace, type ItemData } from './drafts.ts';

/** Whether an answer holds anything the recipient gave: not nothing, an empty text, list or object. */
function given(answer: unknown): boolean {
  if (answer === undefined || answer === null || answer === '') return false;
  if (Array.isArray(answer)) return answer.some(given);
  if (typeof answer === 'object') return Object.values(answer).some(given);
  return true;
}

/** How long typing pauses before the answers are saved. */
const SAVE_DELAY_MS = 800;

export type SaveStatus =
  | { kind: 'unchanged' }
  | { kind: 'saving' }
  | { kind: 'saved'; at: Date }
  /** Saved, except these top-level fields, whose answers break the schema for now: kept on this device. */
  | { kind: 'held'; at: Date | undefined; fields: string[] }
  /** Nothing could be saved for now (a rule of the whole item): kept on this device. */
  | { kind: 'blocked' }
  | { kind: 'failed'; error: ApiError };

export interface ItemSaver {
  status: SaveStatus;
  /** Saves now what is waiting; answers whether the server has the answers it can take. */
  flush: () => Promise<boolean>;
  /** Tells the saver what the server has now (an upload saved the item too). */
  serverHas: (data: Record<string, unknown>) => void;
}

export function useItemSaver(options: {
  /** The link's token. */
  token: string;
  place: DraftPlace;
  schema: unknown;
  /** The answers the server had when the form opened. */
  serverData: ItemData;
  /** The answers as they are in the form now. */
  formData: ItemData;
  onSaved: (saved: SavedItem) => void;
  /** A refusal of a save (the page may handle some: a link that expired, answers submitted elsewhere). */
  onRefused: (error: ApiError) => void;
}): ItemSaver {
  const { token, place, schema, formData } = options;
  const [status, setStatus] = useState<SaveStatus>({ kind: 'unchanged' });
  const server = useRef(plain(options.serverData));
  const latest = useRef(formData);
  const savedAt = useRef<Date>(undefined);
  const inFlight = useRef<Promise<boolean>>(undefined);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  // The callbacks of the latest render, for a save that a timer or an unmount starts.
  const callbacks = useRef({ onSaved: options.onSaved, onRefused: options.onRefused });
  callbacks.current = { onSaved: options.onSaved, onRefused: options.onRefused };
  latest.current = formData;

  const settled = useCallback((held: string[], blocked: boolean, answers: ItemData): SaveStatus => {
    if (blocked) return { kind: 'blocked' };
    // Only what the recipient typed is worth a word: an empty answer held back is nothing they would lose.
    const typed = held.filter((field) => given(answers[field]));
    if (typed.length > 0) return { kind: 'held', at: savedAt.current, fields: typed };
    return savedAt.current ? { kind: 'saved', at: savedAt.current } : { kind: 'unchanged' };
  }, []);

  const save = useCallback(async (): Promise<boolean> => {
    clearTimeout(timer.current);
    while (inFlight.current) await inFlight.current;
    const answers = latest.current;
    const savable = savableData(schema, answers);
    if (savable.blocked || deepEquals(savable.data, server.current)) {
      keepDraft(place, answers, server.current);
      setStatus(settled(savable.held, savable.blocked, answers));
      return !savable.blocked;
    }
    setStatus({ kind: 'saving' });
    const run = (async () => {
      try {
        const saved = await recipientApi('PUT /recipient/:token/items/:vulcanKey', {
          params: { token, vulcanKey: place.vulcanKey },
          body: { data: savable.data },
        });
        server.current = plain(saved.data);
        savedAt.current = new Date();
        keepDraft(place, latest.current, server.current);
        callbacks.current.onSaved(saved);
        setStatus(settled(savable.held, false, answers));
        return true;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        setStatus({ kind: 'failed', error });
        callbacks.current.onRefused(error);
        return false;
      }
    })();
    inFlight.current = run;
    try {
      return await run;
    } finally {
      inFlight.current = undefined;
    }
  }, [token, place, schema, settled]);

  // Every change is kept on this device at once, and saved a moment after typing pauses.
  useEffect(() => {
    keepDraft(place, formData, server.current);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void save(), SAVE_DELAY_MS);
  }, [formData, place, save]);

  // Leaving the step saves what was waiting.
  useEffect(
    () => () => {
      if (timer.current !== undefined) {
        clearTimeout(timer.current);
        void save();
      }
    },
    [save],
  );

  const serverHas = useCallback((data: Record<string, unknown>) => {
    server.current = plain(data);
  }, []);

  return { status, flush: save, serverHas };
}
