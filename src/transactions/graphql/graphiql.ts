import type { FastifyInstance } from 'fastify';
import { registerWebSurface } from '../../http/web-pages.ts';

/** Where GraphiQL answers on the Transactions service. */
export const GRAPHIQL_PATH = '/graphiql';

/**
 * What the page may load: only this origin's scripts, styles, fonts and workers, and requests to this origin
 * (the API at /beta). Inline styles are allowed because Monaco and GraphiQL size their panes with style
 * attributes; `data:` covers the editor's icon font and images embedded in the style sheet.
 */
export const GRAPHIQL_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

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
