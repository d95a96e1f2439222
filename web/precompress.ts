import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const gzipped = promisify(gzip);
const brotlied = promisify(brotliCompress);

/**
 * Writes `<asset>.br` and `<asset>.gz` beside every file of `dir`, all at once, for a server to send to browsers
 * that accept them (`@fastify/static`'s `preCompressed`): brotli comes to a quarter of a script's bytes and a
 * sixth of a style sheet's, gzip to a third. Brotli's best quality (11, the default) takes a second per
 * 200 KiB; quality 9 a twentieth of that for 8% more bytes.
 */
export async function writeCompressedCopies(
  dir: string,
  brotliQuality: number = constants.BROTLI_MAX_QUALITY,
): Promise<void> {
  const names = await readdir(dir);
  await Promise.all(
    names.map(async (name) => {
      const file = join(dir, name);
      const bytes = await readFile(file);
      const [gz, br] = await Promise.all([
        gzipped(bytes, { level: 9 }),
        brotlied(bytes, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: brotliQuality,
            [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
          },
        }),
      ]);
      await Promise.all([writeFile(`${file}.gz`, gz), writeFile(`${file}.br`, br)]);
    }),
  );
}
