import type { FastifyInstance, FastifyRequest } from 'fastify';
import { contractRoutes } from '../../http/contract-routes.ts';
import type { DashboardCaller } from './caller.ts';
import { dashboardRoutes as contract } from './contract.ts';
import type { DashboardDeps } from './deps.ts';
import {
  companiesPage,
  companyOf,
  fundsOf,
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
 * WRONG_INSTANCE with another instance's, answered alike whether or not the slug exists); each calls one action
 * of instance-actions.ts and answers with the status its contract declares.
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
      const route = contractRoutes(routes, callerOf);

      route('GET', '/keys', contract.listKeys, (caller) => keysOf(db, caller));
      route('POST', '/keys', contract.createKey, (caller, { body }) => generateKey(db, caller, body.name));
      route('DELETE', '/keys/:id', contract.revokeKey, (caller, { params }) =>
        revokeKey(db, caller, params.id),
      );
      route('GET', '/people', contract.listPeople, (caller) => peopleOf(db, caller));
      route('POST', '/people', contract.invitePerson, (caller, { body }) => invite(deps, caller, body));
      route('DELETE', '/people/:id', contract.removePerson, (caller, { params }) =>
        removePerson(db, caller, params.id),
      );
      route('GET', '/funds', contract.listFunds, (caller) => fundsOf(db, caller));
      route('GET', '/companies', contract.searchCompanies, (caller, { query }) =>
        companiesPage(db, caller, query),
      );
      route('GET', '/companies/:id', contract.readCompany, (caller, { params }) =>
        companyOf(deps, caller, params.id),
      );
      done();
    },
    { prefix: '/instances/:slug' },
  );
}
