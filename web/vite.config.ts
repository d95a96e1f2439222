import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { OutputBundle, OutputChunk } from 'rolldown';
import { defineConfig, type HtmlTagDescriptor, type InlineConfig, type Plugin } from 'vite';
import { unusedRadixRules } from './unused-radix-rules.ts';

/**
 * The pages of the front end, one folder each (`web/<surface>/index.html`, a bare document, and `main.tsx`; the
 * page's shell is in `PAGES`). Each is built on its own into `web/dist/<surface>/` with its assets under
 * `<path>/assets/` (see {@link surfacePath}), so a surface is self-contained: the service that serves it
 * (Transactions or Portfolio, deployable apart) needs no other surface's files.
 */
export const SURFACES = ['graphiql', 'dashboard', 'key-delivery', 'recipient', 'console'] as const;
export type Surface = (typeof SURFACES)[number];

/** Surfaces served somewhere else than `/<surface>`: the recipient portal is at `/r/<token>`, a short link to mail. */
const SURFACE_PATHS: Partial<Record<Surface, string>> = { recipient: '/r' };

/** Where a surface is served, e.g. `/dashboard` or `/r`; its assets are under `<path>/assets/`. */
export function surfacePath(surface: Surface): string {
  return SURFACE_PATHS[surface] ?? `/${surface}`;
}

const WEB_DIR = fileURLToPath(new URL('.', import.meta.url));

/** Where `npm run build:web` writes the built pages; the services serve `<WEB_DIST_DIR>/<surface>/`. */
export const WEB_DIST_DIR = join(WEB_DIR, 'dist');

/** What one page says before its script runs: its title, what it needs without JavaScript, what it asks early. */
interface PageShell {
  title: string;
  /** Shown when JavaScript is off. */
  noscript: string;
  /** The JSON route the page reads first, fetched while its script loads. */
  preload?: string;
  /** Pages reached by a secret link send no Referer, and the portal asks not to be indexed. */
  meta?: Record<string, string>;
}

const PAGES: Record<Surface, PageShell> = {
  graphiql: {
    title: 'GraphiQL · Portico Transactions API',
    noscript: 'GraphiQL needs JavaScript. The API itself answers POST /beta.',
  },
  dashboard: {
    title: 'Portico · Portfolio dashboard',
    noscript: 'The dashboard needs JavaScript. The Portfolio API at /v1/external works without it.',
    preload: '/dashboard/api/session',
  },
  'key-delivery': {
    title: 'Your API key · Portico',
    noscript:
      'This page needs JavaScript: it decrypts your key in the browser, so that no server ever sees it.',
    meta: { referrer: 'no-referrer' },
  },
  recipient: {
    title: 'Documents to complete · Portico',
    noscript:
      'This page needs JavaScript to show your forms and documents. Turn it on for this site, or open the link in another browser.',
    meta: { referrer: 'no-referrer', robots: 'noindex, nofollow' },
  },
  console: {
    title: 'Portico · Organization console',
    noscript: 'The console needs JavaScript. The API at /beta works without it.',
    preload: '/console/api/session',
  },
};

/**
 * Every page's shell, from {@link PAGES}, so that each `index.html` is the same bare document: the head (UTF-8,
 * the phone's width, light and dark, no request for a favicon, then the page's own), and in the body the root
 * element `#<surface>` and the entry script, which Vite then bundles as if written there.
 */
function pageShell(surface: Surface): Plugin {
  const page = PAGES[surface];
  const meta = (attrs: Record<string, string>) => ({ tag: 'meta', attrs, injectTo: 'head' as const });
  return {
    name: 'portico:page-shell',
    transformIndexHtml: {
      order: 'pre',
      handler: () => [
        meta({ charset: 'utf-8' }),
        meta({ name: 'viewport', content: 'width=device-width, initial-scale=1' }),
        meta({ name: 'color-scheme', content: 'light dark' }),
        { tag: 'link', attrs: { rel: 'icon', href: 'data:,' }, injectTo: 'head' },
        ...Object.entries(page.meta ?? {}).map(([name, content]) => meta({ name, content })),
        { tag: 'title', children: page.title, injectTo: 'head' },
        ...(page.preload
          ? [
              {
                tag: 'link',
                attrs: { rel: 'preload', href: page.preload, as: 'fetch', crossorigin: 'anonymous' },
                injectTo: 'head' as const,
              },
            ]
          : []),
        {
          tag: 'div',
          attrs: { id: surface },
          children: [{ tag: 'noscript', children: page.noscript }],
          injectTo: 'body',
        },
        { tag: 'script', attrs: { type: 'module', src: './main.tsx' }, injectTo: 'body' },
      ],
    },
  };
}

/** The module a page's entry imports, once it has started what the opened page reads first: the page's app. */
const APP_MODULE = /\/web\/[^/]+\/mount\.tsx$/;

/**
 * A page whose entry starts the opened page's first reads and chunk (`startOpenedPage`) before it imports the app
 * (`import('./mount.tsx')`, the router, the shell, every page's code): the app's chunks and style sheets are linked
 * from the HTML as the entry's static imports would be, so that they load beside the entry, not after it, while
 * the entry, a few KiB and `async`, runs as soon as it has come. A phone's network then carries the page's reads and chunk
 * with the app's script rather than a round trip after it (bench/RESULTS.md, issue 44). The build fails if the
 * entry imports the app's chunk statically: it would wait for it again.
 */
function preloadApp(): Plugin {
  let base = '/';
  return {
    name: 'portico:preload-app',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle, chunk: entry }) {
        if (bundle === undefined || entry === undefined) return;
        const chunks = (names: readonly string[]) =>
          names.flatMap((name) => {
            const chunk: OutputBundle[string] | undefined = bundle[name];
            return chunk?.type === 'chunk' ? [chunk] : [];
          });
        // The chunk that holds the app's module (a group's: `app`, see appChunks).
        const app = chunks(entry.dynamicImports).find((chunk) =>
          chunk.moduleIds.some((id) => APP_MODULE.test(id)),
        );
        if (app === undefined) return;
        if (entry.imports.includes(app.fileName)) {
          throw new Error(
            `${entry.fileName} imports the app's chunk ${app.fileName} statically: keep it small`,
          );
        }
        // The app's chunk and every chunk it imports statically, but those the entry's own tags already load.
        const loaded = new Set([entry.fileName, ...entry.imports]);
        const wanted: OutputChunk[] = [];
        const visit = (chunk: OutputChunk) => {
          if (loaded.has(chunk.fileName)) return;
          loaded.add(chunk.fileName);
          wanted.push(chunk);
          chunks(chunk.imports).forEach(visit);
        };
        visit(app);
        const styles = [...new Set(wanted.flatMap((chunk) => [...(chunk.viteMetadata?.importedCss ?? [])]))];
        // The entry runs as soon as it has come (`async`), not after the style sheet as a deferred script would:
        // the page paints nothing before its style sheets have come either way.
        const script = `<script type="module" crossorigin src="${base}${entry.fileName}">`;
        if (!html.includes(script)) throw new Error(`no ${script} in the page to make async`);
        const tags = [
          ...wanted.map((chunk): HtmlTagDescriptor => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `${base}${chunk.fileName}` },
            injectTo: 'head',
          })),
          ...styles.map((file): HtmlTagDescriptor => ({
            tag: 'link',
            attrs: { rel: 'stylesheet', crossorigin: true, href: `${base}${file}` },
            injectTo: 'head',
          })),
        ];
        return { html: html.replace(script, script.replace(' crossorigin', ' async crossorigin')), tags };
      },
    },
  };
}

/**
 * What the pages other than GraphiQL bundle in place of what their code and libraries import: Preact's compat
 * layer for React (see web/react-on-preact.js: the same components, a sixth of the script), and no Markdown
 * parser for react-jsonschema-form, which would never run (see web/recipient/form/no-markdown.tsx).
 */
const PAGE_ALIASES = [
  { find: /^react$/, replacement: join(WEB_DIR, 'react-on-preact.js') },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/compat/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/compat/jsx-dev-runtime' },
  { find: /^markdown-to-jsx\/react$/, replacement: join(WEB_DIR, 'recipient/form/no-markdown.tsx') },
];

/**
 * The libraries only some pages, or a first use, load (see {@link appChunks}): the drawings' and the passkeys', and
 * Radix's menus and selects, which no signed-in page shows before it is used (the person's menu comes after the
 * first paint: web/shared/app/account-menu.tsx). Their popper and floating-ui stay in the app: Radix Themes'
 * `Theme` provides tooltips with them.
 */
const PAGE_LIBRARIES = new RegExp(
  'node_modules/(@dagrejs/|d3-|@simplewebauthn/|@radix-ui/react-(dropdown-menu|menu|select)/|' +
    '@radix-ui/themes/dist/esm/components/(dropdown-menu|select)(\\.props)?\\.js)',
);

/** The surfaces whose entry starts the opened page's first reads, then imports its app (see {@link preloadApp}). */
const SIGNED_IN: readonly Surface[] = ['console', 'dashboard'];

/**
 * The modules the app (`web/<surface>/mount.tsx`) imports statically, through any depth: what every page of the
 * surface runs before its own chunk. Found once the module graph is built (`buildEnd`), before the chunks are
 * made, which {@link appChunks} reads. A library's index counts every module it re-exports, used or not, so the
 * set tells only of our own modules.
 */
function appGraph(): { plugin: Plugin; modules: Set<string> } {
  const modules = new Set<string>();
  return {
    modules,
    plugin: {
      name: 'portico:app-graph',
      buildEnd() {
        modules.clear();
        const app = [...this.getModuleIds()].find((id) => APP_MODULE.test(id));
        const visit = (id: string) => {
          if (modules.has(id)) return;
          modules.add(id);
          this.getModuleInfo(id)?.importedIds.forEach(visit);
        };
        if (app !== undefined) visit(app);
      },
    },
  };
}

/**
 * The chunks of a signed-in surface (the console, the dashboard): its entry with what it imports to start the
 * opened page's first reads (`web/<surface>/opened-page.ts`, a few KiB), kept apart so that it runs before the app
 * has come (see {@link preloadApp}); then the app in one chunk: what the app imports statically (see
 * {@link appGraph}), the libraries and the shared code, but signing in and the person's account, in a chunk of
 * their own, `accounts`, with the passkeys' library, and the drawings' dagre and d3, which only a transaction's
 * page, a template's and a company's load after their words. Each page is a chunk of its own, which its route
 * loads: a transaction's page or a company's does not load, nor run, the queue's, the team's or signing in's code
 * on a phone (issue 44). Left to itself, the bundler splits what the lazy pages share into a dozen small chunks by
 * which pages use them, each a request (of six at a time over HTTP/1.1) and each compressed apart: 11 KiB more on
 * a transaction's first load than one chunk.
 */
function appChunks(surface: Surface, app: ReadonlySet<string>) {
  const shared = new RegExp(`/web/(shared/|react-on-preact|${surface}/[^/]+\\.tsx?$)|/src/`);
  const entry = new RegExp(
    `/web/(${surface}/(opened-page|api)\\.ts|shared/(app/early-reads|app/drawn-page|contract-client|accounts/api-client|api-error)\\.ts)$`,
  );
  return {
    groups: [
      // First, so that the app's group, which takes what its modules import, leaves them to the entry.
      { name: 'opened', test: entry, priority: 2 },
      {
        name: 'app',
        priority: 1,
        // Not what the captured libraries' modules import: Radix Themes' index imports every component, and its
        // chunk would then import the accounts' chunk.
        includeDependenciesRecursively: false,
        test: (id: string) =>
          /node_modules/.test(id)
            ? !PAGE_LIBRARIES.test(id)
            : app.has(id) ||
              // The new password's fields are the account pages' only; the person's menu comes after the first paint.
              (shared.test(id) &&
                !/\/web\/shared\/(accounts\/|form\/new-password|app\/account-menu\.tsx$)|\/main\.tsx$/.test(
                  id,
                )),
      },
      // Signing in and the person's account (their passkeys, authenticator, sessions; a team's people and single
      // sign-on), one chunk for the pages and dialogs that load it.
      {
        name: 'accounts',
        includeDependenciesRecursively: false,
        test: (id: string) =>
          (/\/web\/shared\/accounts\//.test(id) && !app.has(id)) ||
          /node_modules\/@simplewebauthn\//.test(id),
      },
    ],
  };
}

/** The Vite configuration of one surface, served under {@link surfacePath}. */
export function surfaceConfig(surface: Surface): InlineConfig {
  const graph = appGraph();
  return {
    configFile: false,
    root: join(WEB_DIR, surface),
    base: `${surfacePath(surface)}/`,
    publicDir: false,
    // GraphiQL does not use Radix Themes.
    plugins: [
      react(),
      pageShell(surface),
      preloadApp(),
      graph.plugin,
      ...(surface === 'graphiql' ? [] : [unusedRadixRules()]),
    ],
    resolve: surface === 'graphiql' ? {} : { alias: PAGE_ALIASES },
    // Monaco's language workers use code splitting, which classic (iife) workers cannot.
    worker: { format: 'es' },
    build: {
      outDir: join(WEB_DIST_DIR, surface),
      emptyOutDir: true,
      assetsDir: 'assets',
      // GraphiQL's Monaco editor is a few megabytes; it is served from this origin with an immutable cache.
      chunkSizeWarningLimit: 5000,
      // The chunks and style sheets of each page, by its module, for the server to link from a page it draws
      // (src/http/drawing/page-drawing.ts); in `.vite/`, beside the page, not under the served `assets/`.
      manifest: SIGNED_IN.includes(surface),
      reportCompressedSize: false,
      rolldownOptions: {
        ...(SIGNED_IN.includes(surface)
          ? { output: { codeSplitting: appChunks(surface, graph.modules) } }
          : {}),
        onLog(level, log, handler) {
          // GraphiQL's React Compiler output marks modules "use no memo", which bundling drops harmlessly.
          if (log.code === 'MODULE_LEVEL_DIRECTIVE') return;
          handler(level, log);
        },
      },
    },
    server: {
      // `PORTICO_WEB_SURFACE=dashboard npx vite -c web/vite.config.ts` serves a surface with hot reload; its API
      // calls go to `npm start`.
      proxy: {
        '/beta': { target: 'https://localhost:4000', secure: false },
        '/dashboard/api': { target: 'https://localhost:4001', secure: false },
        '/console/api': { target: 'https://localhost:4000', secure: false },
        '/key-delivery/api': { target: 'https://localhost:4000', secure: false },
        '/recipient': { target: 'https://localhost:4000', secure: false },
      },
    },
  };
}

/**
 * The surfaces whose pages the server draws (web/shared/app/draw.tsx), and where each one's drawing module is
 * built: `web/dist/<surface>/drawing/draw.js`, beside the page and outside its served `assets/`.
 */
export const DRAWN: readonly Surface[] = SIGNED_IN;

/**
 * The Vite configuration of a surface's drawing module (`web/<surface>/draw.tsx`), built for Node after the
 * surface itself (whose build empties its folder): one file with every library in it, on Preact as the page is.
 */
export function drawingConfig(surface: Surface): InlineConfig {
  return {
    configFile: false,
    root: join(WEB_DIR, surface),
    base: `${surfacePath(surface)}/`,
    publicDir: false,
    plugins: [react()],
    resolve: { alias: PAGE_ALIASES },
    ssr: { noExternal: true, target: 'node' },
    build: {
      ssr: join(WEB_DIR, surface, 'draw.tsx'),
      outDir: join(WEB_DIST_DIR, surface, 'drawing'),
      emptyOutDir: true,
      reportCompressedSize: false,
      rolldownOptions: { output: { codeSplitting: false, entryFileNames: 'draw.js' } },
    },
  };
}

const devSurface = SURFACES.find((name) => name === process.env.PORTICO_WEB_SURFACE) ?? 'graphiql';
export default defineConfig(surfaceConfig(devSurface));
