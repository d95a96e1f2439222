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

/** The largest number of files a folder of src/ or web/ holds at its root before it wants sub-folders. */
const MOST_FILES_IN_A_FOLDER = 16;
/** The longest a file of src/ or web/ may be without saying at its top why it stays one file. */
const MOST_LINES = 400;
/** What a long file says at its top (in its first 30 lines) to say why it stays one file. */
const REASON = /Kept as one file:/;

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

  it(`keeps at most ${MOST_FILES_IN_A_FOLDER} files at the root of each folder of src/ and web/`, async () => {
    const crowded: string[] = [];
    for (const top of ['src', 'web']) {
      const { files, folders } = await walk(top);
      for (const folder of folders) {
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
});
