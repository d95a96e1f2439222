import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.ts';
import { registerAccountRoutes } from '../../http/account-routes.ts';
import { dashboardPages } from '../people.ts';
import { publicCaller, signedInCaller } from './caller.ts';
import { dashboardRoutes as contract } from './contract.ts';
import type { DashboardDeps } from './deps.ts';

/**
 * Sign-in, sign-out, the invitation and password reset links of the dashboard (http/account-routes.ts): a
 * person signs in to one customer instance, choosing it by slug when their address and password open several.
 */
export function registerSessionRoutes(api: FastifyInstance, deps: DashboardDeps): void {
  const { db } = deps;
  registerAccountRoutes(api, {
    db,
    pages: dashboardPages(deps.mail),
    name: 'dashboard',
    contract,
    signedInAnswer: async (request) => {
      const caller = await signedInCaller(db, request);
      return caller && publicCaller(caller);
    },
    signedOutAnswer: publicCaller(undefined),
    chosenTenant: (body) => (typeof body.instance === 'string' ? body.instance : undefined),
    choiceRequired: (choices) =>
      new AppError(
        'INSTANCE_CHOICE_REQUIRED',
        'This address and password open several instances: choose one.',
        {
          instances: choices.map(({ handle, name }) => ({ slug: handle, name })),
        },
      ),
  });
}
