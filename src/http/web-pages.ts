import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DrawnPage } from './drawing/drawing-contract.ts';
import { AppError } from '../errors.ts';

/** The front end built by `npm install` (`npm run build:web`) in this checkout: one folder per surface. */
export const DEFAULT_WEB_DIST_DIR = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/**
 * The Content-Security-Policy of a page of ours: only this origin's scripts (no inline script), workers when
 * `workers`, frames of this origin's documents when `frames` (a PDF preview), style sheets, images and fonts,
 * and requests to this origin alone; no framing of the page itself, no `<base>`, and no form sent anywhere (the
 * pages send JSON from their scripts). Style attributes are allowed: the component libraries size panes and
 * place popovers with them. `data:` covers icon fonts and images inside style sheets.
 */
export function pageContentSecurityPolicy(options: { workers?: boolean; frames?: boolean } = {}): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    ...(options.workers ? ["worker-src 'self'"] : []),
    ...(options.frames ? ["frame-src 'self'"] : []),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The headers of every page: its Content-Security-Policy, no sniffing, no framing, no Referer leaving the
 * page, its own browsing context group, and HSTS (the services speak only HTTPS, or sit behind a proxy that
 * does).
 */
export function pageHeaders(contentSecurityPolicy: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-cache',
    'content-security-policy': contentSecurityPolicy,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'strict-transport-security': 'max-age=31536000',
  };
}

export interface WebSurfaceOptions {
  /** The surface's folder in the built front end (`web/dist/<surface>/`), e.g. `graphiql`. */
  surface: string;
  /** Where the page answers, e.g. `/graphiql`; its assets are under `<path>/assets/`. */
  path: string;
  contentSecurityPolicy: string;
  /**
   * Whether the page routes on the client: every path under `path` without a dot then answers with the page
   * too (reloading `/dashboard/acme/companies` works), except under `<path>/api/`. @default false
   */
  clientRoutes?: boolean;
  /** What the surface is, for the message when it was not built, e.g. "GraphiQL". */
  title: string;
  /** What works without it, for that message, e.g. "The API at /beta works without it." */
  worksWithout: string;
  /** The built front end. @default web/dist of this checkout */
  distDir?: string | undefined;
  /**
   * Draws some of the surface's pages on the server (drawing/drawn-pages.ts), given the request and the built
   * page: undefined sends the page as built.
   */
  draw?: ((request: FastifyRequest, page: string) => Promise<DrawnPage | undefined>) | undefined;
}

/**
 * The built page with a drawing in it: the page's chunk and style sheets linked from the head, the answers it was
 * drawn with as JSON before the entry's script (which runs as soon as it has come, maybe before the body is
 * parsed, and takes them: web/shared/app/drawn-page.ts), and the app's HTML in the root element (marked
 * `data-drawn`, without the no-script note: the page's words are there). The JSON cannot end its element: every
 * `<` in it is escaped.
 */
export function withDrawing(page: string, surface: string, drawn: DrawnPage): string {
  const root = new RegExp(`<div id="${surface}">[\\s\\S]*?</div>`);
  const entry = page.indexOf('<script type="module"');
  if (entry < 0) throw new Error(`the built ${surface} page has no entry script`);
  const answers = JSON.stringify(drawn.answers).replace(/</g, '\\u003c');
  const head =
    `<script type="application/json" id="${surface}-answers">${answers}</script>` + drawn.head.join('');
  return (page.slice(0, entry) + head + page.slice(entry)).replace(
    root,
    () => `<div id="${surface}" data-drawn>${drawn.html}</div>`,
  );
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Whether an Accept-Encoding header accepts `coding` (named, and not with `q=0`). */
function accepts(header: string | undefined, coding: string): boolean {
  return (header ?? '').split(',').some((part) => {
    const [name = '', ...parameters] = part.split(';').map((each) => each.trim().toLowerCase());
    return name === coding && !parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter));
  });
}

/**
 * A drawn page as the browser accepts it, brotli or else gzip, compressed on libuv's threads: a phone waits for
 * every byte of the HTML before its first paint, and a drawn page's 20–40 KB shrink to a fifth. It holds no secret
 * of the session (the CSRF token stays out of it), and nothing of the request but the address it answers.
 */
async function encoded(
  html: string,
  acceptEncoding: string | undefined,
): Promise<{ body: Buffer; encoding?: 'br' | 'gzip' }> {
  if (accepts(acceptEncoding, 'br')) {
    // Quality 5: within a millisecond for a page, most of the best quality's gain.
    const params = { [constants.BROTLI_PARAM_QUALITY]: 5 };
    return { body: await brotli(html, { params }), encoding: 'br' };
  }
  if (accepts(acceptEncoding, 'gzip')) return { body: await gzipped(html), encoding: 'gzip' };
  return { body: Buffer.from(html) };
}

/**
 * Serves one surface of the built front end: its page (never cached, with the headers of
 * {@link pageHeaders}) and its content-hashed assets under `<path>/assets/` (cached for a year, brotli or gzip
 * when the browser accepts it, as `npm run build:web` precompressed them). Nothing comes from a CDN, so pages work offline. When the front end was not built (an
 * install with `--ignore-scripts`), the page answers 503 SERVICE_UNAVAILABLE saying how to build it.
 */
export function registerWebSurface(app: FastifyInstance, options: WebSurfaceOptions): void {
  const dir = join(options.distDir ?? DEFAULT_WEB_DIST_DIR, options.surface);
  const indexPath = join(dir, 'index.html');
  const { path } = options;
  const pagePaths = options.clientRoutes ? [path, `${path}/`, `${path}/*`] : [path];
  /** NOT_FOUND for a file that is not there (favicon.ico, an old asset) or an API route that does not exist. */
  const refuseNonPage = (url: string) => {
    const rest = url.slice(path.length).split('?')[0] ?? '';
    if (rest.includes('.') || rest.startsWith('/api/') || rest === '/api') {
      throw new AppError('NOT_FOUND', `Nothing is at ${path}${rest}.`);
    }
  };

  if (!existsSync(indexPath)) {
    app.log.warn(
      { missing: indexPath },
      `${options.title} is not built: run \`npm run build:web\`, then restart`,
    );
    for (const url of pagePaths) {
      app.get(url, (request) => {
        refuseNonPage(request.url);
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          `${options.title} is not built on this server: run \`npm run build:web\` (or \`npm install\` without ` +
            `--ignore-scripts), then restart Portico. ${options.worksWithout}`,
        );
      });
    }
    return;
  }

  // Read once: a rebuild replaces the hashed asset names, so it takes a restart either way.
  const page = readFileSync(indexPath);
  const headers = pageHeaders(options.contentSecurityPolicy);
  const { draw } = options;
  const pageText = draw ? page.toString('utf8') : '';
  // A drawn page holds what one person may read: no cache but theirs keeps it.
  const drawnHeaders = { ...headers, 'cache-control': 'private, no-cache', vary: 'cookie, accept-encoding' };
  for (const url of pagePaths) {
    app.get(url, async (request, reply) => {
      refuseNonPage(request.url);
      const drawn = draw && (await draw(request, pageText));
      if (!drawn) return reply.headers(headers).send(page);
      const { body, encoding } = await encoded(
        withDrawing(pageText, options.surface, drawn),
        request.headers['accept-encoding'],
      );
      if (encoding) void reply.header('content-encoding', encoding);
      return reply.headers(drawnHeaders).send(body);
    });
  }
  if (!options.clientRoutes) app.get(`${path}/`, (_request, reply) => reply.redirect(path, 301));

  void app.register(fastifyStatic, {
    root: join(dir, 'assets'),
    prefix: `${path}/assets/`,
    // Another surface may register its own static files: no reply.sendFile decorator to collide on.
    decorateReply: false,
    index: false,
    list: false,
    // `<asset>.br` when the browser accepts brotli, else `<asset>.gz` when it accepts gzip (web/build.ts).
    preCompressed: true,
    // Asset names carry a hash of their content: a changed file has a new name.
    maxAge: '365d',
    immutable: true,
    setHeaders: (response) => {
      response.setHeader('x-content-type-options', 'nosniff');
      // The same address answers brotli, gzip or plain bytes depending on the request.
      response.setHeader('vary', 'accept-encoding');
    },
  });
}
