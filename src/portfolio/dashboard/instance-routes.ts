import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getCompany, listFunds, searchCompanies } from '../browse.ts';
import type { DashboardCaller } from './caller.ts';
import { dashboardRoutes as contract } from './contract.ts';
import type { DashboardDeps } from './deps.ts';
import {
  companyRecords,
  generateKey,
  invite,
  keysOf,
  peopleOf,
  removePerson,
  revokeKey,
} from './instance-actions.ts';
import { signedInToInstance } from './signed-in-guard.ts';

/**
 * The routes of one instance's data, under `/instances/:slug/`: its API keys, its people and its portfolio,
 * as contract.ts declares them. Each needs a session signed in to that instance (UNAUTHENTICATED without one,
 * WRONG_INSTANCE with another instance's, answered alike whether or not the slug exists); what each does is
 * in instance-actions.ts and browse.ts.
 */
export function registerInstanceRoutes(api: FastifyInstance, deps: DashboardDeps): void {
  const { db } = deps;
  api.decorateRequest('dashboardCaller', null);
  const callerOf = (request: FastifyRequest): DashboardCaller => {
    if (!request.dashboardCaller) throw new Error('an instance route ran without its caller');
    return request.dashboardCaller;
  };

  void api.register(
    (routes, _options, done) => {
      routes.addHook('preHandler', signedInToInstance(db));

      routes.get('/keys', { schema: contract.listKeys }, async (request) => ({
        keys: await keysOf(db, callerOf(request)),
      }));
      routes.post<{ Body: Static<typeof contract.createKey.body> }>(
        '/keys',
        { schema: contract.createKey },
        async (request, reply) =>
          reply.code(201).send(await generateKey(db, callerOf(request), request.body.name)),
      );
      routes.delete<{ Params: Static<typeof contract.revokeKey.params> }>(
        '/keys/:id',
        { schema: contract.revokeKey },
        async (request) => ({ key: await revokeKey(db, callerOf(request), request.params.id) }),
      );

      routes.get('/people', { schema: contract.listPeople }, async (request) => ({
        people: await peopleOf(db, callerOf(request)),
      }));
      routes.post<{ Body: Static<typeof contract.invitePerson.body> }>(
        '/people',
        { schema: contract.invitePerson },
        async (request, reply) =>
          reply.code(201).send({ person: await invite(deps, callerOf(request), request.body) }),
      );
      routes.delete<{ Params: Static<typeof contract.removePerson.params> }>(
        '/people/:id',
        { schema: contract.removePerson },
        async (request) => ({ person: await removePerson(db, callerOf(request), request.params.id) }),
      );

      routes.get('/funds', { schema: contract.listFunds }, async (request) => ({
        funds: await listFunds(db, callerOf(request).instance.id),
      }));
      routes.get<{ Querystring: Static<typeof contract.searchCompanies.querystring> }>(
        '/companies',
        { schema: contract.searchCompanies },
        async (request) => {
          const { search, fund, page, pageSize } = request.query;
          const found = await searchCompanies(db, {
            instanceId: callerOf(request).instance.id,
            search,
            fundId: fund,
            page,
            pageSize,
          });
          return { ...found, page, pageSize };
        },
      );
      routes.get<{ Params: Static<typeof contract.readCompany.params> }>(
        '/companies/:id',
        { schema: contract.readCompany },
        async (request) => {
          const caller = callerOf(request);
          const company = await getCompany(db, caller.instance.id, request.params.id);
          return { company, ...(await companyRecords(deps, caller, company)) };
        },
      );
      done();
    },
    { prefix: '/instances/:slug' },
  );
}
