// The entry of a page-drawing thread (page-drawing.ts). Node loads it as it is written (type stripping: keep this
// file to erasable syntax), under Vitest, under tsx and from the start bundle. It imports each surface's drawing
// module, built by `npm run build:web` (web/dist/<surface>/drawing/draw.js), once, and draws one page at a time.
import { pathToFileURL } from 'node:url';
import type { DrawTask } from './page-drawing.ts';

/** What a surface's drawing module exports (web/<surface>/draw.tsx). */
interface DrawingModule {
  draw(request: DrawTask['request']): Promise<string>;
}

const modules = new Map<string, Promise<DrawingModule>>();

/** Piscina calls the default export with each task: the page's HTML, or the module loaded alone (`warm`). */
export default async function draw(task: DrawTask): Promise<string | undefined> {
  let loading = modules.get(task.module);
  if (loading === undefined) {
    loading = import(pathToFileURL(task.module).href) as Promise<DrawingModule>;
    modules.set(task.module, loading);
  }
  const drawing = await loading;
  return task.request === undefined ? undefined : drawing.draw(task.request);
}
