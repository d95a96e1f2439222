import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, HTTPMethods, RouteOptions } from 'fastify';
import type { Served, SuccessOf } from './contract.ts';

/** A route's entry in a surface's contract (see contract.ts). */
export interface RouteSchema {
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  response: Record<number, TSchema>;
}
type Part<Schema extends RouteSchema, Key extends keyof RouteSchema> = Schema[Key] extends TSchema
  ? Static<Schema[Key]>
  : undefined;
/** What a route's action is given of the request, as its contract declares and Fastify has validated it. */
export interface RouteInput<Schema extends RouteSchema> {
  params: Part<Schema, 'params'>;
  query: Part<Schema, 'querystring'>;
  body: Part<Schema, 'body'>;
}

/** Adds one route of a contract, answering what `act` does for the caller (see {@link contractRoutes}). */
export type ContractRoute<Caller> = <Schema extends RouteSchema>(
  method: HTTPMethods,
  url: string,
  schema: Schema,
  act: (
    caller: Caller,
    input: RouteInput<Schema>,
    request: FastifyRequest,
  ) => Promise<Served<SuccessOf<Schema>>>,
) => void;

/**
 * A way to add routes of a contract to `routes`, each answering what its action does for the request's caller
 * (found by `callerOf`, once the surface's guards have run) with the 2xx status its contract declares. The
 * action's answer is typed by the contract: a field missing or of another shape fails the typecheck.
 *
 * @example
 * const route = contractRoutes(routes, callerOf);
 * route('GET', '/people', contract.listPeople, (caller) => peopleOf(db, caller));
 */
export function contractRoutes<Caller>(
  routes: FastifyInstance,
  callerOf: (request: FastifyRequest) => Caller,
): ContractRoute<Caller> {
  return (method, url, schema, act) => {
    const status = Number(Object.keys(schema.response).find((code) => /^2\d\d$/.test(code)));
    const options: RouteOptions = {
      method,
      url,
      schema,
      handler: async (request, reply) =>
        reply
          .code(status)
          .send(await act(callerOf(request), request as unknown as Parameters<typeof act>[1], request)),
    };
    routes.route(options);
  };
}
