#!/usr/bin/env node
// `npm run build:start` (run by prepare): compiles the sources for bin/portico.js and writes the snapshot a
// fresh embedded database starts from (see writeStartSnapshot in src/db/open-database.ts).
import { register } from 'tsx/esm/api';
import { buildForStart } from './start-build.js';

if (!(await buildForStart())) {
  console.warn('esbuild is not installed: `portico` will compile the TypeScript sources at each start.');
}
register();
const { writeStartSnapshot } = await import('../src/db/open-database.ts');
await writeStartSnapshot();
