import { useCallback, useEffect, useState } from 'react';
import type { Api } from './accounts/api-client.ts';
import { ApiError } from './api-error.ts';

/** What a page read from a JSON route: loading, its answer, or why it failed; and how to read it again. */
export interface Resource<T> {
  data: T | undefined;
  /** While another path loads, the answer of the one before (a list keeps its rows until the next arrive). */
  previous: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** Reads the route again, keeping the current data on screen meanwhile. */
  reload: () => void;
}

/**
 * Reads `path` (a GET of the page's JSON routes, through `api`) whenever it changes. An answer that arrives after the
 * path has changed again is dropped, so a fast typist's search shows the results of what they typed last.
 */
export function useResource<T>(api: Api, path: string): Resource<T> {
  const [state, setState] = useState<{ path: string; data?: T; error?: ApiError }>({ path });
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let current = true;
    api<T>('GET', path).then(
      (data) => {
        if (current) setState({ path, data });
      },
      (error: unknown) => {
        if (!current) return;
        setState((previous) => ({
          path,
          data: previous.path === path ? previous.data : undefined,
          error: error instanceof ApiError ? error : new ApiError(0, 'UNEXPECTED', String(error), undefined),
        }));
      },
    );
    return () => {
      current = false;
    };
  }, [api, path, generation]);

  const reload = useCallback(() => {
    setGeneration((value) => value + 1);
  }, []);
  const settled = state.path === path;
  return {
    data: settled ? state.data : undefined,
    previous: state.data,
    error: settled ? state.error : undefined,
    loading: !settled || (state.data === undefined && state.error === undefined),
    reload,
  };
}
