import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api-error.ts';
import { takeEarly, takeEarlyAnswer } from './app/early-reads.ts';
import type { AnswerOf, ContractClient, InputArgs, JsonRouteName } from './contract-client.ts';

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
 * Reads a GET route of the page's contract (through `api`) whenever its address changes: its params or its
 * query. An answer that arrives after the address has changed again is dropped, so a fast typist's search
 * shows the results of what they typed last. A read the page's entry started early (`readEarly`) is
 * taken rather than sent again.
 *
 * @example
 * const transaction = useResource(consoleApi, 'GET /transactions/:id', { params: { id } });
 */
export function useResource<Contract, Name extends JsonRouteName<Contract> & `GET ${string}`>(
  api: ContractClient<Contract>,
  name: Name,
  ...input: InputArgs<Contract, Name>
): Resource<AnswerOf<Contract, Name>> {
  type T = AnswerOf<Contract, Name>;
  const path = api.urlOf(name, ...input);
  const [state, setState] = useState<{ path: string; data?: T; error?: ApiError }>(() => ({
    path,
    // The route's answer: the early read was of the same address.
    ...(takeEarlyAnswer(path) as { data: T } | undefined),
  }));
  // Whether the first render already had the answer of an early read, so the first effect reads nothing.
  const answeredEarly = useRef(state.data !== undefined);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    if (answeredEarly.current) {
      answeredEarly.current = false;
      return;
    }
    let current = true;
    // The effect runs again when the address changes: the input it reads is of the render that changed it.
    const read = () => api(name, ...input);
    // The first read of an address the page's entry already started (early-reads.ts) takes that answer.
    (takeEarly(path, read) ?? read()).then(
      (data) => {
        if (current) setState({ path, data });
      },
      (error: unknown) => {
        if (!current) return;
        setState((previous) => ({
          path,
          data: previous.path === path ? previous.data : undefined,
          error:
            error instanceof ApiError
              ? error
              : new ApiError(0, 'UNEXPECTED_ANSWER', String(error), undefined),
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
