// `npm run build:web` (run by `npm install` through the `prepare` script): builds every surface of the front
// end into web/dist, one after the other (two cores; each build already uses both), and writes a brotli and a
// gzip copy next to each asset for the services to send to browsers that accept them (web/precompress.ts).
// `npm run build:web -- recipient dashboard` builds only the surfaces named.
import { join } from 'node:path';
import { build } from 'vite';
import { writeCompressedCopies } from './precompress.ts';
import { DRAWN, SURFACES, WEB_DIST_DIR, drawingConfig, surfaceConfig, type Surface } from './vite.config.ts';

/**
 * Brotli's best quality for the pages people open on a phone; quality 9 for GraphiQL's seven megabytes of
 * editor, a developer's tool cached after its first load (a twentieth of the time for 8% more bytes).
 */
function brotliQuality(surface: Surface): number | undefined {
  return surface === 'graphiql' ? 9 : undefined;
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
// A surface's copies are compressed (on libuv's threads) while the next surface builds: 9.3 s → 7.7 s on two cores.
const compressing: Promise<void>[] = [];
for (const surface of chosen) {
  await build({ ...surfaceConfig(surface), logLevel: 'warn' });
  if (DRAWN.includes(surface)) await build({ ...drawingConfig(surface), logLevel: 'warn' });
  compressing.push(writeCompressedCopies(join(WEB_DIST_DIR, surface, 'assets'), brotliQuality(surface)));
}
await Promise.all(compressing);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(`web: built ${chosen.join(', ')} into ${WEB_DIST_DIR} in ${seconds}s\n`);
