#!/usr/bin/env node
// Runs the build `npm install` made (bin/start-build.js) while it is fresh; otherwise the TypeScript sources
// directly through tsx, so that a changed source always runs as written.
import { freshBuildEntry } from './start-build.js';

const built = freshBuildEntry();
if (built === undefined) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
} else {
  await import(built);
}
