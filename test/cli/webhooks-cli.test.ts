// The `portico webhooks` commands, run in-process on this file's own database: each test makes its own
// organization.
import { describe, expect, it } from 'vitest';
import { cliOnTestDatabase } from '../support/cli.ts';
import { uniqueHandle } from '../support/data/transactions.ts';

const { portico } = cliOnTestDatabase();

/** A new organization, made with the CLI, and its handle. */
async function newOrganization(): Promise<string> {
  const handle = uniqueHandle('hooks');
  const created = await portico(['org', 'create', '--handle', handle, '--name', 'Hooks']);
  expect(created.code, created.stderr).toBe(0);
  return handle;
}

describe('portico webhooks', () => {
  it('refuses a plain-http or loopback URL unless insecure URLs are allowed', async () => {
    const org = await newOrganization();
    const args = ['webhooks', 'create', '--org', org, '--event', 'transaction.completed'];
    const http = await portico([...args, '--url', 'http://127.0.0.1:9/hook']);
    expect(http.code).not.toBe(0);
    expect(http.stderr).toContain('https');
    const loopback = await portico([...args, '--url', 'https://127.0.0.1:9/hook']);
    expect(loopback.code).not.toBe(0);
    expect(loopback.stderr).toContain('127.0.0.1');
  });

  it('creates, lists, rotates, disables, enables and deletes an endpoint, showing each secret once', async () => {
    const org = await newOrganization();
    const created = await portico(
      [
        'webhooks',
        'create',
        '--org',
        org,
        '--url',
        'http://127.0.0.1:9/hook',
        '--event',
        'transaction.completed',
        '--event',
        'transaction.state_changed',
        '--json',
      ],
      { PORTICO_WEBHOOKS_ALLOW_INSECURE: 'true' },
    );
    expect(created.code, created.stderr).toBe(0);
    const endpoint = JSON.parse(created.stdout) as { id: string; secret: string; eventTypes: string[] };
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(endpoint.eventTypes).toEqual(['transaction.completed', 'transaction.state_changed']);

    const listed = await portico(['webhooks', 'list', '--org', org]);
    expect(listed.stdout).toContain(endpoint.id);
    expect(listed.stdout).not.toContain('whsec_');

    const rotated = await portico(['webhooks', 'rotate-secret', '--org', org, endpoint.id]);
    const secrets = rotated.stdout.match(/whsec_\S+/g) ?? [];
    expect(secrets).toHaveLength(1);
    expect(secrets[0]).not.toBe(endpoint.secret);

    const disabled = await portico(['webhooks', 'disable', '--org', org, endpoint.id]);
    expect(disabled.stdout).toContain('disabled (disabled by an operator)');
    const enabled = await portico(['webhooks', 'enable', '--org', org, endpoint.id]);
    expect(enabled.stdout).toContain('enabled');

    const deleted = await portico(['webhooks', 'delete', '--org', org, endpoint.id]);
    expect(deleted.code, deleted.stderr).toBe(0);
    const after = await portico(['webhooks', 'list', '--org', org]);
    expect(after.stdout).toContain(`${org} has no webhook endpoints.`);
  });
});
