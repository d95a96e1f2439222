// A page's calls to its JSON routes, typed by their contract (src/<surface>/contract.ts, imported type-only, so
// that no server code enters a bundle). A route is named by its method and path as its entry declares them,
// `'POST /transactions/:id/remind'`: a name misspelt, or of a route the contract no longer has, fails the
// typecheck. A call takes what the entry declares (its path's params, its query, its body) and nothing else, a
// part required unless every field of it may be left out, and answers the entry's 2xx answer, or throws an
// ApiError whose code is the catalogue's.

import type { Static, TSchema } from '@sinclair/typebox';
import type { SuccessOf } from '../../src/http/contract.ts';
import { apiError, networkError } from './api-error.ts';

/** What the client reads of a contract's entry (`RouteContract`, src/http/contract-routes.ts). */
interface Entry {
  method: string;
  url: string;
  response: Record<number, TSchema>;
}

/** A contract's routes by name: `'<method> <path>'`. */
type Routes<Contract> = {
  [
    Key in keyof Contract as Contract[Key] extends {
      method: infer Method extends string;
      url: infer Path extends string;
    }
      ? `${Method} ${Path}`
      : never
  ]: Contract[Key];
};

/** The name of a route of `Contract`, its method and path: e.g. `'POST /transactions/:id/remind'`. */
export type RouteName<Contract> = keyof Routes<Contract> & string;

/** The routes of `Contract` that take and answer JSON: neither an upload (`consumes`) nor a file (`produces`). */
export type JsonRouteName<Contract> = {
  [Name in RouteName<Contract>]: Routes<Contract>[Name] extends { consumes: unknown } | { produces: unknown }
    ? never
    : Name;
}[RouteName<Contract>];

/** Whether every field of `T` may be left out. */
type AllOptional<T> = Partial<T> extends T ? true : false;

/** A part of a call's input, named `As`: given when the entry declares `Key` (optional when `{}` would do), else not. */
type Part<Route, Key extends string, As extends string> = Route extends {
  [K in Key]: infer Schema extends TSchema;
}
  ? AllOptional<Static<Schema>> extends true
    ? { [K in As]?: Static<Schema> }
    : { [K in As]: Static<Schema> }
  : { [K in As]?: never };

/** What a call of route `Name` takes: its path's `params`, its `query` and its `body`, as its entry declares them. */
export type InputOf<Contract, Name extends RouteName<Contract>> = Part<
  Routes<Contract>[Name],
  'params',
  'params'
> &
  Part<Routes<Contract>[Name], 'querystring', 'query'> &
  Part<Routes<Contract>[Name], 'body', 'body'>;

/** The input of a call as arguments: none needed when the route takes nothing it must be given. */
export type InputArgs<Contract, Name extends RouteName<Contract>> =
  AllOptional<InputOf<Contract, Name>> extends true
    ? [input?: InputOf<Contract, Name>]
    : [input: InputOf<Contract, Name>];

/** What route `Name` answers when it succeeds: its entry's 2xx answer. */
export type AnswerOf<Contract, Name extends RouteName<Contract>> = Routes<Contract>[Name] extends Entry
  ? SuccessOf<Routes<Contract>[Name]>
  : never;

/** The calls of a contract's routes. */
export interface ContractClient<Contract> {
  /**
   * Calls a route and answers its 2xx answer, or throws an {@link ApiError}: the route's own, or NETWORK_ERROR
   * when the server cannot be reached.
   *
   * @example
   * const { queuedAt } = await consoleApi('POST /transactions/:id/remind', { params: { id } });
   */
  <Name extends JsonRouteName<Contract>>(
    name: Name,
    ...input: InputArgs<Contract, Name>
  ): Promise<AnswerOf<Contract, Name>>;
  /**
   * A route's address, its path's params put in (encoded) and its query after: for what is not called as JSON
   * (an event stream, an upload), and to tell whether two calls read the same.
   */
  urlOf<Name extends RouteName<Contract>>(name: Name, ...input: InputArgs<Contract, Name>): string;
}

/** A call as it goes out: the route's method and path (as the contract names it), its address and JSON body. */
export interface ApiRequest {
  method: string;
  path: string;
  url: string;
  body: object | undefined;
}

/** Sends a call and answers the parsed body of its 2xx answer, or throws an ApiError. */
export type Send = (request: ApiRequest) => Promise<unknown>;

/** A query's value: what a contract's `querystring` declares, sent as text (an array as the name repeated). */
type QueryValue = string | number | boolean;

/** A call's input, as {@link InputOf} types it for each route. */
interface Input {
  params?: Record<string, string>;
  query?: Record<string, QueryValue | readonly QueryValue[] | undefined>;
  body?: object;
}

/**
 * The calls of `Contract`'s routes under `base`, sent by `send` (which adds what the surface's routes need: a
 * session's CSRF token, say).
 *
 * @example
 * export const keyDeliveryApi = contractClient<KeyDeliveryRoutes>('/key-delivery/api', sendWithoutCookies);
 * const invitation = await keyDeliveryApi('POST /describe', { body: { linkId, proof } });
 */
export function contractClient<Contract>(base: string, send: Send): ContractClient<Contract> {
  const requestOf = (name: string, input: Input = {}): ApiRequest => {
    const [method = '', path = ''] = name.split(' ');
    const { params = {}, query = {} } = input;
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      for (const each of [value].flat()) if (each !== undefined) search.append(key, String(each));
    }
    const filled = path.replace(/:(\w+)/g, (_, key: string) => encodeURIComponent(params[key] ?? ''));
    return {
      method,
      path,
      url: `${base}${filled}${search.size === 0 ? '' : `?${search.toString()}`}`,
      body: input.body,
    };
  };
  const call = (name: string, input?: Input) => send(requestOf(name, input));
  const urlOf = (name: string, input?: Input) => requestOf(name, input).url;
  // The types above say what each name takes and answers; the contract, not this function, is what holds to them.
  return Object.assign(call, { urlOf }) as unknown as ContractClient<Contract>;
}

/**
 * Calls one of Portico's JSON routes and answers the status and the parsed body (undefined when it is not
 * JSON), or throws NETWORK_ERROR when the server cannot be reached. Answers are never cached.
 */
export async function fetchJson(
  url: string,
  init: {
    method: string;
    headers: Record<string, string>;
    body?: object | undefined;
    credentials: RequestCredentials;
  },
): Promise<{ ok: boolean; status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method,
      headers: {
        accept: 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: init.credentials,
      cache: 'no-store',
    });
  } catch {
    throw networkError();
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { ok: response.ok, status: response.status, body };
}

/**
 * Sends a call with no cookie: the routes whose credential is a token they are given (the recipient portal's in
 * its path, key delivery's in its body).
 */
export const sendWithoutCookies: Send = async ({ method, url, body }) => {
  const answer = await fetchJson(url, { method, headers: {}, body, credentials: 'omit' });
  if (!answer.ok) throw apiError(answer.status, answer.body);
  return answer.body;
};
