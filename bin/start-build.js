// The compiled start: `npm install` (prepare) bundles src/ once with esbuild, so that `portico` does not
// compile TypeScript at every start. bin/portico.js runs the build only while it is fresh — built here, after
// the last change to any source file it holds — and falls back to tsx on the sources otherwise.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Under node_modules, so that a clone never carries it and every tool already ignores it. */
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'portico');
/**
 * One per checkout, so that checkouts sharing one node_modules (git worktrees, a copy of the tree beside it) do
 * not replace each other's build.
 */
export const BUILD_DIR = join(
  CACHE_DIR,
  `build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}`,
);
/**
 * V8's code cache of every module a start loads (Node's `module.enableCompileCache`): its entries are keyed by
 * each file's path and content, so checkouts and builds can share it, and a changed file is compiled again.
 */
export const COMPILE_CACHE_DIR = join(CACHE_DIR, 'compile');
const STAMP = join(BUILD_DIR, 'stamp.json');
const ENTRY = join(BUILD_DIR, 'main.mjs');

/**
 * The build's entry as a file URL when it is fresh, else undefined: there is none, it was made for another
 * checkout, or a source file it holds was changed or removed since it was made.
 */
export function freshBuildEntry() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
    if (stamp.root !== ROOT || !Array.isArray(stamp.inputs)) return undefined;
    statSync(ENTRY);
    for (const input of stamp.inputs) {
      if (statSync(join(ROOT, input)).mtimeMs >= stamp.startedAt) return undefined;
    }
  } catch {
    return undefined;
  }
  return pathToFileURL(ENTRY).href;
}

/**
 * Bundles src/main.ts into BUILD_DIR (packages stay imports of node_modules). Each source's `import.meta.url`
 * keeps naming the source file, so that what the sources read next to themselves (schema.graphql, the
 * migrations, web/dist, the example templates) is read from the checkout, never copied.
 *
 * @returns false when esbuild is not installed (the start then runs the sources through tsx)
 */
export async function buildForStart() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return false;
  }
  // Taken before any source is read: a change made while building makes the build stale.
  const startedAt = Date.now();
  await rm(BUILD_DIR, { recursive: true, force: true });
  await mkdir(BUILD_DIR, { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['src/main.ts'],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    keepNames: true,
    // Stack traces name the sources' files and lines (bin/portico.js turns source maps on for the build).
    sourcemap: 'linked',
    sourcesContent: false,
    outdir: BUILD_DIR,
    outExtension: { '.js': '.mjs' },
    metafile: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'source-import-meta-url',
        setup(build) {
          build.onLoad({ filter: /\.ts$/ }, async (args) => {
            const source = await readFile(args.path, 'utf8');
            const url = JSON.stringify(pathToFileURL(args.path).href);
            return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
          });
        },
      },
    ],
  });
  const inputs = Object.keys(result.metafile.inputs);
  await writeFile(STAMP, `${JSON.stringify({ root: ROOT, startedAt, inputs })}\n`);
  return true;
}
