import { ApiError, apiError, networkError } from '../shared/api-error.ts';

/** Calls one of the key-delivery routes (`/key-delivery/api/<route>`) with a JSON body. */
export async function call<T>(route: 'describe' | 'code' | 'reveal', body: object): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/key-delivery/api/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw networkError();
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) throw apiError(response.status, parsed);
  return parsed as T;
}

export { ApiError };
