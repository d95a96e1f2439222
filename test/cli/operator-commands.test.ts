// The operator's smaller commands (issue 26, item 7), run in-process on a database of this file's own:
// `org list`, `templates list`, `portfolio users role|remove` and `org users role`, the refusal to make a new
// embedded database in the wrong folder, and `mail list|show` on the mail a data dir holds.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteUser } from '../../src/accounts/users.ts';
import { DEFAULT_SESSION_LIMITS, sessionWriter } from '../../src/accounts/sessions.ts';
import { describeDatabase } from '../../src/db/open-database.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { getInstanceBySlug } from '../../src/portfolio/instances.ts';
import { createLogger } from '../../src/logger.ts';
import { cliOnTestDatabase, runPortico } from '../support/cli.ts';
import { organizationStory } from '../support/data/stories.ts';
import { createTestFileStore } from '../support/data/transactions.ts';
import { expectSuccess, newInstance, uniqueSlug } from './portfolio-output.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { loadMigrations, migrate, migrationName } from '../../src/db/migrate.ts';
import { createPostgresDatabase } from '../../src/db/postgres-database.ts';
import { TEST_DATABASE_URL, createTestSchema } from '../support/db/database.ts';
import { createPGliteFromTemplate } from '../support/db/pglite-template.ts';

const { database, portico } = cliOnTestDatabase();

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'portico-operator-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('portico org list and templates list', () => {
  it('lists each organization with its templates, transactions, active keys and people', async () => {
    const store = await createTestFileStore();
    try {
      const story = await organizationStory(database(), store.files, {
        transactions: ['created', 'created'],
      });
      const ran = await portico(['org', 'list', '--json']);
      expectSuccess(ran);
      const listed = (JSON.parse(ran.stdout) as { handle: string }[]).find((o) => o.handle === story.handle);
      expect(listed).toMatchObject({
        id: story.organizationId,
        name: story.name,
        templates: 1,
        transactions: 2,
        activeKeys: 1,
        users: 0,
      });
      const text = await portico(['org', 'list']);
      expect(text.stdout).toMatch(
        new RegExp(
          `^${story.handle} +${story.organizationId}  created \\d{4}-\\d\\d-\\d\\d  1 template, 2 transactions, 1 active key, 0 users  Test Capital$`,
          'm',
        ),
      );

      const templates = await portico(['templates', 'list', '--org', story.handle]);
      expectSuccess(templates);
      expect(templates.stdout.trim()).toMatch(
        new RegExp(`^${story.handle} +subscription v1 +used by 2 transactions +\\S`),
      );
      const json = await portico(['templates', 'list', '--org', story.handle, '--json']);
      expect(JSON.parse(json.stdout)).toMatchObject([
        { id: story.templateId, org: story.handle, key: 'subscription', version: 1, transactions: 2 },
      ]);
    } finally {
      await store.cleanup();
    }
  });

  it('says an organization has no templates, and names an unknown one', async () => {
    const handle = `empty-${uniqueSlug('t')}`;
    expectSuccess(await portico(['org', 'create', '--handle', handle, '--name', 'Empty']));
    expect((await portico(['templates', 'list', '--org', handle])).stdout.trim()).toBe(
      `${handle} has no templates.`,
    );
    const unknown = await portico(['templates', 'list', '--org', 'no-such-org']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('There is no organization with handle "no-such-org".');
  });
});

describe('portico portfolio users role and remove', () => {
  it('changes a role, then refuses to demote or remove the last admin, saying what to do', async () => {
    const { slug } = await newInstance(portico, uniqueSlug('roles'));
    const instance = await getInstanceBySlug(database(), slug);
    const tenant = { kind: 'instance' as const, id: instance.id };
    await inviteUser(database(), { tenant, email: 'ada@example.com', role: 'admin' });
    await inviteUser(database(), { tenant, email: 'grace@example.com', role: 'member' });

    const promoted = await portico([
      'portfolio',
      'users',
      'role',
      'Grace@Example.com',
      'admin',
      '--instance',
      slug,
    ]);
    expectSuccess(promoted);
    expect(promoted.stdout.trim()).toBe(`grace@example.com is now admin of ${slug}.`);
    expectSuccess(
      await portico(['portfolio', 'users', 'role', 'ada@example.com', 'member', '--instance', slug]),
    );

    const demoted = await portico([
      'portfolio',
      'users',
      'role',
      'grace@example.com',
      'member',
      '--instance',
      slug,
    ]);
    expect(demoted.code).toBe(1);
    expect(demoted.stderr.trim()).toBe(
      `portico: grace@example.com is the last admin of instance "${slug}": make another person admin first, then make them member, so that someone can still do what only an admin may.`,
    );
    const removed = await portico(['portfolio', 'users', 'remove', 'grace@example.com', '--instance', slug]);
    expect(removed.code).toBe(1);
    expect(removed.stderr).toContain('is the last admin of');

    const list = await portico(['portfolio', 'users', 'list', '--instance', slug, '--json']);
    expect(JSON.parse(list.stdout)).toMatchObject([
      { email: 'ada@example.com', role: 'member' },
      { email: 'grace@example.com', role: 'admin' },
    ]);
    const refusedRole = await portico([
      'portfolio',
      'users',
      'role',
      'ada@example.com',
      'operator',
      '--instance',
      slug,
    ]);
    expect(refusedRole.code).toBe(1);
    expect(refusedRole.stderr).toContain("'operator' is invalid for argument 'role'");
  });

  it('removes a person, ending their sessions at once', async () => {
    const { slug } = await newInstance(portico, uniqueSlug('remove'));
    const instance = await getInstanceBySlug(database(), slug);
    const tenant = { kind: 'instance' as const, id: instance.id };
    await inviteUser(database(), { tenant, email: 'ada@example.com', role: 'admin' });
    const { user } = await inviteUser(database(), { tenant, email: 'lin@example.com', role: 'member' });
    await sessionWriter(database(), DEFAULT_SESSION_LIMITS)('a session id of lin', {
      cookie: {},
      userId: user.id,
      signedInAt: Date.now(),
    });
    const sessions = () => database().query('select 1 from user_sessions where user_id = $1', [user.id]);
    expect(await sessions()).toHaveLength(1);

    const removed = await portico([
      'portfolio',
      'users',
      'remove',
      'lin@example.com',
      '--instance',
      slug,
      '--json',
    ]);
    expectSuccess(removed);
    expect(JSON.parse(removed.stdout)).toMatchObject({ email: 'lin@example.com', role: 'member' });
    expect(await sessions()).toHaveLength(0);
    const again = await portico(['portfolio', 'users', 'remove', 'lin@example.com', '--instance', slug]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('There is no user with the e-mail address "lin@example.com".');
  });

  it("changes a console person's role too, keeping the organization's last admin", async () => {
    const handle = `roles-${uniqueSlug('o')}`;
    expectSuccess(await portico(['org', 'create', '--handle', handle, '--name', 'Roles']));
    const [organization] = await database().query<{ id: string }>(
      'select id from organizations where handle = $1',
      [handle],
    );
    await inviteUser(database(), {
      tenant: { kind: 'organization', id: organization?.id ?? '' },
      email: 'ada@example.com',
      role: 'admin',
    });
    const refused = await portico(['org', 'users', 'role', 'ada@example.com', 'viewer', '--org', handle]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`is the last admin of organization "${handle}"`);
    await inviteUser(database(), {
      tenant: { kind: 'organization', id: organization?.id ?? '' },
      email: 'bo@example.com',
      role: 'operator',
    });
    const changed = await portico(['org', 'users', 'role', 'bo@example.com', 'reviewer', '--org', handle]);
    expect(changed.stdout.trim()).toBe(`bo@example.com is now reviewer of ${handle}.`);
  });
});

describe('which database a command opens', () => {
  it('refuses to make a new embedded database in a data dir that has none, naming it and how to point elsewhere', async () => {
    const dataDir = join(root, 'not-the-right-folder');
    for (const args of [['org', 'list'], ['templates', 'list'], ['migrate', '--status'], ['worker']]) {
      const ran = await runPortico(args, { env: { PORTICO_DATA_DIR: dataDir } });
      expect(ran.code, args.join(' ')).toBe(1);
      expect(ran.stdout).toBe('');
      expect(ran.stderr.trim()).toBe(
        `portico: there is no embedded database in ${dataDir}: point this command at the data dir that holds it, with --data-dir <dir> or PORTICO_DATA_DIR (the .portico folder where "npm start" ran), or at PostgreSQL with DATABASE_URL; "portico serve" or "portico migrate" makes a new one`,
      );
    }
    // Nothing was made there, not even the folder.
    expect(existsSync(dataDir)).toBe(false);
  });

  it('names a PostgreSQL server by host, port and database, never with its password', () => {
    expect(
      describeDatabase({
        databaseUrl: 'postgres://portico:s3cret@db.internal:6432/portico_prod',
        dataDir: '/x',
      }),
    ).toBe('PostgreSQL at db.internal:6432/portico_prod');
    expect(
      describeDatabase({ databaseUrl: 'postgresql://u:p@localhost/app?sslmode=require', dataDir: '/x' }),
    ).toBe('PostgreSQL at localhost:5432/app');
    expect(describeDatabase({ databaseUrl: undefined, dataDir: '/srv/portico/.portico' })).toBe(
      'the embedded database in /srv/portico/.portico',
    );
  });
});

describe('portico mail list and show', () => {
  it('lists the mails of the data dir and shows one decoded, with a long link whole', async () => {
    const dataDir = await mkdtemp(join(root, 'mail-'));
    const env = { PORTICO_DATA_DIR: dataDir };
    const empty = await runPortico(['mail', 'list'], { env });
    expect(empty.stdout.trim()).toBe('There is no mail: Portico has written none to this data dir.');

    const link = `https://portico.example.com/dashboard/invitation#token=${'A1b2_C3d4-'.repeat(12)}`;
    const mailer = createMailer(loadConfig(env), createLogger('silent'));
    await mailer.send({ to: 'ada@example.com', subject: 'First', text: 'Hello.\n', html: '<p>Hello.</p>' });
    await mailer.send({
      to: 'grace@example.com',
      subject: 'Vous êtes invitée à « Acme »',
      text: `Bonjour Grace,\n\nOpen this link to set your password (it works once):\n${link}\n\nÀ bientôt.\n`,
      html: `<p><a href="${link}">Set your password</a></p>`,
    });

    const list = await runPortico(['mail', 'list'], { env });
    expectSuccess(list);
    expect(list.stderr).toContain(`Reading the mail written to ${join(dataDir, 'mail')}`);
    expect(list.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^ {3}1 {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}ada@example\.com +First$/),
      expect.stringMatching(
        /^ {3}2 {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}grace@example\.com +Vous êtes invitée à « Acme »$/,
      ),
    ]);

    const shown = await runPortico(['mail', 'show', '2'], { env });
    expectSuccess(shown);
    expect(shown.stdout).toContain('To:      grace@example.com\nSubject: Vous êtes invitée à « Acme »\n');
    expect(shown.stdout.split('\n')).toContain(link);
    expect(shown.stdout).toContain('À bientôt.');

    const json = JSON.parse((await runPortico(['mail', 'show', '2', '--json'], { env })).stdout) as {
      text: string;
    };
    expect(json.text).toContain(`\n${link}\n`);
    const missing = await runPortico(['mail', 'show', '3'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe(
      `portico: there is no mail number 3 in ${join(dataDir, 'mail')} (it holds 2): see "portico mail list"`,
    );
  });
});

describe('portico migrate --status', () => {
  /** A database with nothing in it (a fresh PGlite, or a new PostgreSQL schema), closed and dropped after. */
  async function emptyDatabase(): Promise<{ db: Database; close: () => Promise<void> }> {
    if (TEST_DATABASE_URL === undefined) {
      const db = await createPGliteFromTemplate('empty');
      return { db, close: () => db.close() };
    }
    const { options, drop } = await createTestSchema(TEST_DATABASE_URL);
    const db = createPostgresDatabase({ connectionString: TEST_DATABASE_URL, connectionOptions: options });
    return {
      db,
      async close() {
        await db.close();
        await drop();
      },
    };
  }

  it('lists every migration as pending before migrate and applied after, and --check fails only before', async () => {
    const shipped = await loadMigrations();
    const last = shipped.at(-1);
    const empty = await emptyDatabase();
    try {
      const status = (...args: string[]) =>
        runPortico(['migrate', '--status', ...args], { database: empty.db });

      const before = await status();
      expectSuccess(before);
      const lines = before.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(shipped.length + 1);
      expect(lines[0]).toMatch(/^0001_transactions +pending$/);
      // The states form one column, however long a migration's name.
      expect(new Set(lines.slice(0, -1).map((line) => line.indexOf(' pending')))).toHaveLength(1);
      expect(lines.at(-1)).toBe(
        `${String(shipped.length)} pending: run "portico migrate" (see docs/operations.md, "Upgrading").`,
      );
      const checked = await status('--check');
      expect(checked.code).toBe(1);
      expect(checked.stderr).toBe('');

      await migrate(empty.db, shipped.slice(0, 2));
      const partly = JSON.parse((await status('--json')).stdout) as { appliedAt: string | null }[];
      expect(partly.map((migration) => migration.appliedAt !== null)).toEqual(
        shipped.map((_, index) => index < 2),
      );
    } finally {
      await empty.close();
    }
    // After: this file's own database, migrated up to date.
    const after = await runPortico(['migrate', '--status', '--check'], { database: database() });
    expectSuccess(after);
    expect(after.stdout).toMatch(
      new RegExp(`^${migrationName(last ?? { version: 0, name: '' })} +applied \\d{4}-\\d\\d-\\d\\dT`, 'm'),
    );
    expect(after.stdout.trimEnd().split('\n').at(-1)).toBe('The schema is up to date.');

    // A node of an older release, against a schema a newer release migrated: it names what it does not know.
    await database().query(
      "insert into schema_migrations (version, name) values (9999, 'from_a_newer_release')",
    );
    try {
      const newer = await runPortico(['migrate', '--status'], { database: database() });
      expect(newer.stdout).toMatch(/^9999_from_a_newer_release +applied \S+ \(by a newer Portico\)$/m);
    } finally {
      await database().query('delete from schema_migrations where version = 9999');
    }
  });
});
