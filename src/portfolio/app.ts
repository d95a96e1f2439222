import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.ts';
import { loadInstanceSecret } from '../db/instance-secrets.ts';
import { createBaseApp, type BaseAppOptions } from '../http/base-app.ts';
import type { RateLimitSettings } from '../http/rate-limit.ts';
import type { MetricsSettings } from '../observability/request-metrics.ts';
import { checkPortfolioKey } from '../keys/api-key.ts';
import { createApiKeyCache } from '../keys/api-key-cache.ts';
import { presentedKeyHash } from '../http/presented-key.ts';
import { authenticatePortfolio, type PortfolioCaller } from './authenticate.ts';
import { createCursors } from './cursor.ts';
import type { PortfolioKeyRecord } from './instances.ts';
import { PORTFOLIO_BASE_PATH } from './endpoints.ts';
import { registerPortfolioRoutes } from './routes.ts';
import { UUID_PATTERN, YEAR_PATTERN } from './records.ts';
import { FORMATS } from '../validation/schema-errors.ts';
import { registerDashboard } from './dashboard/dashboard.ts';
import type { DashboardDeps } from './dashboard/deps.ts';

export { PORTFOLIO_BASE_PATH } from './endpoints.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The customer instance and key behind a request to the Portfolio API, once authenticated. */
    portfolioCaller: PortfolioCaller | null;
  }
}

export interface PortfolioAppDeps extends Omit<BaseAppOptions, 'ajv' | 'rateLimit' | 'metrics'> {
  db: Database;
  /**
   * How long a valid key lookup is reused, in milliseconds: a key revoked elsewhere keeps working here for at
   * most this long. 0 looks every key up on every request. @default 1000
   */
  apiKeyCacheMs?: number;
  /** Rate limits per key and per address; none when absent. */
  rateLimit?: RateLimitSettings;
  /** The service's public address, named in the OpenAPI document's `servers`. @default '/' (where it is served) */
  publicUrl?: string;
  /** The customer dashboard at `/dashboard`, with the mail it sends; none when absent. */
  dashboard?: Omit<DashboardDeps, 'db' | 'cursors'>;
  /** The process's metrics, and the token of `GET /metrics`; none when absent. */
  metrics?: MetricsSettings | undefined;
}

/** The raw key in `Authorization`, when it has a Portfolio key's form (for rate limiting; not yet checked). */
function presentedKey(request: FastifyRequest): string | undefined {
  const value = request.headers.authorization?.trim() ?? '';
  return value.length <= 100 && checkPortfolioKey(value) === 'ok' ? value : undefined;
}

/**
 * Portfolio's patterns in words: a date-time's year and a UUID's plain form are checked before their formats, so
 * that `yesterday` or `42` fails the pattern first.
 */
const SCHEMA_PATTERNS = {
  [YEAR_PATTERN]: `${FORMATS['date-time']}, in the years 0001 to 9999`,
  [UUID_PATTERN]: FORMATS.uuid,
};

/**
 * The Portfolio service: the read-only REST API under `/v1/external` with its OpenAPI document at
 * `/v1/external/openapi.json`, health at `/healthz` and `/readyz`, and the customer dashboard at `/dashboard`
 * when `dashboard` is given. Returns the app without listening.
 */
export async function buildPortfolioApp(deps: PortfolioAppDeps): Promise<FastifyInstance> {
  const { db } = deps;
  // Unknown query parameters are refused rather than dropped: a typo like ?limt=5 should not pass unnoticed.
  const app = await createBaseApp({
    ...deps,
    ajv: { customOptions: { removeAdditional: false } },
    // The REST API's documented shape: `details.parameter` names a refused parameter.
    schemaErrors: { patterns: SCHEMA_PATTERNS, parameterKey: 'parameter' },
    rateLimit: deps.rateLimit && { ...deps.rateLimit, service: 'portfolio', presentedKey },
    metrics: deps.metrics && { ...deps.metrics, service: 'portfolio' },
  });

  const cursors = createCursors(await loadInstanceSecret(db, 'portfolio_cursors'));
  const keyCache = createApiKeyCache<PortfolioKeyRecord>({ ttlMs: deps.apiKeyCacheMs ?? 1000 });
  app.decorateRequest('portfolioCaller', null);
  await registerPortfolioRoutes(app, {
    db,
    cursors,
    basePath: PORTFOLIO_BASE_PATH,
    publicUrl: deps.publicUrl,
    authenticate: async (request) =>
      (request.portfolioCaller = await authenticatePortfolio(
        { db, cache: keyCache, hashOf: (key) => presentedKeyHash(request, key) },
        request.headers.authorization,
      )),
  });
  if (deps.dashboard) await registerDashboard(app, { ...deps.dashboard, db, cursors });
  await app.ready();
  return app;
}
