import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.ts';

/** The files and folders under `dir` (relative to the checkout), leaving out built and generated ones. */
async function walk(dir: string): Promise<{ files: string[]; folders: string[] }> {
  const files: string[] = [];
  const folders: string[] = [dir];
  for (const entry of await readdir(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (['dist', 'node_modules', 'screenshots'].includes(entry.name)) continue;
    if (entry.isDirectory()) {
      const inner = await walk(path);
      files.push(...inner.files);
      folders.push(...inner.folders);
    } else files.push(path);
  }
  return { files, folders };
}

const exists = (path: string) =>
  stat(join(ROOT, path)).then(
    () => true,
    () => false,
  );

/** The largest number of files a folder of src/, web/ or test/ holds at its root before it wants sub-folders. */
const MOST_FILES_IN_A_FOLDER = 16;
/**
 * Folders that are lists, not code to find one's way in: the migrations (one file per schema change) and the
 * test data files.
 */
const ORDERED_LISTS = ['src/db/migrations', 'test/fixtures/portfolio'];
/** The longest a file of src/ or web/ may be without saying at its top why it stays one file. */
const MOST_LINES = 400;
/** What a long file says at its top (in its first 30 lines) to say why it stays one file. */
const REASON = /Kept as one file:/;

/** The imports of each file of src/ (type-only ones too), as paths relative to the checkout. */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const file of (await walk('src')).files.filter((path) => path.endsWith('.ts'))) {
    const text = await readFile(join(ROOT, file), 'utf8');
    const targets = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+\.ts)'/g)].map((match) =>
      join(dirname(file), match[1] ?? ''),
    );
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Each circle of imports once, as the files around it, starting from its first file in sorted order. */
function circles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>();
  const visit = (file: string, path: string[]) => {
    for (const next of graph.get(file) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) {
        const circle = path.slice(at);
        const start = circle.indexOf([...circle].sort()[0] ?? '');
        const turned = [...circle.slice(start), ...circle.slice(0, start)];
        found.set(turned.join(' → '), turned);
      } else if (path.length < 12) visit(next, [...path, next]);
    }
  };
  for (const file of graph.keys()) visit(file, [file]);
  return [...found.values()];
}

/**
 * The layers of src/, lowest first: a file may import its own layer's files and lower ones, never a higher one.
 * The shared layer serves both services; the domains hold them; the top runs them (the CLI, its operations, the
 * demo, the process).
 */
const LAYERS: { name: string; holds: (file: string) => boolean }[] = [
  {
    name: 'shared',
    holds: (file) =>
      /^src\/(config|errors|logger)\.ts$/.test(file) ||
      /^src\/(db|http|keys|files|mail|validation|accounts|observability|jobs)\//.test(file),
  },
  { name: 'domain', holds: (file) => /^src\/(transactions|portfolio|webhooks)\//.test(file) },
  { name: 'top', holds: () => true },
];
const layerOf = (file: string) => LAYERS.findIndex((layer) => layer.holds(file));

describe('the shape of the code, as docs/architecture.md draws it', () => {
  it('names only files and folders that exist', async () => {
    const text = await readFile(join(ROOT, 'docs/architecture.md'), 'utf8');
    const named = [
      ...new Set(
        [...text.matchAll(/`((?:src|web|test|docs|bench|scripts|templates)\/[^`\s]*)`/g)]
          .map((match) => match[1] ?? '')
          .filter((path) => !/[<*]/.test(path)),
      ),
    ];
    expect(named.length).toBeGreaterThan(30);
    const missing = [];
    for (const path of named) if (!(await exists(path.replace(/\/$/, '')))) missing.push(path);
    expect(missing).toEqual([]);
  });

  it("carries no merge conflict's markers in its docs, sources, tests or scripts", async () => {
    // Built from parts, so that this file does not match itself. Prettier turns a Markdown line of `>>>>>>>` into
    // nested quotes (`> > > …`), and a marker inside a table into a row (`| <<<<<<< …`).
    const marker = new RegExp(
      `^(\\| )?(${'<'.repeat(7)}|${'>'.repeat(7)}|${'='.repeat(7)}( |$)|${'> '.repeat(6)}>)`,
      'm',
    );
    const files = ['README.md', 'CHANGELOG.md', 'vitest.config.ts', 'eslint.config.js', '.ci/run'];
    for (const top of ['docs', 'src', 'web', 'test', 'bench', 'scripts', 'bin']) {
      files.push(
        ...(await walk(top)).files.filter((path) => /\.(ts|tsx|js|md|sql|css|html|yaml|conf)$/.test(path)),
      );
    }
    const marked = [];
    for (const file of files) if (marker.test(await readFile(join(ROOT, file), 'utf8'))) marked.push(file);
    expect(files.length).toBeGreaterThan(300);
    expect(marked).toEqual([]);
  });

  it(`keeps at most ${MOST_FILES_IN_A_FOLDER} files at the root of each folder of src/, web/ and test/`, async () => {
    const crowded: string[] = [];
    for (const top of ['src', 'web', 'test']) {
      const { files, folders } = await walk(top);
      for (const folder of folders.filter((each) => !ORDERED_LISTS.includes(each))) {
        const count = files.filter((file) => dirname(file) === folder).length;
        if (count > MOST_FILES_IN_A_FOLDER) crowded.push(`${folder}: ${count} files`);
      }
    }
    expect(crowded).toEqual([]);
  });

  it(`says at the top of each file of src/ and web/ over ${MOST_LINES} lines why it stays one file`, async () => {
    const unexplained: string[] = [];
    for (const top of ['src', 'web']) {
      for (const file of (await walk(top)).files.filter((path) => /\.(ts|tsx)$/.test(path))) {
        const lines = (await readFile(join(ROOT, file), 'utf8')).split('\n');
        if (lines.length > MOST_LINES && !REASON.test(lines.slice(0, 30).join('\n'))) {
          unexplained.push(`${file}: ${lines.length} lines`);
        }
      }
    }
    expect(unexplained).toEqual([]);
  });

  it("imports no other surface's files from a surface of web/: what two share lives in web/shared/", async () => {
    const surfaces = (await readdir(join(ROOT, 'web'), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() && !['dist', 'shared', 'node_modules'].includes(entry.name))
      .map((entry) => entry.name);
    expect(surfaces.length).toBeGreaterThan(3);
    const crossing: string[] = [];
    for (const surface of surfaces) {
      for (const file of (await walk(`web/${surface}`)).files.filter((path) => /\.(ts|tsx)$/.test(path))) {
        const text = await readFile(join(ROOT, file), 'utf8');
        for (const [, target = ''] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
          const [top, other] = join(dirname(file), target).split('/');
          if (top === 'web' && other !== surface && other !== 'shared') crossing.push(`${file} → ${target}`);
        }
      }
    }
    expect(crossing).toEqual([]);
  });

  it('has no circle of imports in src/, type-only imports included', async () => {
    expect(circles(await importGraph()).map((circle) => circle.join(' → '))).toEqual([]);
  });

  it('imports only down its layers: the shared layer nothing of a service, a service nothing of the CLI', async () => {
    const upward: string[] = [];
    for (const [file, targets] of await importGraph()) {
      for (const target of targets) {
        if (layerOf(target) > layerOf(file)) upward.push(`${file} → ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });
});
