import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.ts';

/** Where GraphiQL answers on the Transactions service. */
export const GRAPHIQL_PATH = '/graphiql';

/** The front end built by `npm install` (`npm run build:web`) in this checkout. */
export const DEFAULT_WEB_DIST_DIR = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

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
 * Serves GraphiQL for the API at `/beta`: the page at `GET /graphiql` (never cached, with a strict
 * Content-Security-Policy) and its content-hashed assets at `/graphiql/assets/…` (cached for a year, gzip when
 * the browser accepts it). Nothing comes from a CDN, so it works offline. When the front end was not built
 * (an install with `--ignore-scripts`), `/graphiql` answers 503 SERVICE_UNAVAILABLE saying how to build it.
 *
 * @example
 * registerGraphiQL(app, { distDir: '/srv/portico/web/dist' });
 */
export function registerGraphiQL(app: FastifyInstance, options: GraphiQLOptions = {}): void {
  const dir = join(options.distDir ?? DEFAULT_WEB_DIST_DIR, 'graphiql');
  const indexPath = join(dir, 'index.html');

  if (!existsSync(indexPath)) {
    app.log.warn({ missing: indexPath }, 'GraphiQL is not built: run `npm run build:web`, then restart');
    app.get(GRAPHIQL_PATH, () => {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'GraphiQL is not built on this server: run `npm run build:web` (or `npm install` without ' +
          '--ignore-scripts), then restart Portico. The API at /beta works without it.',
      );
    });
    return;
  }

  // Read once: a rebuild replaces the hashed asset names, so it takes a restart either way.
  const page = readFileSync(indexPath);
  app.get(GRAPHIQL_PATH, (_request, reply) =>
    reply
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        'content-security-policy': GRAPHIQL_CONTENT_SECURITY_POLICY,
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'cross-origin-opener-policy': 'same-origin',
      })
      .send(page),
  );
  app.get(`${GRAPHIQL_PATH}/`, (_request, reply) => reply.redirect(GRAPHIQL_PATH, 301));

  void app.register(fastifyStatic, {
    root: join(dir, 'assets'),
    prefix: `${GRAPHIQL_PATH}/assets/`,
    // Another surface may register its own static files: no reply.sendFile decorator to collide on.
    decorateReply: false,
    index: false,
    list: false,
    preCompressed: true,
    // Asset names carry a hash of their content: a changed file has a new name.
    maxAge: '365d',
    immutable: true,
    setHeaders: (response) => {
      response.setHeader('x-content-type-options', 'nosniff');
      // The same address answers gzip or plain bytes depending on the request.
      response.setHeader('vary', 'accept-encoding');
    },
  });
}
