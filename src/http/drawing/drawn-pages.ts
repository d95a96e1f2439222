import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fastifyCookie } from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DrawnPage, ReaderCookie } from './drawing-contract.ts';
import { drawingModule, pageDrawer, type PageDrawer, type Reader } from './page-drawing.ts';

/** A page of a surface that the server draws: the reads it takes first, and its chunk's module. */
export interface DrawnRoute {
  /** Its first reads, as addresses under the surface's JSON routes, e.g. `/transactions/<id>`, already encoded. */
  reads: string[];
  /** Its chunk's module in the surface's build (`pages/transaction/transaction-page.tsx`), whose files it links. */
  module: string;
}

/** How a signed-in surface's pages are drawn (see {@link pageDrawing}). */
export interface PageDrawingOptions {
  /** The surface's folder in the built front end, e.g. `console`. */
  surface: string;
  /** Where its page answers (`/console`) and its JSON routes (`/console/api`). */
  pagePath: string;
  apiPath: string;
  /** The session cookie's name: a request without it is not drawn. */
  cookieName: string;
  /** The built front end's folder (`web/dist`). */
  distDir: string;
  /** The page at a path under `pagePath` (`/transactions/<id>`) when the server draws it. */
  routeAt: (path: string) => DrawnRoute | undefined;
  /** @default the process's page drawer */
  drawer?: PageDrawer | undefined;
}

/** The reader cookie's name: web/shared/app/drawn-page.ts sets it. */
const READER_COOKIE: ReaderCookie = 'portico_reader';
/** The longest language tag and time zone name taken from the reader cookie or Accept-Language. */
const MAX_TAG = 64;

/** A language tag in its canonical form, if it is one. */
function canonicalLocale(tag: string | null | undefined): string | undefined {
  if (!tag || tag.length > MAX_TAG) return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/** An IANA time zone that this runtime knows, if it is one. */
function knownTimeZone(zone: string | null | undefined): string | undefined {
  if (!zone || zone.length > MAX_TAG) return undefined;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * How the page's reader reads, from the reader cookie their browser set (its language, time zone and
 * appearance), else their Accept-Language's first language, in UTC, light. Whatever does not check out is left
 * out: it only shapes how the page is drawn, and the browser's own render corrects it.
 */
export function readerOf(
  cookies: Record<string, string | undefined>,
  acceptLanguage: string | undefined,
): Reader {
  const told = new URLSearchParams(cookies[READER_COOKIE]?.slice(0, 512) ?? '');
  const accepted = acceptLanguage?.slice(0, 256).split(',')[0]?.split(';')[0]?.trim();
  return {
    locale: canonicalLocale(told.get('locale')) ?? canonicalLocale(accepted) ?? 'en',
    timeZone: knownTimeZone(told.get('zone')),
    scheme: told.get('scheme') === 'dark' ? 'dark' : 'light',
  };
}

/** One entry of Vite's manifest: a chunk's file, what it imports statically, and its style sheets. */
interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
}

/**
 * The tags that load a page's chunk and style sheets from the head (what the built page does not link already):
 * its style sheets before the first paint, so that the drawn page does not move when they come; its chunk beside
 * the app's.
 */
function headTags(
  manifest: Record<string, ManifestChunk>,
  module: string,
  base: string,
  page: string,
): string[] {
  const files = new Set<string>();
  const styles = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (chunk === undefined || files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const style of chunk.css ?? []) styles.add(style);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(module);
  const linked = (file: string) => page.includes(`${base}/${file}"`);
  return [
    ...[...styles]
      .filter((file) => !linked(file))
      .map((file) => `<link rel="stylesheet" crossorigin href="${base}/${file}">`),
    ...[...files]
      .filter((file) => !linked(file))
      .map((file) => `<link rel="modulepreload" crossorigin href="${base}/${file}">`),
  ];
}

/**
 * Draws the pages of a signed-in surface that `routeAt` names, for a person signed in: reads the session and the
 * page's first reads through the surface's own routes (with the request's cookie, so each read is checked as the
 * browser's would be: the person, their tenant, their role), then has the page drawer draw the app on them.
 * Answers undefined, and the page goes out undrawn, when no one is signed in, a second factor is due, a read is
 * refused (another organization's transaction, one that does not exist), or the drawing did not come in time:
 * the browser then draws the page as before, and says what the page says.
 */
export function pageDrawing(
  app: FastifyInstance,
  options: PageDrawingOptions,
): ((request: FastifyRequest, page: string) => Promise<DrawnPage | undefined>) | undefined {
  // A front end built before pages were drawn has neither: its pages go out as built, without reads for nothing.
  const manifestPath = join(options.distDir, options.surface, '.vite', 'manifest.json');
  const module = drawingModule(options.distDir, options.surface);
  if (!existsSync(manifestPath) || module === undefined) return undefined;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, ManifestChunk>;
  const drawer = options.drawer ?? pageDrawer();
  const { apiPath, pagePath } = options;
  /** The head's tags of each drawn page's module, found once in the manifest. */
  const heads = new Map<string, string[]>();

  return async (request, page) => {
    const path = request.url.slice(pagePath.length).split('?')[0] ?? '';
    const route = options.routeAt(path);
    const cookie = request.headers.cookie;
    if (route === undefined || cookie === undefined) return undefined;
    const cookies = fastifyCookie.parse(cookie);
    if (cookies[options.cookieName] === undefined) return undefined;
    const read = async (url: string) => {
      const answer = await app.inject({
        method: 'GET',
        url,
        // The page's request id: its log lines and its reads' are found together.
        headers: {
          cookie,
          accept: 'application/json',
          'user-agent': request.headers['user-agent'] ?? '',
          'x-request-id': request.id,
        },
        remoteAddress: request.ip,
      });
      return answer.statusCode === 200 ? answer.json<unknown>() : undefined;
    };
    const sessionUrl = `${apiPath}/session`;
    const urls = route.reads.map((url) => `${apiPath}${url}`);
    const [session, ...reads] = await Promise.all([read(sessionUrl), ...urls.map(read)]);
    const person = session as { user?: unknown; secondFactorRequired?: boolean } | undefined;
    if (!person?.user || person.secondFactorRequired === true) return undefined;
    if (reads.some((answer) => answer === undefined)) return undefined;
    const answers = Object.fromEntries(urls.map((url, index) => [url, reads[index]]));
    const html = await drawer.draw(module, {
      path,
      answers: { ...answers, [sessionUrl]: session },
      reader: readerOf(cookies, request.headers['accept-language']),
    });
    if (html === undefined) return undefined;
    let head = heads.get(route.module);
    if (head === undefined)
      heads.set(route.module, (head = headTags(manifest, route.module, pagePath, page)));
    return { html, answers, head };
  };
}
