import { ApiError, apiError, fetchJson } from '../shared/api-error.ts';
import type { Answers, BodyOf, Route } from './types.ts';

/** Calls one of the key-delivery routes (`/key-delivery/api/<route>`) with a JSON body; no cookie goes along. */
export async function call<Name extends Route>(route: Name, body: BodyOf<Name>): Promise<Answers[Name]> {
  const answer = await fetchJson(`/key-delivery/api/${route}`, {
    method: 'POST',
    headers: {},
    body,
    credentials: 'omit',
  });
  if (!answer.ok) throw apiError(answer.status, answer.body);
  return answer.body as Answers[Name];
}

export { ApiError };
