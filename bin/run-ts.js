#!/usr/bin/env node
// Runs a TypeScript file given as the first argument (used by `npm run bench`).
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [file] = process.argv.splice(2, 1);
if (!file) {
  console.error('usage: run-ts.js <file.ts> [args…]');
  process.exit(2);
}
register();
await import(pathToFileURL(resolve(file)).href);
