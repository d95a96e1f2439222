import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.ts';
import { createBaseApp, type BaseAppOptions } from '../http/base-app.ts';

export const PORTFOLIO_BASE_PATH = '/v1/external';

export interface PortfolioAppDeps extends BaseAppOptions {
  db: Database;
}

/**
 * The Portfolio service: the read-only REST API under `/v1/external`, health at `/healthz` and `/readyz`.
 * Returns the app without listening.
 */
export async function buildPortfolioApp(deps: PortfolioAppDeps): Promise<FastifyInstance> {
  const app = createBaseApp(deps);
  await app.ready();
  return app;
}
