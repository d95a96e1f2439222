import type { FastifyInstance } from 'fastify';
import { pageContentSecurityPolicy, registerWebSurface } from '../../http/web-pages.ts';

/** Where GraphiQL answers on the Transactions service. */
export const GRAPHIQL_PATH = '/graphiql';

/** What the page may load (see `pageContentSecurityPolicy`), with Monaco's workers. */
export const GRAPHIQL_CONTENT_SECURITY_POLICY = pageContentSecurityPolicy({ workers: true });

export interface GraphiQLOptions {
  /** The built front end; GraphiQL is its `graphiql/` folder. @default web/dist of this checkout */
  distDir?: string;
}

/**
 * Serves GraphiQL for the API at `/beta`: the page at `GET /graphiql` and its assets at `/graphiql/assets/…`
 * (see `registerWebSurface`).
 *
 * @example
 * registerGraphiQL(app, { distDir: '/srv/portico/web/dist' });
 */
export function registerGraphiQL(app: FastifyInstance, options: GraphiQLOptions = {}): void {
  registerWebSurface(app, {
    surface: 'graphiql',
    path: GRAPHIQL_PATH,
    contentSecurityPolicy: GRAPHIQL_CONTENT_SECURITY_POLICY,
    title: 'GraphiQL',
    worksWithout: 'The API at /beta works without it.',
    distDir: options.distDir,
  });
}
