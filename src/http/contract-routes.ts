import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, FastifySchema, RouteOptions } from 'fastify';
import type { RouteMethod, Served, SuccessOf } from './contract.ts';

/**
 * A route's entry in a surface's contract (see contract.ts): where it is (its method, and its path under the
 * surface's JSON prefix), what it takes and what it answers, errors included.
 */
export interface RouteContract {
  method: RouteMethod;
  url: string;
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  response: Record<number | string, TSchema>;
}
type Part<Schema extends RouteContract, Key extends keyof RouteContract> = Schema[Key] extends TSchema
  ? Static<Schema[Key]>
  : undefined;
/** What a route's action is given of the request, as its contract declares and Fastify has validated it. */
export interface RouteInput<Schema extends RouteContract> {
  params: Part<Schema, 'params'>;
  query: Part<Schema, 'querystring'>;
  body: Part<Schema, 'body'>;
}

/** The part of a contract entry that Fastify validates and serialises with. */
export function schemaOf(entry: RouteContract): FastifySchema {
  const { params, querystring, body, response } = entry;
  return {
    response,
    ...(params && { params }),
    ...(querystring && { querystring }),
    ...(body && { body }),
  };
}

/**
 * A route added by hand (one that answers a stream, or reads its own body) as its contract entry declares it:
 * where it is, what Fastify validates, and the access a signed-in surface checks before it runs.
 */
export function handRoute(entry: RouteContract & { access: string }) {
  return { method: entry.method, url: entry.url, schema: schemaOf(entry), config: { access: entry.access } };
}

/** The action of one route: what it answers for the caller, typed by the route's contract. */
export type RouteAction<Caller, Schema extends RouteContract> = (
  caller: Caller,
  input: RouteInput<Schema>,
  request: FastifyRequest,
) => Promise<Served<SuccessOf<Schema>>>;

/** Adds one route of a contract, answering what `act` does for the caller (see {@link contractRoutes}). */
export type ContractRoute<Caller, Entry extends RouteContract = RouteContract> = <Schema extends Entry>(
  entry: Schema,
  act: RouteAction<Caller, Schema>,
) => void;

/**
 * A way to add routes of a contract to `routes`, each at its entry's method and path, answering what its action
 * does for the request's caller (found by `callerOf`, once the surface's guards have run) with the 2xx status
 * its contract declares. The action's answer is typed by the contract: a field missing or of another shape
 * fails the typecheck. `options` adds to each route's options (its guard, its config).
 *
 * @example
 * const route = contractRoutes(routes, callerOf);
 * route(contract.listPeople, (caller) => peopleOf(db, caller));
 */
export function contractRoutes<Caller, Entry extends RouteContract = RouteContract>(
  routes: FastifyInstance,
  callerOf: (request: FastifyRequest) => Caller,
  options: (entry: Entry) => Partial<RouteOptions> = () => ({}),
): ContractRoute<Caller, Entry> {
  return (entry, act) => {
    const status = Number(Object.keys(entry.response).find((code) => /^2\d\d$/.test(code)));
    routes.route({
      ...options(entry),
      method: entry.method,
      url: entry.url,
      schema: schemaOf(entry),
      handler: async (request, reply) =>
        reply
          .code(status)
          .send(await act(callerOf(request), request as unknown as Parameters<typeof act>[1], request)),
    });
  };
}
