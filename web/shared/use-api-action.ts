import { useCallback, useState } from 'react';
import { ApiError } from './api-error.ts';

/** What a form or button that calls a JSON route shows: whether it is on its way, and what went wrong. */
export interface ApiAction {
  busy: boolean;
  /** The route's error, for an {@link ErrorCallout}; undefined before and after a success. */
  error: ApiError | undefined;
  /**
   * Runs `work` (which calls the routes), busy meanwhile. An {@link ApiError} it throws becomes `error`, unless
   * `handle` takes it (answers true), as a form does with an error about one of its fields.
   */
  run: (work: () => Promise<void>, handle?: (error: ApiError) => boolean) => Promise<void>;
  /** Forgets the error (a dialog closed). */
  clear: () => void;
}

/** The state of one action of a page: see {@link ApiAction}. */
export function useApiAction(): ApiAction {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const run = useCallback(async (work: () => Promise<void>, handle?: (error: ApiError) => boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (caught) {
      if (!(caught instanceof ApiError)) throw caught;
      if (!handle?.(caught)) setError(caught);
    } finally {
      setBusy(false);
    }
  }, []);
  const clear = useCallback(() => {
    setError(undefined);
  }, []);
  return { busy, error, run, clear };
}

/**
 * A `handle` for {@link ApiAction.run} that takes an error about one of a form's `fields` (`details.field`) and
 * shows it next to that field, through `show`.
 *
 * @example
 * await action.run(save, errorsOfFields(['email', 'name'], setProblems));
 */
export function errorsOfFields<Field extends string>(
  fields: readonly Field[],
  show: (problems: Partial<Record<Field, string>>) => void,
): (error: ApiError) => boolean {
  return (error) => {
    const field = fields.find((each) => each === error.field);
    if (field === undefined) return false;
    const problems: Partial<Record<Field, string>> = {};
    problems[field] = error.message;
    show(problems);
    return true;
  };
}
