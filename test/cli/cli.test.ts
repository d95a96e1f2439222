// The `portico` command run in-process (see `runPortico`): its version and help, and its
// commands on an embedded database in a data dir that no server holds. Through a running `portico serve`, and
// as a process of its own, see served.test.ts.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config.ts';
import { lockPath } from '../../src/db/data-dir-lock.ts';
import { PORTS, runPortico } from '../support/cli.ts';
import { seedEmbeddedDatabase } from '../support/db/pglite-template.ts';
import { uniqueHandle } from '../support/data/transactions.ts';

const KEY = /sk_test_[0-9A-Za-z]{38}/;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'portico-cli-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('portico', () => {
  it('prints the version of package.json for --version', async () => {
    const ran = await runPortico(['--version']);
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(ran.code).toBe(0);
    expect(ran.stdout.trim()).toBe(version);
  });

  it('lists every environment variable and every sub-command in --help', async () => {
    const ran = await runPortico(['--help']);
    expect(ran.code).toBe(0);
    for (const variable of Object.values(CONFIG_VARIABLES)) {
      expect(ran.stdout).toContain(variable.env);
      expect(ran.stdout).toContain(variable.flag.split(' ')[0]);
    }
    for (const command of ['serve', 'migrate', 'demo', 'org', 'keys']) {
      expect(ran.stdout).toMatch(new RegExp(`^ {2}${command}\\b`, 'm'));
    }
  });

  it('says in one line, without a stack, that a data dir holds no demo data yet', async () => {
    const dataDir = await mkdtemp(join(root, 'empty-'));
    const ran = await runPortico(['demo'], { env: { PORTICO_DATA_DIR: dataDir } });
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr.trimEnd()).toBe(
      `portico: no demo data in ${dataDir}: start Portico once with "npm start" (portico serve)`,
    );
  });

  // Each command opens the embedded database in the data dir, as an operator's would. The data dir holds a
  // migrated database already (initdb and migrations on first use are served.test.ts's and migrate.test.ts's).
  it(
    'creates an organization, its key and an instance directly on an embedded database that no server holds',
    { timeout: 90_000 },
    async () => {
      const env = { PORTICO_DATA_DIR: await mkdtemp(join(root, 'data-')), ...PORTS };
      await seedEmbeddedDatabase(env.PORTICO_DATA_DIR);
      const handle = uniqueHandle('offline');
      const created = await runPortico(['org', 'create', '--handle', handle, '--name', 'Offline Partners'], {
        env,
      });
      // Each says on stderr which database it opened, and nothing else.
      const using = `Using the embedded database in ${env.PORTICO_DATA_DIR}\n`;
      expect(created.stderr).toBe(using);
      expect(created.code).toBe(0);
      expect(created.stdout).toContain(handle);

      const key = await runPortico(['keys', 'create', '--org', handle], { env });
      expect(key.stderr).toBe(using);
      expect(key.code).toBe(0);
      expect(key.stdout).toMatch(KEY);
      // Each command released the embedded database when it was done.
      expect(existsSync(lockPath(env.PORTICO_DATA_DIR))).toBe(false);

      const instance = await runPortico(
        ['portfolio', 'instances', 'create', '--slug', 'offline-ventures', '--name', 'Offline Ventures'],
        { env },
      );
      expect(instance.stderr).toBe(using);
      expect(instance.code).toBe(0);
      expect(existsSync(lockPath(env.PORTICO_DATA_DIR))).toBe(false);
    },
  );
});
