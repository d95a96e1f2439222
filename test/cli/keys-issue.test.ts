// `portico keys issue`, `keys deliveries` and `keys revoke-delivery`, run in-process on this file's own
// database, mail written to a data dir of the file's own: what the operator sees, and every refusal.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliOnTestDatabase, keysIssueArgs } from '../support/cli.ts';
import { uniqueHandle } from '../support/data/transactions.ts';

const { database, portico: run } = cliOnTestDatabase();
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'portico-keys-issue-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const portico = (args: string[]) =>
  run(args, { PORTICO_DATA_DIR: dataDir, PORTICO_TRANSACTIONS_URL: 'https://api.acme.example' });

async function newOrganization(): Promise<string> {
  const handle = uniqueHandle('issue');
  expect((await portico(['org', 'create', '--handle', handle, '--name', 'Acme'])).code).toBe(0);
  return handle;
}

const keysOf = async (handle: string) =>
  database().query(
    'select k.id from api_keys k join organizations o on o.id = k.organization_id where o.handle = $1',
    [handle],
  );

describe('portico keys issue', () => {
  it('tells the operator the delivery, its addresses and expiry, never the key, and lists and revokes it', async () => {
    const handle = await newOrganization();
    const issued = await portico(
      keysIssueArgs(handle, {
        environment: 'production',
        emails: ['ada@acme.example', 'max@acme.example'],
        extra: ['--expires-in', '15'],
      }),
    );
    expect(issued).toMatchObject({ code: 0, stderr: '' });
    expect(issued.stdout).toMatch(/^Issued a production key \(sk_live_\w{4}…\) for issue-/);
    expect(issued.stdout).toContain('written for ada@acme.example to');
    expect(issued.stdout).toContain('written for max@acme.example to');
    expect(issued.stdout).not.toMatch(/sk_live_[0-9A-Za-z]{38}/);
    expect(issued.stdout).not.toContain('#');

    const listed = await portico(['keys', 'deliveries', '--org', handle]);
    const id = /^([0-9a-f-]{36}) {2}pending {2}production/m.exec(listed.stdout)?.[1] ?? '';
    expect(listed.stdout).toContain('    ada@acme.example  not viewed');
    const revoked = await portico(['keys', 'revoke-delivery', id]);
    expect(revoked.stdout).toMatch(/^Revoked delivery .* and its key sk_live_/);
    expect((await portico(['keys', 'deliveries', '--org', handle])).stdout).toContain(`${id}  revoked`);
    expect((await portico(['keys', 'list', '--org', handle])).stdout).toContain('revoked');
  });

  it.each([
    {
      refused: 'a missing environment',
      args: ['--email', 'ada@acme.example'],
      says: '--environment staging|production is required',
    },
    {
      refused: 'another environment',
      args: ['--environment', 'qa', '--email', 'ada@acme.example'],
      says: 'environment',
    },
    { refused: 'no address', args: ['--environment', 'staging'], says: '--email' },
    {
      refused: 'a malformed address',
      args: ['--environment', 'staging', '--email', 'ada'],
      says: 'is not an e-mail address',
    },
    {
      refused: 'an address named twice',
      args: ['--environment', 'staging', '--email', 'ada@acme.example', '--email', 'ADA@acme.example'],
      says: 'is named twice',
    },
    {
      refused: 'more than 60 minutes',
      args: ['--environment', 'staging', '--email', 'ada@acme.example', '--expires-in', '61'],
      says: '--expires-in must be a number of minutes from 1 to 60',
    },
  ])('refuses $refused, saying why, and issues no key', async ({ args, says }) => {
    const handle = await newOrganization();
    const ran = await portico(['keys', 'issue', '--org', handle, ...args]);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toContain(says);
    expect(await keysOf(handle)).toEqual([]);
  });

  it('refuses an unknown organization with NOT_FOUND', async () => {
    const ran = await portico([
      'keys',
      'issue',
      '--org',
      'no-such-org',
      '--environment',
      'staging',
      '--email',
      'a@b.example',
    ]);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toContain('There is no organization with handle "no-such-org".');
  });
});
