// `npm run build:web` (run by `npm install` through the `prepare` script): builds every surface of the front
// end into web/dist, one after the other (two cores; each build already uses both), then writes a brotli and a
// gzip copy next to each asset for the services to send to browsers that accept them (brotli: a quarter of the
// bytes for scripts, a sixth for style sheets; gzip a third).
// `npm run build:web -- recipient dashboard` builds only the surfaces named.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { build } from 'vite';
import { SURFACES, WEB_DIST_DIR, surfaceConfig, type Surface } from './vite.config.ts';

const gzipped = promisify(gzip);
const brotlied = promisify(brotliCompress);

/**
 * Brotli's best quality (11) takes a second per 200 KiB: worth it for the pages people open on a phone. For
 * GraphiQL's seven megabytes of editor, a developer's tool cached after its first load, quality 9 takes a
 * twentieth of the time for 8% more bytes.
 */
function brotliQuality(surface: Surface): number {
  return surface === 'graphiql' ? 9 : constants.BROTLI_MAX_QUALITY;
}

/** Writes `<asset>.br` and `<asset>.gz` beside every asset, all at once. */
async function writeCompressedCopies(dir: string, brotliLevel: number): Promise<void> {
  const names = await readdir(dir);
  await Promise.all(
    names.map(async (name) => {
      const file = join(dir, name);
      const bytes = await readFile(file);
      await Promise.all([
        writeFile(`${file}.gz`, await gzipped(bytes, { level: 9 })),
        writeFile(
          `${file}.br`,
          await brotlied(bytes, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: brotliLevel,
              [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
            },
          }),
        ),
      ]);
    }),
  );
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
  await writeCompressedCopies(join(WEB_DIST_DIR, surface, 'assets'), brotliQuality(surface));
}
const seconds = ((Date.now() - started) / 1000).toFixed(1);
process.stdout.write(`web: built ${chosen.join(', ')} into ${WEB_DIST_DIR} in ${seconds}s\n`);
