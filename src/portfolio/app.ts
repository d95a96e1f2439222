import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.ts';
import { createBaseApp, type BaseAppOptions } from '../http/base-app.ts';

export const PORTFOLIO_BASE_PATH = '/v1/external';

export interface PortfolioAppDeps extends Omit<BaseAppOptions, 'checkReady'> {
  db: Database;
}

/**
 * The Portfolio service: the read-only REST API under `/v1/external`, health at `/healthz` and `/readyz`.
 * Returns the app without listening.
 */
export async function buildPortfolioApp(deps: PortfolioAppDeps): Promise<FastifyInstance> {
  const { db } = deps;
  const app = createBaseApp({ ...deps, checkReady: async () => void (await db.query('select 1')) });
  await app.ready();
  return app;
}
