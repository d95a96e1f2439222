// The compiled start: `npm install` (prepare) bundles src/ and the packages it uses once with esbuild, so that
// `portico` neither compiles TypeScript nor reads a thousand files of node_modules at every start. bin/portico.js
// runs the build only while it is fresh — built here, after the last change to any source file it holds and to
// the installed packages — and falls back to tsx on the sources otherwise.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
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
 * What npm rewrites at the end of every install that changes node_modules. The build holds thousands of files
 * of packages; statting them all at every start would cost more than bundling them saves, and their times say
 * nothing anyway (npm extracts every file with the same old date). This one file stands for them all.
 */
const INSTALLED_PACKAGES = 'node_modules/.package-lock.json';

/**
 * Packages left as imports of node_modules, each for what bundling would break: code that finds files next to
 * itself would look for them in BUILD_DIR.
 */
const EXTERNAL_PACKAGES = [
  // Reads its WebAssembly and data files next to itself (and src/db reads them from node_modules too).
  '@electric-sql/pglite',
  // Loads a native addon.
  '@node-rs/argon2',
  // Starts its worker threads from a file of its own.
  'piscina',
  // pino starts its transports in worker threads, from files of its own and thread-stream's.
  'pino',
  'thread-stream',
  // Reads its package.json next to itself, for the client's name it gives Redis.
  'ioredis',
];

/**
 * Bundled packages whose code names its own location, each read and found harmless here. A bundled package that
 * does so and is not listed fails the build: add it to EXTERNAL_PACKAGES, or here once read.
 */
const HARMLESS_LOCATION_USES = {
  commander: 'only in comments',
  mercurius: 'only in its GraphiQL route, which Portico turns off (graphiql: false)',
  qlobber: 'only in a comment',
};
/** What in a package's code refers to where the file is: each would name BUILD_DIR once bundled. */
const OWN_LOCATION = /\b(?:__dirname|__filename|import\.meta\.url|require\.resolve)\b|\bnew Worker\(/;

/** The package a file of node_modules belongs to (the innermost, for nested node_modules). */
function packageOf(path) {
  const parts = path.split(/[\\/]node_modules[\\/]/);
  if (parts.length < 2) return undefined;
  const names = parts.at(-1)?.split(/[\\/]/) ?? [];
  return names[0]?.startsWith('@') ? `${names[0]}/${names[1]}` : names[0];
}
/** Marks the resolutions the imported-packages plugin asks esbuild for, so that it does not answer them itself. */
const SELF = Symbol('imported-packages');

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
    // Sources only, and the one file that says the packages changed: a few hundred stats (INSTALLED_PACKAGES).
    for (const input of stamp.inputs) {
      if (statSync(join(ROOT, input)).mtimeMs >= stamp.startedAt) return undefined;
    }
  } catch {
    return undefined;
  }
  return pathToFileURL(ENTRY).href;
}

/**
 * Bundles src/main.ts and the packages it uses into BUILD_DIR, except EXTERNAL_PACKAGES. Each source's
 * `import.meta.url` keeps naming the source file, so that what the sources read next to themselves
 * (schema.graphql, the migrations, web/dist, the example templates) is read from the checkout, never copied.
 *
 * A package that is `import()`ed (by a source or by a package) stays an import of node_modules: it is loaded by
 * its first use as before, by Node, with the named exports Node gives a CommonJS package (a bundled one would
 * give only its default). A package also imported statically is then left out of the bundle altogether, so that
 * the process never holds two copies of it.
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
  let external = EXTERNAL_PACKAGES;
  let built = await bundle(esbuild, external);
  const twice = [...built.imported].filter((name) => built.bundled.has(name));
  if (twice.length > 0) {
    external = [...external, ...twice];
    built = await bundle(esbuild, external);
  }
  const located = [...built.located].filter((name) => built.bundled.has(name));
  if (located.length > 0) {
    throw new Error(
      `${located.join(', ')}: code that refers to its own location, which would be BUILD_DIR once bundled. Add each to EXTERNAL_PACKAGES or, once read and found harmless, to HARMLESS_LOCATION_USES in bin/start-build.js.`,
    );
  }
  const sources = Object.keys(built.metafile.inputs).filter((input) => !/(^|\/)node_modules\//.test(input));
  const inputs = existsSync(join(ROOT, INSTALLED_PACKAGES)) ? [...sources, INSTALLED_PACKAGES] : sources;
  await writeFile(STAMP, `${JSON.stringify({ root: ROOT, startedAt, inputs, external })}\n`);
  return true;
}

/**
 * One esbuild run into a fresh BUILD_DIR, with `external` left as imports.
 *
 * @returns its metafile, the packages it bundled, those `import()`ed (left as imports), and those whose code
 *   refers to its own location
 */
async function bundle(esbuild, external) {
  await rm(BUILD_DIR, { recursive: true, force: true });
  await mkdir(BUILD_DIR, { recursive: true });
  // Node finds a module by its real path, and so reads the source maps' relative paths from there: where
  // node_modules is a link (a git worktree sharing another checkout's), they must be written from there too.
  const outdir = realpathSync(BUILD_DIR);
  /** @type {Set<string>} */
  const imported = new Set();
  /** @type {Set<string>} */
  const located = new Set();
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ['src/main.ts'],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external,
    // Bundled CommonJS packages `require` Node's modules and the external packages: give each chunk a require
    // that resolves from BUILD_DIR, which finds node_modules above it. No __dirname or __filename: a package
    // that read them would fail loudly rather than look in BUILD_DIR (and the build refuses such packages).
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    // Not `keepNames`: it wraps every function the bundle makes in a call that redefines its name, closures made
    // per request included, which cost the served read 5–8% of its CPU once the packages were bundled (2% before,
    // for src/ alone: bench/RESULTS.md, 2026-11-29). Portico reads no function's name, and Fastify's plugins
    // carry names of their own; the few functions a clash renames (typebox's `FromUnion2`) say so only in a
    // stack trace, whose frames the source maps name anyway.
    // Stack traces name the sources' files and lines (bin/portico.js turns source maps on for the build).
    sourcemap: 'linked',
    sourcesContent: false,
    outdir,
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
      {
        name: 'imported-packages',
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, async (args) => {
            if (args.kind !== 'dynamic-import' || args.path.startsWith('node:') || args.pluginData === SELF) {
              return undefined;
            }
            const name = packageOf(`/node_modules/${args.path}`);
            if (name === undefined) return undefined;
            imported.add(name);
            // Node resolves the import from BUILD_DIR, so from the top-level node_modules: where the importer
            // has a copy of its own, name that file instead.
            const resolved = await build.resolve(args.path, {
              kind: args.kind,
              importer: args.importer,
              resolveDir: args.resolveDir,
              pluginData: SELF,
            });
            const own =
              !resolved.external &&
              resolved.errors.length === 0 &&
              !resolved.path.startsWith(join(realpathSync(join(ROOT, 'node_modules')), name, sep));
            return { path: own ? pathToFileURL(resolved.path).href : args.path, external: true };
          });
        },
      },
      {
        name: 'checked-location',
        setup(build) {
          build.onLoad({ filter: /[\\/]node_modules[\\/].*\.[cm]?js$/ }, async (args) => {
            const name = packageOf(args.path);
            if (name !== undefined && !(name in HARMLESS_LOCATION_USES)) {
              if (OWN_LOCATION.test(await readFile(args.path, 'utf8'))) located.add(name);
            }
            // Loaded as esbuild would have.
            return undefined;
          });
        },
      },
    ],
  });
  const bundled = new Set(
    Object.keys(result.metafile.inputs)
      .map((input) => packageOf(input))
      .filter((name) => name !== undefined),
  );
  return { metafile: result.metafile, bundled, imported, located };
}
