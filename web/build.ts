// `npm run build:web` (run by `npm install` through the `prepare` script): builds every surface of the front
// end into web/dist, one after the other (two cores; each build already uses both), then writes a gzip copy
// next to each asset for the services to send to browsers that accept it (a third of the bytes).
// `npm run build:web -- recipient dashboard` builds only the surfaces named.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { build } from 'vite';
import { SURFACES, WEB_DIST_DIR, surfaceConfig, type Surface } from './vite.config.ts';

const gzipped = promisify(gzip);

async function writeGzipCopies(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const file = join(dir, name);
    await writeFile(`${file}.gz`, await gzipped(await readFile(file), { level: 9 }));
  }
}

const named = process.argv.slice(2);
const unknown = named.filter((name) => !SURFACES.some((surface) => surface === name));
if (unknown.length > 0) {
  process.stderr.write(
    `web: no surface named ${unknown.join(', ')}; the surfaces are ${SURFACES.join(', ')}\n`,
  );
  process.exit(1);
}
const chosen: readonly Surface[] =
  named.length === 0 ? SURFACES : SURFACES.filter((surface) => named.includes(surface));

const started = Date.now();
for (const surface of chosen) {
  await build({ ...surfaceConfig(surface), logLevel: 'warn' });
  await writeGzipCopies(join(WEB_DIST_DIR, surface, 'assets'));
}
const seconds = ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(`web: built ${chosen.join(', ')} into ${WEB_DIST_DIR} in ${seconds}s\n`);
