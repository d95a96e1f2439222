// `portico serve` as an operator starts it (`node bin/portico.js serve`, a process of its own), and the CLI
// while it holds the embedded database: commands then go through its admin socket. One command runs as a
// process of its own too; the others run in-process (see `runPortico`) against the same socket.
// These tests always run on the embedded database, under TEST_DATABASE_URL too: the admin socket exists only
// there.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/accounts/passwords.ts';
import { lockPath, type LockOwner } from '../../src/db/data-dir-lock.ts';
import { openDatabase } from '../../src/db/open-database.ts';
import { demoBanner, demoFactsPath, type DemoFacts } from '../../src/demo/demo-facts.ts';
import { DEMO_ADMIN_EMAIL } from '../../src/demo/portfolio-seed.ts';
import { DEMO_CONSOLE_ADMIN_EMAIL } from '../../src/demo/seed.ts';
import {
  exited,
  keysIssueArgs,
  PORTS,
  runPortico,
  sleep,
  spawnPortico,
  startServer,
  type RunningServer,
} from '../support/cli.ts';
import { expectDemoFacts } from '../support/data/demo-facts.ts';
import { fundAgreementPdf, withAgreement } from '../support/data/fund-pdf.ts';
import { request } from '../support/http-client.ts';
import { uniqueHandle } from '../support/data/transactions.ts';
import {
  CSV_FILES,
  expectSuccess,
  fixture,
  fixtureLine,
  IMPORTED_IDS,
  inviteArgs,
  newInstance,
  PORTFOLIO_KEY,
  progressLines,
  summaryLines,
  uniqueSlug,
} from './portfolio-output.ts';
import { UUID } from '../support/uuid.ts';

const KEY = /sk_test_[0-9A-Za-z]{38}/;

let root: string;
let running: RunningServer;
let server: ChildProcess;
let dir: string;
let env: Record<string, string>;
let facts: DemoFacts;
let ca: string;

// One server on a fresh data dir for every test below: starting one takes seconds.
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'portico-served-'));
  dir = await mkdtemp(join(root, 'data-'));
  env = { PORTICO_DATA_DIR: dir, ...PORTS };
  running = await startServer({ PORTICO_DATA_DIR: dir, ...PORTS });
  ({ process: server, facts, ca } = running);
}, 90_000);

afterAll(async () => {
  await running.stop();
  await rm(root, { recursive: true, force: true });
});

/** What every command that reaches the database through the server says first on stderr. */
const usingLine = () =>
  `Using the embedded database in ${dir}, through portico serve (process ${String(server.pid)})`;
const using = () => `${usingLine()}\n`;

/** Runs `portico <args>` in-process on the served data dir: through the server's admin socket. */
const portico = (args: string[]) => runPortico(args, { env });

describe('portico as a process of its own', { timeout: 60_000 }, () => {
  it('exits non-zero naming PORTICO_TRANSACTIONS_PORT when its value is not a port', async () => {
    const ran = await spawnPortico(['serve'], {
      PORTICO_DATA_DIR: await mkdtemp(join(root, 'data-')),
      PORTICO_TRANSACTIONS_PORT: 'abc',
      PORTICO_PORTFOLIO_PORT: '0',
    });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('PORTICO_TRANSACTIONS_PORT');
    expect(ran.stderr).toContain('abc');
    expect(ran.stdout).not.toContain('Portico is running');
  });
});

describe('portico while `portico serve` holds the embedded database', { timeout: 60_000 }, () => {
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
    // The server holds the embedded database: opening it from here would fail, so these go through its socket,
    // the first from a `portico` process of its own as an operator's would.
    const created = await spawnPortico(['org', 'create', '--handle', handle, '--name', 'Live Partners'], env);
    expect(created.stderr).toBe(using());
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(handle);

    const issued = await portico(['keys', 'create', '--org', handle, '--name', 'cli test', '--json']);
    expect(issued.stderr).toBe(using());
    expect(issued.code).toBe(0);
    const key = JSON.parse(issued.stdout) as { key: string; id: string; environment: string };
    expect(key.key).toMatch(new RegExp(`^${KEY.source}$`));
    expect(key.environment).toBe('staging');

    const answer = await viewerHandle(key.key);
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ data: { viewer: { handle } } });

    const revoked = await portico(['keys', 'revoke', '--org', handle, key.id]);
    expect(revoked.stderr).toBe(using());
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(key.id);

    // A server reuses a valid key lookup for up to a second (docs/operations.md), on every node alike.
    await sleep(1100);
    const refused = await viewerHandle(key.key);
    expect(refused.status).toBe(401);
    const body = refused.json();
    expect(body.data ?? null).toBeNull();
    expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(refused.text).not.toContain(handle);
  });

  it('imports a template file through the running server, and refuses a broken one saying where it is wrong', async () => {
    const handle = uniqueHandle('tpl');
    expect((await portico(['org', 'create', '--handle', handle, '--name', 'Template Partners'])).code).toBe(
      0,
    );
    const imported = await portico([
      'templates',
      'import',
      'templates/examples/subscription.yaml',
      '--org',
      handle,
    ]);
    expect(imported.stderr).toBe(using());
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/^Imported template subscription v1 \(/);
    const again = await portico([
      'templates',
      'import',
      'templates/examples/subscription.yaml',
      '--org',
      handle,
    ]);
    expect(again.stdout).toMatch(/^Unchanged: template subscription v1/);

    const broken = join(dir, 'broken.yaml');
    const source = await readFile('templates/examples/subscription.yaml', 'utf8');
    await writeFile(broken, source.replace('to: countersigning', 'to: aproved'));
    const refused = await portico(['templates', 'import', broken, '--org', handle]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/broken\.yaml:\d+: workflow\.events\[3\]\.to: unknown state "aproved"/);
  });

  it("imports a template with the fund's own PDF read from beside it, and refuses a mapping the PDF cannot take", async () => {
    const handle = uniqueHandle('pdf');
    expect((await portico(['org', 'create', '--handle', handle, '--name', 'PDF Partners'])).code).toBe(0);
    const folder = join(dir, 'fund-template');
    await mkdir(folder, { recursive: true });
    const source = withAgreement(await readFile('templates/examples/subscription.yaml', 'utf8'));
    await writeFile(join(folder, 'fund.yaml'), source);
    await writeFile(join(folder, 'fund-agreement.pdf'), await fundAgreementPdf());
    const imported = await portico(['templates', 'import', join(folder, 'fund.yaml'), '--org', handle]);
    expect(imported.stderr).toBe(using());
    expect(imported.stdout).toMatch(/^Imported template subscription v1 \(/);

    const wrong = source.replace('Commitment: subscription_amount', 'CommitmentAmount: subscription_amount');
    await writeFile(join(folder, 'wrong.yaml'), wrong);
    const refused = await portico(['templates', 'import', join(folder, 'wrong.yaml'), '--org', handle]);
    expect(refused.code).not.toBe(0);
    const line = wrong.slice(0, wrong.indexOf('CommitmentAmount:')).split('\n').length;
    expect(refused.stderr).toContain(
      `wrong.yaml:${line}: processes[0].documents[0].agreement.fields.CommitmentAmount: the PDF has no form field "CommitmentAmount"`,
    );
  });

  it('refuses an organization whose handle exists already, exiting non-zero with a message naming it', async () => {
    const handle = uniqueHandle('twice');
    const first = await portico(['org', 'create', '--handle', handle, '--name', 'First']);
    expect(first.code).toBe(0);
    const second = await portico(['org', 'create', '--handle', handle, '--name', 'Second']);
    expect(second.code).not.toBe(0);
    expect(second.code).not.toBeNull();
    expect(second.stderr).toContain(`an organization with handle "${handle}" exists already`);
    expect(second.stdout).toBe('');
  });

  it('refuses a separate worker on the embedded database the server holds, saying why in one line', async () => {
    const ran = await portico(['worker']);
    expect(ran.code).toBe(1);
    expect(ran.stderr.trimEnd()).toBe(
      `portico: the embedded database is served by process ${String(server.pid)}, which delivers webhooks itself; separate workers need PostgreSQL (DATABASE_URL)`,
    );
  });

  it('prints the demo facts with demo --json in the shape of demo.json', async () => {
    const ran = await portico(['demo', '--json']);
    expect(ran.code).toBe(0);
    const printed = JSON.parse(ran.stdout) as DemoFacts;
    expect(printed).toEqual(facts);
    expectDemoFacts(printed, expect.stringMatching(/^https:\/\/localhost:[1-9]\d*\/dashboard$/));
    expect(printed.transactions.apiKey).toMatch(KEY);
    expect(printed.transactions.url).toMatch(/^https:\/\/localhost:[1-9]\d*\/beta$/);
    expect(printed.transactions.recipientUrl).toMatch(/^https:\/\/localhost:[1-9]\d*\/r\/[0-9a-f-]{36}$/);
    expect(printed.portfolio.url).toMatch(/^https:\/\/localhost:[1-9]\d*\/v1\/external$/);
  });
});

describe('the demo recipient link', { timeout: 60_000 }, () => {
  it('is printed in the banner, opens a transaction waiting for its investor, and was mailed to the outbox', async () => {
    const recipientUrl = facts.transactions.recipientUrl ?? '';
    expect(running.stdout()).toContain(`    Recipient portal      ${recipientUrl}`);
    const token = recipientUrl.split('/r/').pop() ?? '';
    expect(new URL(recipientUrl).origin).toBe(new URL(facts.transactions.url).origin);
    const opened = await request(`${new URL(recipientUrl).origin}/recipient/${token}`, { ca });
    expect(opened.status, opened.text).toBe(200);
    expect(opened.json().transaction.state).toBe('in_progress');

    // Its invitation went to <data dir>/mail/ (no PORTICO_SMTP_URL), with the same link.
    const deadline = Date.now() + 10_000;
    let invitation: string | undefined;
    while (invitation === undefined && Date.now() < deadline) {
      const names = await readdir(join(dir, 'mail')).catch(() => []);
      for (const name of names) {
        const mail = await simpleParser(await readFile(join(dir, 'mail', name)));
        if (mail.text?.includes(recipientUrl)) invitation = mail.subject;
      }
      if (invitation === undefined) await sleep(100);
    }
    expect(invitation).toBe('Demo Capital asks you to complete: Fund subscription');
  });
});

describe('the demo banner', () => {
  it('names a demo person deactivated or removed since instead of their sign-in, and prints no password of theirs', () => {
    const banner = demoBanner(facts, demoFactsPath(dir), {
      signIns: { console: 'deactivated', dashboard: 'removed' },
    });
    expect(banner).toContain(
      [
        `    Console               ${facts.transactions.console?.url ?? 'none'}`,
        `    no demo sign-in       ${DEMO_CONSOLE_ADMIN_EMAIL} has been deactivated`,
      ].join('\n'),
    );
    expect(banner).toContain(
      [
        `    Dashboard             ${facts.portfolio.dashboard?.url ?? 'none'}`,
        `    no demo sign-in       ${DEMO_ADMIN_EMAIL} has been removed`,
      ].join('\n'),
    );
    expect(banner).not.toContain('with the password');
    expect(banner).not.toContain(facts.transactions.console?.password ?? 'none');
    expect(banner).not.toContain(facts.portfolio.dashboard?.password ?? 'none');
  });
});

describe('portico portfolio while `portico serve` holds the embedded database', { timeout: 60_000 }, () => {
  /** A GET on the running Portfolio service, over HTTPS, with `key` as the Authorization header. */
  const portfolioGet = (path: string, key: string) =>
    request(`${facts.portfolio.url}${path}`, { ca, headers: { authorization: key } });

  it('prints the demo Portfolio key in its banner and writes it and a company id to demo.json, which work', async () => {
    const { apiKey, companyId } = facts.portfolio;
    expect(apiKey).toMatch(new RegExp(`^${PORTFOLIO_KEY.source}$`));
    expect(companyId).toMatch(UUID);
    expect(running.stdout()).toContain(`demo API key          ${apiKey ?? ''}`);
    expect(running.stdout()).toContain(
      `with the password     ${facts.portfolio.dashboard?.password ?? 'none'}`,
    );
    expect(running.stdout()).toContain(facts.portfolio.url);

    const updates = await portfolioGet(`/company/${companyId ?? ''}/updates`, apiKey ?? '');
    expect(updates.status, updates.text).toBe(200);
    expect(updates.json().data.length).toBeGreaterThan(0);
    expect(updates.json().total).toBe(updates.json().data.length);
    const investments = await portfolioGet(`/company/${companyId ?? ''}/investments`, apiKey ?? '');
    expect(investments.status, investments.text).toBe(200);
    expect(investments.json().data.length).toBeGreaterThan(0);
    const companies = await portfolioGet('/companies?limit=5', apiKey ?? '');
    expect(companies.json().total).toBe(40);
  });

  it('creates an instance and prints a key once, which works against the running server at once', async () => {
    const { slug, created, issued, key, keyId } = await newInstance(portico, 'served-ventures');
    expect(created.stderr).toBe(using());
    expect(created.stdout).toContain(`Created instance ${slug}`);
    expect(issued.stderr).toBe(using());
    expect(keyId).not.toBe('');

    const empty = await portfolioGet('/companies', key);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.json()).toMatchObject({ data: [], total: 0, hasNextPage: false, nextCursor: null });
  });

  it('invites a person through the server, which writes the mail to the data dir with a link to its own address', async () => {
    const { slug } = await newInstance(portico, uniqueSlug('served'));
    const ran = await portico(inviteArgs(slug, 'ada@example.com', '--json'));
    expect(ran).toMatchObject({ code: 0, stderr: using() });
    const invited = JSON.parse(ran.stdout);
    expect(invited.mail.via).toBe('file');
    expect(invited.mail.file.startsWith(join(dir, 'mail'))).toBe(true);
    const mail = await simpleParser(await readFile(invited.mail.file));
    const origin = new URL(facts.portfolio.url).origin;
    expect(mail.text).toMatch(new RegExp(`${origin}/dashboard/invitation#token=[A-Za-z0-9_-]{43}`));
  });

  it('delivers a key through the server, which mails a link to its own key-delivery page that opens', async () => {
    const handle = uniqueHandle('served');
    expect((await portico(['org', 'create', '--handle', handle, '--name', 'Served'])).code).toBe(0);
    const ran = await portico(
      keysIssueArgs(handle, { environment: 'staging', emails: ['ada@example.com'], json: true }),
    );
    expect(ran).toMatchObject({ code: 0, stderr: using() });
    const [sent] = JSON.parse(ran.stdout).mail;
    expect(sent.file.startsWith(join(dir, 'mail'))).toBe(true);
    const mail = await simpleParser(await readFile(sent.file));
    const origin = new URL(facts.transactions.url).origin;
    const link = new RegExp(`${origin}/key-delivery/[A-Za-z0-9_-]{22}`).exec(mail.text ?? '')?.[0];
    expect(link).toBeDefined();
    const page = await request(link ?? '', { ca });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('imports a JSON document, then CSV files, with progress on stderr and a summary on stdout', async () => {
    const { slug, key } = await newInstance(portico, uniqueSlug('served'));
    const json = fixture('portfolio.json');
    const fromJson = await portico(['portfolio', 'import', '--instance', slug, json]);
    expectSuccess(fromJson);
    expect(fromJson.stderr.trimEnd().split('\n')).toEqual([usingLine(), ...progressLines([json], [3, 3, 2])]);
    for (const line of summaryLines(slug, 1, [3, 3, 2], 2)) expect(fromJson.stdout).toMatch(line);

    const fromCsv = await portico(['portfolio', 'import', '--instance', slug, ...CSV_FILES]);
    expectSuccess(fromCsv);
    expect(fromCsv.stderr.trimEnd().split('\n')).toEqual([
      usingLine(),
      ...progressLines(CSV_FILES, [2, 3, 2]),
    ]);
    for (const line of summaryLines(slug, 2, [2, 3, 2], 0)) expect(fromCsv.stdout).toMatch(line);

    const companies = await portfolioGet('/companies?limit=200', key);
    expect(companies.status, companies.text).toBe(200);
    expect(companies.json().total).toBe(5);
    expect(companies.json().data.map((company: { legalName: string }) => company.legalName)).toEqual([
      'Granite Logistics B.V.',
      'Cedar Robotics GmbH',
      'Fern Health, Inc.',
      'Kite Energy, "The Wind People" SAS',
      'Orbit Payments Ltd',
    ]);
    const investments = await portfolioGet(`/company/${IMPORTED_IDS.kite}/investments`, key);
    expect(investments.json().data).toEqual([
      expect.objectContaining({ amountCents: '9007199254740993', amountCurrency: 'EUR', round: null }),
    ]);
  });

  it('refuses a broken file, exiting non-zero with its file:line, and imports nothing of it', async () => {
    const { slug, key } = await newInstance(portico, uniqueSlug('served'));
    expectSuccess(await portico(['portfolio', 'import', '--instance', slug, fixture('portfolio.json')]));
    const file = fixture('broken.json');
    const refused = await portico(['portfolio', 'import', '--instance', slug, file]);
    expect(refused.code).not.toBe(0);
    expect(refused.code).not.toBeNull();
    const line = await fixtureLine('broken.json', '"usd"');
    expect(refused.stderr).toContain(`${file}:${line}: investments[0].amountCurrency: must match pattern`);
    expect(refused.stdout).toBe('');

    // As many companies as portfolio.json gave before, and none of the broken file's.
    const companies = await portfolioGet('/companies?limit=200', key);
    expect(companies.json().total).toBe(3);
    expect(companies.text).not.toContain(IMPORTED_IDS.broken);
  });

  it('lists keys by their prefix only, and a revoked key is refused with 401', async () => {
    const { slug, key, keyId } = await newInstance(portico, uniqueSlug('served'));
    expect(keyId).not.toBe('');
    const listed = await portico(['portfolio', 'keys', 'list', '--instance', slug]);
    expectSuccess(listed);
    expect(listed.stdout).not.toContain(key);
    const line = listed.stdout.split('\n').find((text) => text.includes(keyId)) ?? '';
    expect(line).toContain('active');
    expect(line).toContain('warehouse');
    const prefix = line.split('…')[0] ?? '';
    expect(prefix.length).toBeGreaterThan(4);
    expect(prefix.length).toBeLessThan(key.length / 2);
    expect(key.startsWith(prefix)).toBe(true);

    const revoked = await portico(['portfolio', 'keys', 'revoke', '--instance', slug, keyId]);
    expectSuccess(revoked);
    expect(revoked.stdout).toContain(`Revoked key ${keyId}.`);

    // A server reuses a valid key lookup for up to a second: poll until it refuses, a bounded number of times.
    let refused = await portfolioGet('/companies', key);
    for (let attempt = 0; refused.status === 200 && attempt < 40; attempt += 1) {
      await sleep(100);
      refused = await portfolioGet('/companies', key);
    }
    expect(refused.status, refused.text).toBe(401);
    expect(refused.json().error).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(refused.text).not.toContain('Granite');
    // The demo key of another instance is not affected.
    expect((await portfolioGet('/companies?limit=1', facts.portfolio.apiKey ?? '')).status).toBe(200);
  });
});

// Last: it stops the server the tests above use.
describe('portico serve on SIGTERM', { timeout: 60_000 }, () => {
  it('stops, closing both ports and releasing the data-dir lock and admin socket', async () => {
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

// After the server above has stopped: the same data dir started again, as a second `npm start` would, with the
// demo dashboard admin's password changed in the meantime (the console admin's is left as it was).
describe('portico serve started again on the same data dir', { timeout: 60_000 }, () => {
  let again: RunningServer;

  beforeAll(async () => {
    await running.stop();
    const opened = await openDatabase({ dataDir: dir, databaseUrl: undefined });
    try {
      const changed = await opened.db.query(
        'update users set password_hash = $1 where instance_id is not null and email = $2 returning id',
        [await hashPassword('a password of their own'), DEMO_ADMIN_EMAIL],
      );
      expect(changed).toHaveLength(1);
    } finally {
      await opened.close();
    }
    again = await startServer({ PORTICO_DATA_DIR: dir, ...PORTS });
  }, 120_000);

  afterAll(() => again.stop());

  /** A banner's lines, each service's origin (its port differs between starts) replaced by its name. */
  const bannerLines = (server: RunningServer) => {
    const origin = (url: string) => new RegExp(`${new URL(url).origin}(?!\\d)`, 'g');
    return server
      .stdout()
      .replace(origin(server.facts.transactions.url), '<transactions>')
      .replace(origin(server.facts.portfolio.url), '<portfolio>')
      .split('\n');
  };

  it('prints the console and dashboard with their sign-ins, GraphiQL and the recipient link, as the first start did', () => {
    const banner = again.stdout();
    const { transactions } = again.facts;
    expect(banner).toContain('Portico is running with demo data.');
    expect(banner).toContain(`    GraphiQL              ${transactions.url.replace(/\/beta$/, '/graphiql')}`);
    expect(banner).toContain(`    Recipient portal      ${transactions.recipientUrl ?? 'none'}`);
    expect(banner).toContain(
      [
        `    Console               ${transactions.console?.url ?? 'none'}`,
        `    sign in as            ${DEMO_CONSOLE_ADMIN_EMAIL}`,
        `    with the password     ${facts.transactions.console?.password ?? 'none'}`,
      ].join('\n'),
    );
    expect(banner).toContain(`  These facts, as JSON    ${demoFactsPath(dir)} (or: npx portico demo --json)`);

    // Line for line the first start's banner, but for the dashboard's password, changed since.
    const first = bannerLines(running);
    const password = first.indexOf(
      `    with the password     ${facts.portfolio.dashboard?.password ?? 'none'}`,
    );
    expect(password).toBeGreaterThan(0);
    expect(bannerLines(again)).toEqual([
      ...first.slice(0, password),
      '    password changed      reset it at <portfolio>/dashboard/forgot-password',
      '                          (its link is written to the data dir: npx portico mail list)',
      ...first.slice(password + 1),
    ]);
  });

  it('leaves out a demo password changed since, and says where to reset it instead', async () => {
    const dashboard = again.facts.portfolio.dashboard;
    expect(again.stdout()).not.toContain(facts.portfolio.dashboard?.password ?? 'none');
    expect(again.stdout()).toContain(
      [
        `    Dashboard             ${dashboard?.url ?? 'none'}`,
        `    sign in as            ${DEMO_ADMIN_EMAIL}`,
        `    password changed      reset it at ${dashboard?.url ?? 'none'}/forgot-password`,
      ].join('\n'),
    );
    // Where the dashboard's sign-in form sends "Forgot your password?".
    const page = await request(`${dashboard?.url ?? 'none'}/forgot-password`, { ca });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });
});
