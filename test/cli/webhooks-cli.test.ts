import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portico } from '../support/cli.ts';

let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portico-webhooks-cli-'));
  env = { PORTICO_DATA_DIR: dir };
  const created = await portico(['org', 'create', '--handle', 'hooks-org', '--name', 'Hooks'], env);
  expect(created.code, created.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Each command starts Node and opens the embedded database: seconds each.
describe('portico webhooks', { timeout: 60_000 }, () => {
  it('refuses a plain-http or loopback URL unless insecure URLs are allowed', async () => {
    const args = ['webhooks', 'create', '--org', 'hooks-org', '--event', 'transaction.completed'];
    const http = await portico([...args, '--url', 'http://127.0.0.1:9/hook'], env);
    expect(http.code).not.toBe(0);
    expect(http.stderr).toContain('https');
    const loopback = await portico([...args, '--url', 'https://127.0.0.1:9/hook'], env);
    expect(loopback.code).not.toBe(0);
    expect(loopback.stderr).toContain('127.0.0.1');
  });

  it('creates, lists, rotates, disables, enables and deletes an endpoint, showing each secret once', async () => {
    const insecure = { ...env, PORTICO_WEBHOOKS_ALLOW_INSECURE: 'true' };
    const created = await portico(
      [
        'webhooks',
        'create',
        '--org',
        'hooks-org',
        '--url',
        'http://127.0.0.1:9/hook',
        '--event',
        'transaction.completed',
        '--event',
        'transaction.state_changed',
        '--json',
      ],
      insecure,
    );
    expect(created.code, created.stderr).toBe(0);
    const endpoint = JSON.parse(created.stdout) as { id: string; secret: string; eventTypes: string[] };
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(endpoint.eventTypes).toEqual(['transaction.completed', 'transaction.state_changed']);

    const listed = await portico(['webhooks', 'list', '--org', 'hooks-org'], env);
    expect(listed.stdout).toContain(endpoint.id);
    expect(listed.stdout).not.toContain('whsec_');

    const rotated = await portico(['webhooks', 'rotate-secret', '--org', 'hooks-org', endpoint.id], env);
    const secrets = rotated.stdout.match(/whsec_\S+/g) ?? [];
    expect(secrets).toHaveLength(1);
    expect(secrets[0]).not.toBe(endpoint.secret);

    const disabled = await portico(['webhooks', 'disable', '--org', 'hooks-org', endpoint.id], env);
    expect(disabled.stdout).toContain('disabled (disabled by an operator)');
    const enabled = await portico(['webhooks', 'enable', '--org', 'hooks-org', endpoint.id], env);
    expect(enabled.stdout).toContain('enabled');

    const deleted = await portico(['webhooks', 'delete', '--org', 'hooks-org', endpoint.id], env);
    expect(deleted.code, deleted.stderr).toBe(0);
    const after = await portico(['webhooks', 'list', '--org', 'hooks-org'], env);
    expect(after.stdout).toContain('hooks-org has no webhook endpoints.');
  });
});
