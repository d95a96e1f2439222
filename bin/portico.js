#!/usr/bin/env node
// Runs the build `npm install` made (bin/start-build.js) while it is fresh; otherwise the TypeScript sources
// directly through tsx, so that a changed source always runs as written.
import { setFlagsFromString } from 'node:v8';
import { enableCompileCache } from 'node:module';
import { COMPILE_CACHE_DIR, freshBuildEntry } from './start-build.js';

// PGlite runs PostgreSQL as WebAssembly, and V8 compiles each function again, optimised, once it has run for
// its "tiering budget". PostgreSQL's start-up code runs long enough once to spend it, so with the default
// budget a start spent about 0.3 s of CPU optimising code that never runs again. Ten times the budget leaves
// start-up code to the baseline compiler; functions that keep running (queries) are optimised in their first
// seconds all the same. Set before anything is compiled, as the flag is read when a module is.
setFlagsFromString('--wasm-tiering-budget=18000000');

// V8's code cache on disk of the modules a start loads (the build's chunks, the packages left out of it; about
// 3,000 modules under tsx) spares compiling them all again: a fifth of the start's main-thread CPU, measured
// before the packages were bundled. Node writes what it compiled on exit, and
// `portico serve` once it listens (cli/serve.ts). A cache that cannot be written (a read-only install) is only
// slower; NODE_DISABLE_COMPILE_CACHE=1 turns it off, NODE_COMPILE_CACHE=<dir> puts it elsewhere.
enableCompileCache(COMPILE_CACHE_DIR);

const built = freshBuildEntry();
if (built === undefined) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
} else {
  // Stack traces in logs name src/*.ts and their lines, as under tsx: the build's maps hold no sources, only
  // mappings. Measured: start-up unchanged within noise, about 3 µs more for an error whose stack is read.
  process.setSourceMapsEnabled(true);
  await import(built);
}
