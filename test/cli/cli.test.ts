// The `portico` command as an operator runs it: `node bin/portico.js …` in child processes.
// These tests always run on the embedded database, under TEST_DATABASE_URL too: their subject is the CLI on the
// embedded database, in particular while `portico serve` holds it (the CLI then goes through its admin socket).
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config.ts';
import { lockPath, type LockOwner } from '../../src/db/data-dir-lock.ts';
import type { DemoFacts } from '../../src/demo/demo-facts.ts';
import { exited, PORTS, portico, startServer, type RunningServer } from '../support/cli.ts';
import { uniqueHandle } from '../support/transactions.ts';
import { request } from '../support/http-client.ts';

const KEY = /sk_test_[0-9A-Za-z]{38}/;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'portico-cli-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fresh data dir under this file's temporary directory. */
async function dataDir(): Promise<string> {
  return mkdtemp(join(root, 'data-'));
}

// Each test starts Node processes that compile TypeScript and may open an embedded database: seconds each.
describe('portico without a running server', { timeout: 60_000 }, () => {
  it('prints the version of package.json for --version', async () => {
    const ran = await portico(['--version'], {});
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(ran.code).toBe(0);
    expect(ran.stdout.trim()).toBe(version);
  });

  it('lists every environment variable and every sub-command in --help', async () => {
    const ran = await portico(['--help'], {});
    expect(ran.code).toBe(0);
    for (const variable of Object.values(CONFIG_VARIABLES)) {
      expect(ran.stdout).toContain(variable.env);
      expect(ran.stdout).toContain(variable.flag.split(' ')[0]);
    }
    for (const command of ['serve', 'migrate', 'demo', 'org', 'keys']) {
      expect(ran.stdout).toMatch(new RegExp(`^ {2}${command}\\b`, 'm'));
    }
  });

  it('creates an organization and a key directly on an embedded database that no server holds', async () => {
    const env = { PORTICO_DATA_DIR: await dataDir(), ...PORTS };
    const handle = uniqueHandle('offline');
    const created = await portico(['org', 'create', '--handle', handle, '--name', 'Offline Partners'], env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(handle);

    const key = await portico(['keys', 'create', '--org', handle], env);
    expect(key.stderr).toBe('');
    expect(key.code).toBe(0);
    expect(key.stdout).toMatch(KEY);
    // Each command released the embedded database when it was done.
    expect(existsSync(lockPath(env.PORTICO_DATA_DIR))).toBe(false);
  });

  it('exits non-zero naming PORTICO_TRANSACTIONS_PORT when its value is not a port', async () => {
    const ran = await portico(['serve'], {
      PORTICO_DATA_DIR: await dataDir(),
      PORTICO_TRANSACTIONS_PORT: 'abc',
      PORTICO_PORTFOLIO_PORT: '0',
    });
    expect(ran.code).not.toBe(0);
    expect(ran.code).not.toBeNull();
    expect(ran.stderr).toContain('PORTICO_TRANSACTIONS_PORT');
    expect(ran.stderr).toContain('abc');
    expect(ran.stdout).not.toContain('Portico is running');
  });
});

describe('portico while `portico serve` holds the embedded database', { timeout: 60_000 }, () => {
  let running: RunningServer;
  let server: ChildProcess;
  let dir: string;
  let env: Record<string, string>;
  let facts: DemoFacts;
  let ca: string;

  beforeAll(async () => {
    dir = await dataDir();
    env = { PORTICO_DATA_DIR: dir, ...PORTS };
    running = await startServer({ PORTICO_DATA_DIR: dir, ...PORTS });
    ({ process: server, facts, ca } = running);
  }, 90_000);

  afterAll(() => running.stop());

  const viewerHandle = (key: string) =>
    request(facts.transactions.url, {
      ca,
      headers: { authorization: `Bearer ${key}` },
      json: { query: '{ viewer { handle } }' },
    });

  it('announces its admin socket in the data-dir lock', async () => {
    const owner = JSON.parse(await readFile(lockPath(dir), 'utf8')) as LockOwner;
    expect(owner.pid).toBe(server.pid);
    expect(owner.adminSocket).toEqual(expect.any(String));
    expect(existsSync(owner.adminSocket ?? '')).toBe(true);
  });

  it('creates an organization and a key through the running server, and the key works at once until revoked', async () => {
    const handle = uniqueHandle('live');
    // The server holds the embedded database: opening it from here would fail, so these go through its socket.
    const created = await portico(['org', 'create', '--handle', handle, '--name', 'Live Partners'], env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(handle);

    const issued = await portico(['keys', 'create', '--org', handle, '--name', 'cli test', '--json'], env);
    expect(issued.stderr).toBe('');
    expect(issued.code).toBe(0);
    const key = JSON.parse(issued.stdout) as { key: string; id: string; environment: string };
    expect(key.key).toMatch(new RegExp(`^${KEY.source}$`));
    expect(key.environment).toBe('staging');

    const answer = await viewerHandle(key.key);
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ data: { viewer: { handle } } });

    const revoked = await portico(['keys', 'revoke', '--org', handle, key.id], env);
    expect(revoked.stderr).toBe('');
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(key.id);

    // A server reuses a valid key lookup for up to a second (docs/operations.md), on every node alike.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const refused = await viewerHandle(key.key);
    expect(refused.status).toBe(401);
    const body = refused.json();
    expect(body.data ?? null).toBeNull();
    expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(refused.text).not.toContain(handle);
  });

  it('imports a template file through the running server, and refuses a broken one saying where it is wrong', async () => {
    const handle = uniqueHandle('tpl');
    expect(
      (await portico(['org', 'create', '--handle', handle, '--name', 'Template Partners'], env)).code,
    ).toBe(0);
    const imported = await portico(
      ['templates', 'import', 'templates/examples/subscription.yaml', '--org', handle],
      env,
    );
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/^Imported template subscription v1 \(/);
    const again = await portico(
      ['templates', 'import', 'templates/examples/subscription.yaml', '--org', handle],
      env,
    );
    expect(again.stdout).toMatch(/^Unchanged: template subscription v1/);

    const broken = join(dir, 'broken.yaml');
    const source = await readFile('templates/examples/subscription.yaml', 'utf8');
    await writeFile(broken, source.replace('to: countersigning', 'to: aproved'));
    const refused = await portico(['templates', 'import', broken, '--org', handle], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/broken\.yaml:\d+: workflow\.events\[3\]\.to: unknown state "aproved"/);
  });

  it('refuses an organization whose handle exists already, exiting non-zero with a message naming it', async () => {
    const handle = uniqueHandle('twice');
    const first = await portico(['org', 'create', '--handle', handle, '--name', 'First'], env);
    expect(first.code).toBe(0);
    const second = await portico(['org', 'create', '--handle', handle, '--name', 'Second'], env);
    expect(second.code).not.toBe(0);
    expect(second.code).not.toBeNull();
    expect(second.stderr).toContain(`an organization with handle "${handle}" exists already`);
    expect(second.stdout).toBe('');
  });

  it('prints the demo facts with demo --json in the shape of demo.json', async () => {
    const ran = await portico(['demo', '--json'], env);
    expect(ran.code).toBe(0);
    const printed = JSON.parse(ran.stdout) as DemoFacts;
    expect(printed).toEqual(facts);
    expect(Object.keys(printed).sort()).toEqual(['caCertPath', 'portfolio', 'transactions']);
    expect(Object.keys(printed.transactions).sort()).toEqual(
      ['apiKey', 'organizationId', 'senderEntityId', 'templateId', 'transactionId', 'url'].sort(),
    );
    expect(Object.keys(printed.portfolio).sort()).toEqual(['apiKey', 'companyId', 'url']);
    expect(printed.transactions.apiKey).toMatch(KEY);
    expect(printed.transactions.url).toMatch(/^https:\/\/localhost:[1-9]\d*\/beta$/);
    expect(printed.portfolio.url).toMatch(/^https:\/\/localhost:[1-9]\d*\/v1\/external$/);
  });

  it('stops on SIGTERM, closing both ports and releasing the data-dir lock and admin socket', async () => {
    const owner = JSON.parse(await readFile(lockPath(dir), 'utf8')) as LockOwner;
    server.kill('SIGTERM');
    const { code, signal } = await exited(server, 15_000);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(existsSync(lockPath(dir))).toBe(false);
    expect(existsSync(owner.adminSocket ?? '')).toBe(false);
    await expect(request(new URL('/healthz', facts.transactions.url), { ca })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});
