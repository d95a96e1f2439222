import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.ts';

describe('CHANGELOG.md', () => {
  it('names every migration, so that an operator reads each schema change before an upgrade', async () => {
    const changelog = await readFile(join(ROOT, 'CHANGELOG.md'), 'utf8');
    const migrations = (await readdir(join(ROOT, 'src/db/migrations')))
      .filter((name) => name.endsWith('.sql'))
      .map((name) => name.replace(/\.sql$/, ''));
    expect(migrations.length).toBeGreaterThan(20);
    expect(migrations.filter((name) => !changelog.includes(`\`${name}\``))).toEqual([]);
  });
});
