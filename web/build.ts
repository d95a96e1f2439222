// `npm run build:web` (run by `npm install` through the `prepare` script): builds every surface of the front
// end into web/dist, one after the other (two cores; each build already uses both), then writes a gzip copy
// next to each asset for the services to send to browsers that accept it (a third of the bytes).
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { build } from 'vite';
import { SURFACES, WEB_DIST_DIR, surfaceConfig } from './vite.config.ts';

const gzipped = promisify(gzip);

async function writeGzipCopies(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const file = join(dir, name);
    await writeFile(`${file}.gz`, await gzipped(await readFile(file), { level: 9 }));
  }
}

const started = Date.now();
for (const surface of SURFACES) {
  await build({ ...surfaceConfig(surface), logLevel: 'warn' });
  await writeGzipCopies(join(WEB_DIST_DIR, surface, 'assets'));
}
const seconds = ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(`web: built ${SURFACES.join(', ')} into ${WEB_DIST_DIR} in ${seconds}s\n`);
