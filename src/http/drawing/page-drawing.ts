import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { DEFAULT_WEB_DIST_DIR } from '../web-pages.ts';
import type { DrawRequest } from './drawing-contract.ts';

export type { DrawRequest, Reader } from './drawing-contract.ts';

/** A page to draw in a thread: the surface's drawing module, and the page; without a page, the module is loaded. */
export interface DrawTask {
  module: string;
  request?: DrawRequest | undefined;
}

/**
 * The threads that draw signed-in pages to HTML (web/shared/app/draw.tsx), off the event loop: a page of a large
 * transaction takes milliseconds of CPU, and a burst of page loads would otherwise hold every request of the
 * process. Drawing is an improvement, never a condition: a page that is not drawn within {@link DRAW_WAIT_MS}, a
 * queue that is full, a thread that failed, and the page goes out as the browser draws it.
 */
export interface PageDrawer {
  /**
   * The page's HTML drawn by a surface's drawing module (see {@link drawingModule}), or undefined when it could
   * not be drawn in time (the page is then sent undrawn).
   */
  draw(module: string, request: DrawRequest): Promise<string | undefined>;
  /** Starts the thread and loads these drawing modules now, out of the first page's way (`serve` calls it). */
  start(modules: readonly string[]): void;
  /** Ends the thread, and the drawings in it (their pages go out undrawn); a drawing after it starts another. */
  close(): Promise<void>;
}

/**
 * How long a page waits for its drawing before it is sent undrawn: a phone waits 150 ms or more for each round
 * trip, and a page is drawn in a few milliseconds. A drawing that takes longer still ends (and warms its thread)
 * unless it passes {@link DRAW_LIMIT_MS}.
 */
export const DRAW_WAIT_MS = 250;
/**
 * How long the first page of a drawing module waits for its drawing: the thread loads the page's parts and runs
 * its code for the first time (about 200 ms here, more on a busy machine), and a page sent undrawn reaches its
 * first paint a second later on a phone than a drawn one. Later pages wait {@link DRAW_WAIT_MS}.
 */
export const FIRST_DRAW_WAIT_MS = 1000;
/** How long a drawing may run at most, before its thread is terminated and replaced. */
export const DRAW_LIMIT_MS = 10_000;
/** Drawings that wait for the thread at most; past them, pages are sent undrawn. */
export const DRAW_QUEUE_LIMIT = 16;
/** The heap of the drawing thread: a page's answers are bounded by its routes, its HTML by them. */
const DRAW_HEAP_MB = 128;

const WORKER = fileURLToPath(new URL('./page-drawing-worker.ts', import.meta.url));

/**
 * Where `npm run build:web` writes a surface's drawing module (web/<surface>/draw.tsx), if it did: a front end
 * built before pages were drawn has none.
 */
export function drawingModule(distDir: string, surface: string): string | undefined {
  const module = join(distDir, surface, 'drawing', 'draw.js');
  return existsSync(module) ? module : undefined;
}

/** A page drawer of one thread (see {@link PageDrawer}); its thread starts with the first drawing or `start`. */
export function createPageDrawer(
  options: { waitMs?: number; firstWaitMs?: number; limitMs?: number; queueLimit?: number } = {},
): PageDrawer {
  const waitMs = options.waitMs ?? DRAW_WAIT_MS;
  const firstWaitMs = Math.max(options.firstWaitMs ?? FIRST_DRAW_WAIT_MS, waitMs);
  /** The modules that drew a page already: their thread has their parts. */
  const drawn = new Set<string>();
  const limitMs = options.limitMs ?? DRAW_LIMIT_MS;
  const queueLimit = options.queueLimit ?? DRAW_QUEUE_LIMIT;
  let pool: Piscina<DrawTask, string | undefined> | undefined;
  const poolOf = () =>
    (pool ??= new Piscina<DrawTask, string | undefined>({
      filename: WORKER,
      minThreads: 1,
      maxThreads: 1,
      maxQueue: queueLimit,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: DRAW_HEAP_MB },
    }));
  const run = (task: DrawTask) => poolOf().run(task, { signal: AbortSignal.timeout(limitMs) });

  return {
    async draw(module, request) {
      if (pool && pool.queueSize >= queueLimit) return undefined;
      // A drawing that failed, or ends after the page went out undrawn, is dropped.
      const drawing = run({ module, request }).then(
        (html) => {
          drawn.add(module);
          return html;
        },
        () => undefined,
      );
      const waited = new AbortController();
      const patience = drawn.has(module) ? waitMs : firstWaitMs;
      const late = sleep(patience, undefined, { signal: waited.signal }).catch(() => undefined);
      try {
        return await Promise.race([drawing, late]);
      } finally {
        waited.abort();
      }
    },
    start(modules) {
      for (const module of modules) run({ module }).catch(() => undefined);
    },
    async close() {
      const closing = pool;
      pool = undefined;
      drawn.clear();
      await closing?.close({ force: true });
    },
  };
}

let shared: PageDrawer | undefined;

/** The process's page drawer, made on first use. Idle threads do not keep a process alive. */
export function pageDrawer(): PageDrawer {
  shared ??= createPageDrawer();
  return shared;
}

/** The surfaces whose pages the server draws, by the service that serves them. */
const DRAWN_SURFACES = { transactions: ['console'], portfolio: ['dashboard'] } as const;

/**
 * Starts the process's page drawer for the surfaces of the services `portico serve` runs (`only` one, or both),
 * with the front end this checkout built; answers what closes it.
 */
export function startPageDrawing(only?: keyof typeof DRAWN_SURFACES): () => Promise<void> {
  const drawer = pageDrawer();
  const surfaces = only ? DRAWN_SURFACES[only] : Object.values(DRAWN_SURFACES).flat();
  drawer.start(surfaces.flatMap((surface) => drawingModule(DEFAULT_WEB_DIST_DIR, surface) ?? []));
  return () => drawer.close();
}
