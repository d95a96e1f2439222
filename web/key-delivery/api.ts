import { ApiError, apiError, fetchJson } from '../shared/api-error.ts';

/** Calls one of the key-delivery routes (`/key-delivery/api/<route>`) with a JSON body; no cookie goes along. */
export async function call<T>(route: 'describe' | 'code' | 'reveal', body: object): Promise<T> {
  const answer = await fetchJson(`/key-delivery/api/${route}`, {
    method: 'POST',
    headers: {},
    body,
    credentials: 'omit',
  });
  if (!answer.ok) throw apiError(answer.status, answer.body);
  return answer.body as T;
}

export { ApiError };
