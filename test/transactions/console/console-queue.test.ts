import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { loadMigrations, migrate } from '../../../src/db/migrate.ts';
import { createPostgresDatabase } from '../../../src/db/postgres-database.ts';
import { inviteUser, removeUser } from '../../../src/accounts/users.ts';
import { loadExampleTemplate } from '../../../src/demo/seed.ts';
import { AppError } from '../../../src/errors.ts';
import { createFileLinks } from '../../../src/files/file-links.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import { assignTransaction } from '../../../src/transactions/console/queue/assignee.ts';
import {
  readQueue,
  type QueueQuery,
  type QueueRow,
  type QueueSort,
} from '../../../src/transactions/console/queue/queue.ts';
import { transactionDetail } from '../../../src/transactions/console/transaction/detail.ts';
import { createTransaction } from '../../../src/transactions/create-transaction.ts';
import { updateEntity } from '../../../src/transactions/entities.ts';
import { primaryRecipient, saveItem, submitRevision } from '../../../src/transactions/recipients/actions.ts';
import { importTemplate } from '../../../src/transactions/templates/templates.ts';
import { applyEvent, lockOwnTransaction } from '../../../src/transactions/transitions.ts';
import { createTestSchema, TEST_DATABASE_URL } from '../../support/db/database.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import { createPGliteFromTemplate } from '../../support/db/pglite-template.ts';
import { transactionStory } from '../../support/data/stories.ts';
import { addEntity, createEmptyTenant, type EmptyTenant } from '../../support/data/transactions-suite.ts';
import { testDatabaseAndFiles } from '../../support/data/transactions.ts';

const suite = madeBeforeAll('the database', (closeAfterAll) => testDatabaseAndFiles(closeAfterAll));
const db = (): Database => suite.db;
const files = (): FileStore => suite.files;

const SYSTEM = { type: 'system' as const, id: null };

/** A transaction of the organization made through createTransaction, in the template's initial state (draft). */
async function make(
  tenant: EmptyTenant,
  notice: { name: string; email: string },
  overrides: { templateId?: string; senderEntityId?: string } = {},
): Promise<string> {
  return db().transaction(async (tx) => {
    const { transactionId } = await createTransaction(tx, {
      organizationId: tenant.organizationId,
      actor: SYSTEM,
      input: {
        templateId: overrides.templateId ?? tenant.templateId,
        senderEntityId: overrides.senderEntityId ?? tenant.senderEntityId,
        noticeName: notice.name,
        noticeEmail: notice.email,
      },
    });
    return transactionId;
  });
}

async function trigger(tenant: EmptyTenant, id: string, eventKey: string, message?: string): Promise<void> {
  await db().transaction(async (tx) => {
    const subject = await lockOwnTransaction(tx, { id, organizationId: tenant.organizationId });
    await applyEvent(tx, subject, eventKey, SYSTEM, message);
  });
}

const read = (tenant: EmptyTenant, query: QueueQuery = {}) =>
  readQueue(db(), { organizationId: tenant.organizationId, query });
const ids = (rows: readonly QueueRow[]) => rows.map((row) => row.id).sort();

async function refusal(work: Promise<unknown>): Promise<AppError> {
  const error: unknown = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

/** Moves a transaction's times back by `days` (its state entered then, and nothing since). */
async function age(id: string, days: number, column = 'state_entered_at'): Promise<void> {
  await db().query(`update transactions set ${column} = now() - make_interval(days => $2) where id = $1`, [
    id,
    days,
  ]);
}

/**
 * One organization with transactions of two templates (the subscription in two versions and a side letter),
 * two sender entities and four states; read only by the tests of this describe. Beside it another organization
 * whose investor has the same name.
 */
const world = madeBeforeAll('the organizations', async () => {
  const tenant = await createEmptyTenant(db());
  const other = await createEmptyTenant(db());
  const harborId = await addEntity(db(), tenant.organizationId, {
    name: 'Harbor Growth Partners',
    email: 'ops@harbor.example',
    type: 'fund',
  });
  const example = await loadExampleTemplate();
  // Ada's entity, the primary recipient's, bears another name than the one her invitation goes to.
  await addEntity(db(), tenant.organizationId, {
    name: 'Byron Family Trust',
    email: 'ada@analytical.example',
    type: 'trust',
  });
  const ada = await make(tenant, { name: 'Ada Lovelace', email: 'ada@analytical.example' });
  const grace = await make(tenant, { name: 'Grace Hopper', email: 'grace@navy.example' });
  await trigger(tenant, grace, 'send');
  // Version 2 of the subscription: the first is used now.
  const v2 = await importTemplate(db(), {
    organizationId: tenant.organizationId,
    definition: { ...example, description: 'Version two' },
  });
  const alan = await make(
    tenant,
    { name: 'Alan Turing', email: 'alan@bletchley.example' },
    { templateId: v2.id, senderEntityId: harborId },
  );
  const sideLetter = await importTemplate(db(), {
    organizationId: tenant.organizationId,
    definition: { ...example, key: 'side_letter', name: 'Side letter' },
  });
  const katherine = await make(
    tenant,
    { name: 'Katherine Johnson', email: 'kj@langley.example' },
    { templateId: sideLetter.id },
  );
  const submitted = await transactionStory(db(), files(), tenant, { state: 'submitted' });
  const stranger = await make(other, { name: 'Ada Lovelace', email: 'ada@elsewhere.example' });
  return { tenant, other, harborId, v2, ada, grace, alan, katherine, submitted: submitted.id, stranger };
});

describe('a read of the queue', () => {
  it('gives a tab for each state of the templates, counting the organization’s transactions in it', async () => {
    const { tenant } = world;
    const page = await read(tenant);
    expect(page.tabs).toEqual([
      // The side letter (key order first) has the same states; each state is one tab, named in words (the
      // templates give no titles).
      { state: 'draft', title: 'draft', count: 3, final: false },
      { state: 'in_progress', title: 'in progress', count: 1, final: false },
      { state: 'in_review', title: 'in review', count: 1, final: false },
      { state: 'changes_requested', title: 'changes requested', count: 0, final: false },
      { state: 'countersigning', title: 'countersigning', count: 0, final: false },
      { state: 'completed', title: 'completed', count: 0, final: true },
    ]);
    expect(page.rows).toHaveLength(5);
  });

  it('keeps the tabs’ counts equal to a count of the rows as transactions are made and change state', async () => {
    const { tenant, harborId } = world;
    // inStateForDays: 0 filters nothing out but makes the read count rows instead of summing the kept counts.
    expect((await read(tenant)).tabs).toEqual((await read(tenant, { inStateForDays: 0 })).tabs);
    const bySender = { senderEntityId: harborId, templateKey: 'subscription' };
    expect((await read(tenant, bySender)).tabs).toEqual(
      (await read(tenant, { ...bySender, inStateForDays: 0 })).tabs,
    );
  });

  it('counts the tabs with every filter but the state', async () => {
    const { tenant, harborId, alan } = world;
    const page = await read(tenant, { state: 'in_progress', senderEntityId: harborId });
    expect(page.rows).toEqual([]);
    expect(page.tabs?.find((tab) => tab.state === 'draft')?.count).toBe(1);
    expect(page.tabs?.reduce((sum, tab) => sum + tab.count, 0)).toBe(1);
    expect(ids((await read(tenant, { state: 'draft', senderEntityId: harborId })).rows)).toEqual([alan]);
  });

  it('filters by template key, taking in every version of it', async () => {
    const { tenant, ada, grace, alan, katherine, submitted } = world;
    const subscription = await read(tenant, { templateKey: 'subscription' });
    expect(ids(subscription.rows)).toEqual([ada, grace, alan, submitted].sort());
    expect(new Set(subscription.rows.map((row) => row.template.version))).toEqual(new Set([1, 2]));
    const sideLetter = await read(tenant, { templateKey: 'side_letter' });
    expect(ids(sideLetter.rows)).toEqual([katherine]);
    expect(sideLetter.rows[0]?.template).toMatchObject({ key: 'side_letter', name: 'Side letter' });
    expect((await read(tenant, { templateKey: 'nothing_of_ours' })).rows).toEqual([]);
  });

  it('filters by state and by sender entity', async () => {
    const { tenant, grace, harborId, alan, submitted } = world;
    expect(ids((await read(tenant, { state: 'in_progress' })).rows)).toEqual([grace]);
    expect(ids((await read(tenant, { state: 'in_review' })).rows)).toEqual([submitted]);
    const harbor = await read(tenant, { senderEntityId: harborId });
    expect(ids(harbor.rows)).toEqual([alan]);
    expect(harbor.rows[0]?.senderEntity).toEqual({ id: harborId, name: 'Harbor Growth Partners' });
  });

  it('searches the investor’s name and e-mail address by fragment, in any case', async () => {
    const { tenant, ada, grace } = world;
    expect(ids((await read(tenant, { search: 'lovel' })).rows)).toEqual([ada]);
    expect(ids((await read(tenant, { search: 'GRACE HOP' })).rows)).toEqual([grace]);
    expect(ids((await read(tenant, { search: 'navy.exam' })).rows)).toEqual([grace]);
    // LIKE's wildcards are matched as themselves.
    expect((await read(tenant, { search: 'a%e' })).rows).toEqual([]);
  });

  it('searches the sender entity’s name', async () => {
    const { tenant, alan } = world;
    const page = await read(tenant, { search: 'harbor growth' });
    expect(ids(page.rows)).toEqual([alan]);
    expect(page.tabs?.find((tab) => tab.state === 'draft')?.count).toBe(1);
  });

  it('names the investor by the primary recipient’s entity, with the contact person the mail goes to', async () => {
    const { tenant, ada, grace } = world;
    const rows = new Map((await read(tenant)).rows.map((row) => [row.id, row]));
    expect(rows.get(ada)).toMatchObject({
      investorName: 'Byron Family Trust',
      noticeName: 'Ada Lovelace',
      noticeEmail: 'ada@analytical.example',
    });
    // A new investor's entity is named as the invitation was.
    expect(rows.get(grace)).toMatchObject({ investorName: 'Grace Hopper', noticeName: 'Grace Hopper' });
  });

  it('searches the investor’s entity by its legal name and the contact person by theirs', async () => {
    const { tenant, ada } = world;
    const page = await read(tenant, { search: 'family tru' });
    expect(ids(page.rows)).toEqual([ada]);
    expect(page.tabs?.find((tab) => tab.state === 'draft')?.count).toBe(1);
    expect(ids((await read(tenant, { search: 'BYRON FAMILY' })).rows)).toEqual([ada]);
    // A tab without a match still has the search's counts.
    const otherTab = await read(tenant, { search: 'family tru', state: 'in_review' });
    expect(otherTab.rows).toEqual([]);
    expect(otherTab.tabs).toEqual(page.tabs);
    expect(ids((await read(tenant, { search: 'ada lovelace' })).rows)).toEqual([ada]);
  });

  it('finds a transaction by its whole id and by the beginning of it', async () => {
    const { tenant, katherine } = world;
    expect(ids((await read(tenant, { search: katherine })).rows)).toEqual([katherine]);
    expect(ids((await read(tenant, { search: katherine.toUpperCase() })).rows)).toEqual([katherine]);
    const prefix = await read(tenant, { search: katherine.slice(0, 13) });
    expect(ids(prefix.rows)).toContain(katherine);
  });

  it('never shows another organization’s transactions, nor counts them', async () => {
    const { tenant, other, ada, stranger } = world;
    expect(ids((await read(tenant, { search: 'Ada Lovelace' })).rows)).toEqual([ada]);
    expect((await read(tenant, { search: stranger })).rows).toEqual([]);
    const theirs = await read(other);
    expect(ids(theirs.rows)).toEqual([stranger]);
    expect(theirs.tabs?.reduce((sum, tab) => sum + tab.count, 0)).toBe(1);
  });

  it('refuses a query beyond its limits, naming the field', async () => {
    const { tenant } = world;
    const cases: [QueueQuery, string][] = [
      [{ first: 101 }, 'first'],
      [{ first: 0 }, 'first'],
      [{ search: 'ab' }, 'search'],
      [{ search: 'x'.repeat(101) }, 'search'],
      [{ senderEntityId: 'not-a-uuid' }, 'senderEntityId'],
      [{ sort: 'cheapest' as QueueSort }, 'sort'],
      [{ inStateForDays: -1 }, 'inStateForDays'],
      [{ stalledAfterDays: 0 }, 'stalledAfterDays'],
    ];
    for (const [query, field] of cases) {
      const error = await refusal(read(tenant, query));
      expect(error.code).toBe('BAD_USER_INPUT');
      expect(error.details).toMatchObject({ field });
    }
  });

  it('refuses a cursor of another list or anything that is not one', async () => {
    const { tenant } = world;
    const first = await read(tenant, { first: 2 });
    expect(first.nextCursor).not.toBeNull();
    const after = first.nextCursor ?? '';
    expect((await refusal(read(tenant, { first: 2, sort: 'oldest', after }))).code).toBe('INVALID_CURSOR');
    expect((await refusal(read(world.other, { first: 2, after }))).code).toBe('INVALID_CURSOR');
    expect((await refusal(read(tenant, { first: 2, after: 'not a cursor' }))).code).toBe('INVALID_CURSOR');
    expect((await read(tenant, { first: 2, after })).tabs).toBeNull();
  });
});

describe('the investor', () => {
  /** An organization whose investor is a trust, reached through its trustee's address. */
  async function withTrust(email: string): Promise<{ tenant: EmptyTenant; trustId: string; id: string }> {
    const tenant = await createEmptyTenant(db());
    const trustId = await addEntity(db(), tenant.organizationId, {
      name: 'Redwood Family Trust',
      email,
      type: 'trust',
    });
    const id = await make(tenant, { name: 'Morgan Redwood', email });
    return { tenant, trustId, id };
  }

  it('finds a legal name in the organization only, though another organization’s investor bears it too', async () => {
    const ours = await withTrust('trustee@redwood.example');
    const theirs = await withTrust('trustee@redwood-elsewhere.example');
    const page = await read(ours.tenant, { search: 'redwood family' });
    expect(ids(page.rows)).toEqual([ours.id]);
    expect(page.rows[0]).toMatchObject({
      investorName: 'Redwood Family Trust',
      noticeName: 'Morgan Redwood',
    });
    expect(page.tabs?.reduce((sum, tab) => sum + tab.count, 0)).toBe(1);
    expect(ids((await read(theirs.tenant, { search: 'Redwood Family Trust' })).rows)).toEqual([theirs.id]);
  });

  it('follows a rename of the investor’s entity in the row, the search and the transaction’s heading', async () => {
    const { tenant, trustId, id } = await withTrust('trustee@redwood.example');
    await updateEntity(db(), {
      organizationId: tenant.organizationId,
      id: trustId,
      name: 'Redwood Trust 2019',
    });
    expect((await read(tenant)).rows[0]?.investorName).toBe('Redwood Trust 2019');
    expect(ids((await read(tenant, { search: 'trust 2019' })).rows)).toEqual([id]);
    expect((await read(tenant, { search: 'redwood family' })).rows).toEqual([]);
    const detail = await transactionDetail(db(), {
      organizationId: tenant.organizationId,
      transactionId: id,
      links: createFileLinks(Buffer.alloc(32, 1)),
    });
    expect(detail).toMatchObject({
      investorName: 'Redwood Trust 2019',
      noticeName: 'Morgan Redwood',
      noticeEmail: 'trustee@redwood.example',
    });
  });

  it('takes the name of a primary recipient written after its transaction, as a restore writes them', async () => {
    const tenant = await createEmptyTenant(db());
    const [row] = await db().query<{ id: string }>(
      `insert into transactions (organization_id, template_id, sender_entity_id, state, notice_name, notice_email)
       values ($1, $2, $3, 'draft', 'Morgan Redwood', 'morgan@redwood.example') returning id`,
      [tenant.organizationId, tenant.templateId, tenant.senderEntityId],
    );
    const id = row?.id ?? '';
    // No entity has the address yet: until its recipient is written, the investor is the contact.
    expect((await read(tenant)).rows[0]?.investorName).toBe('Morgan Redwood');
    const trustId = await addEntity(db(), tenant.organizationId, {
      name: 'Redwood Family Trust',
      email: 'morgan@redwood.example',
      type: 'trust',
    });
    await db().query(
      `insert into transaction_recipients (organization_id, transaction_id, entity_id, vulcan_key)
       values ($1, $2, $3, 'investor')`,
      [tenant.organizationId, id, trustId],
    );
    expect((await read(tenant)).rows[0]?.investorName).toBe('Redwood Family Trust');
  });

  it('stays the primary recipient’s when the sender joins as countersigner and is renamed', async () => {
    const tenant = await createEmptyTenant(db());
    const complete = await transactionStory(db(), files(), tenant, { state: 'complete' });
    expect(complete.recipients).toEqual(['investor', 'countersigner']);
    await updateEntity(db(), {
      organizationId: tenant.organizationId,
      id: tenant.senderEntityId,
      name: 'Test Capital Fund I, L.P. (renamed)',
    });
    const [row] = (await read(tenant)).rows;
    expect(row).toMatchObject({ investorName: complete.investor.name, stage: 'completed' });
    expect(row?.senderEntity.name).toBe('Test Capital Fund I, L.P. (renamed)');
  });
});

describe('the stages', () => {
  it('says from the workflow whether a row waits on the recipient or the team, or is completed or voided', async () => {
    const { tenant, ada, grace, submitted } = world;
    const stages = new Map((await read(tenant)).rows.map((row) => [row.id, row.stage]));
    // draft and in_progress: the recipient's submit leaves them; in_review: only the sponsor's events do.
    expect([stages.get(ada), stages.get(grace), stages.get(submitted)]).toEqual([
      'recipient',
      'recipient',
      'team',
    ]);
    const other = await createEmptyTenant(db());
    const voided = await make(other, { name: 'Dorothy Vaughan', email: 'dv@langley.example' });
    await trigger(other, voided, 'void', 'The fund closed.');
    const [row] = (await read(other)).rows;
    expect(row).toMatchObject({ state: 'voided', stage: 'voided' });
    const detail = await transactionDetail(db(), {
      organizationId: other.organizationId,
      transactionId: voided,
      links: createFileLinks(Buffer.alloc(32, 1)),
    });
    expect(detail.stage).toBe('voided');
  });
});

describe('the sorts', () => {
  const SORTS: {
    sort: QueueSort;
    column: 'created_at' | 'updated_at' | 'state_entered_at';
    desc: boolean;
  }[] = [
    { sort: 'newest', column: 'created_at', desc: true },
    { sort: 'oldest', column: 'created_at', desc: false },
    { sort: 'longest_in_state', column: 'state_entered_at', desc: false },
    { sort: 'recently_updated', column: 'updated_at', desc: true },
  ];
  let tenant: EmptyTenant;
  beforeAll(async () => {
    tenant = await createEmptyTenant(db());
    for (let index = 0; index < 7; index += 1) {
      await make(tenant, {
        name: `Investor ${String(index)}`,
        email: `investor${String(index)}@example.com`,
      });
    }
    // Ties: three rows share each time, in the order the sequence does not give (the middle row's time first).
    await db().query(
      `update transactions t set created_at = times.at, updated_at = times.at, state_entered_at = times.at
       from (select id, timestamptz '2026-11-01T10:00:00.123456Z' + (((sequence % 3) * 7) % 3) * interval '1 hour' as at
             from transactions where organization_id = $1) times
       where t.id = times.id`,
      [tenant.organizationId],
    );
  });

  for (const { sort, column, desc } of SORTS) {
    it(`walks ${sort} in pages that neither skip nor repeat a row across ties`, async () => {
      const expected = await db().query<{ id: string }>(
        `select id from transactions where organization_id = $1
         order by ${column} ${desc ? 'desc' : 'asc'}, sequence ${desc ? 'desc' : 'asc'}`,
        [tenant.organizationId],
      );
      const walked: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 10; pages += 1) {
        const page = await read(tenant, { sort, first: 2, after });
        walked.push(...page.rows.map((row) => row.id));
        if (page.nextCursor === null) break;
        after = page.nextCursor;
      }
      expect(walked).toEqual(expected.map((row) => row.id));
    });
  }
});

describe('a search in pages', () => {
  it('walks the matches in pages that neither skip nor repeat a row, the counts on the first only', async () => {
    const tenant = await createEmptyTenant(db());
    const made: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      made.push(
        await make(tenant, { name: `Lark ${String(index)}`, email: `lark${String(index)}@example.com` }),
      );
    }
    await make(tenant, { name: 'Someone Else', email: 'else@example.com' });
    const walked: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 5; pages += 1) {
      const page = await read(tenant, { search: 'lark', sort: 'oldest', first: 2, after });
      expect(page.tabs === null).toBe(after !== undefined);
      walked.push(...page.rows.map((row) => row.id));
      if (page.nextCursor === null) break;
      after = page.nextCursor;
    }
    expect(walked).toEqual(made);
  });
});

describe('the times a row shows', () => {
  it('moves stateEnteredAt when an event changes the state', async () => {
    const tenant = await createEmptyTenant(db());
    const id = await make(tenant, { name: 'Mary Jackson', email: 'mary@langley.example' });
    const before = (await read(tenant)).rows[0];
    await trigger(tenant, id, 'send');
    const after = (await read(tenant)).rows[0];
    const [event] = await db().query<{ createdAt: Date }>(
      `select created_at as "createdAt" from transaction_events where transaction_id = $1 and event_key = 'send'`,
      [id],
    );
    expect(after?.state).toBe('in_progress');
    expect(after?.stateEnteredAt.getTime()).toBeGreaterThan(before?.stateEnteredAt.getTime() ?? Infinity);
    expect(after?.stateEnteredAt.getTime()).toBeGreaterThanOrEqual(event?.createdAt.getTime() ?? Infinity);
  });

  it('filters by time in state', async () => {
    const tenant = await createEmptyTenant(db());
    const old = await make(tenant, { name: 'Dorothy Vaughan', email: 'dorothy@langley.example' });
    await make(tenant, { name: 'Christine Darden', email: 'christine@langley.example' });
    await age(old, 10);
    expect(ids((await read(tenant, { inStateForDays: 9 })).rows)).toEqual([old]);
    expect((await read(tenant, { inStateForDays: 11 })).rows).toEqual([]);
    expect((await read(tenant, { inStateForDays: 0 })).rows).toHaveLength(2);
  });

  it('moves recipientActiveAt when the recipient saves an item or submits, not when the sponsor acts', async () => {
    const tenant = await createEmptyTenant(db());
    const id = await make(tenant, { name: 'Annie Easley', email: 'annie@glenn.example' });
    await trigger(tenant, id, 'send');
    expect((await read(tenant)).rows[0]?.recipientActiveAt).toBeNull();
    await db().transaction(async (tx) => {
      const subject = await lockOwnTransaction(tx, { id, organizationId: tenant.organizationId });
      await saveItem(tx, subject, { vulcanKey: 'investor_details', data: { legalName: 'Annie Easley' } });
    });
    const saved = (await read(tenant)).rows[0]?.recipientActiveAt;
    expect(saved).toBeInstanceOf(Date);
    await db().transaction(async (tx) => {
      const subject = await lockOwnTransaction(tx, { id, organizationId: tenant.organizationId });
      const signer = await primaryRecipient(tx, subject);
      await submitRevision(tx, subject, {
        processKey: 'subscription',
        actor: { type: 'recipient', id: signer.recipientId },
      });
    });
    const submitted = (await read(tenant)).rows[0];
    expect(submitted?.state).toBe('in_review');
    expect(submitted?.recipientActiveAt?.getTime()).toBeGreaterThan(saved?.getTime() ?? Infinity);
    await trigger(tenant, id, 'request_changes');
    expect((await read(tenant)).rows[0]?.recipientActiveAt).toEqual(submitted?.recipientActiveAt);
  });

  it('says a row is stalled when the recipient has done nothing for the days asked while it is their turn', async () => {
    const tenant = await createEmptyTenant(db());
    const waiting = await make(tenant, { name: 'Katherine Coleman', email: 'kc@langley.example' });
    const fresh = await make(tenant, { name: 'Mae Jemison', email: 'mae@nasa.example' });
    const active = await make(tenant, { name: 'Sally Ride', email: 'sally@nasa.example' });
    const reviewing = await transactionStory(db(), files(), tenant, { state: 'submitted' });
    // Voided before the recipient submitted: nothing is theirs to do any more, however long ago.
    const voided = await make(tenant, { name: 'Dorothy Vaughan', email: 'dv@langley.example' });
    await trigger(tenant, voided, 'send');
    await trigger(tenant, voided, 'void', 'The fund closed before she signed.');
    for (const id of [waiting, active, reviewing.id, voided]) await age(id, 8);
    await age(active, 2, 'recipient_active_at');
    const stalled = async (query: QueueQuery = {}) =>
      new Map((await read(tenant, query)).rows.map((row) => [row.id, row.stalled]));
    // By default after 7 days; only the one whose recipient has a revision to submit and has not acted since
    // (not the voided one, though its revision stays open).
    expect(await stalled()).toEqual(
      new Map([
        [waiting, true],
        [fresh, false],
        [active, false],
        [reviewing.id, false],
        [voided, false],
      ]),
    );
    expect((await stalled({ stalledAfterDays: 9 })).get(waiting)).toBe(false);
    expect((await stalled({ stalledAfterDays: 1 })).get(active)).toBe(true);
  });
});

describe('assigning', () => {
  it('assigns a transaction to a user of the organization and unassigns it', async () => {
    const tenant = await createEmptyTenant(db());
    const id = await make(tenant, { name: 'Hedy Lamarr', email: 'hedy@example.com' });
    const { user } = await inviteUser(db(), {
      tenant: { kind: 'organization', id: tenant.organizationId },
      email: 'reviewer@test-capital.example',
      name: 'Rita Reviewer',
      role: 'operator',
    });
    const assignee = await assignTransaction(db(), {
      organizationId: tenant.organizationId,
      transactionId: id,
      userId: user.id,
    });
    expect(assignee).toEqual({ id: user.id, name: 'Rita Reviewer' });
    expect((await read(tenant)).rows[0]?.assignee).toEqual(assignee);
    expect(
      await assignTransaction(db(), {
        organizationId: tenant.organizationId,
        transactionId: id,
        userId: null,
      }),
    ).toBeNull();
    expect((await read(tenant)).rows[0]?.assignee).toBeNull();
  });

  it('leaves the transaction unassigned when its assignee is removed', async () => {
    const tenant = await createEmptyTenant(db());
    const id = await make(tenant, { name: 'Joan Clarke', email: 'joan@example.com' });
    const organization = { kind: 'organization' as const, id: tenant.organizationId };
    const { user } = await inviteUser(db(), {
      tenant: organization,
      email: 'op@test-capital.example',
      role: 'operator',
    });
    await assignTransaction(db(), {
      organizationId: tenant.organizationId,
      transactionId: id,
      userId: user.id,
    });
    await removeUser(db(), organization, user.id);
    expect((await read(tenant)).rows[0]?.assignee).toBeNull();
  });

  it('refuses a user or a transaction of another organization as not found', async () => {
    const tenant = await createEmptyTenant(db());
    const other = await createEmptyTenant(db());
    const id = await make(tenant, { name: 'Radia Perlman', email: 'radia@example.com' });
    const theirs = await make(other, { name: 'Frances Allen', email: 'frances@example.com' });
    const { user: stranger } = await inviteUser(db(), {
      tenant: { kind: 'organization', id: other.organizationId },
      email: 'someone@elsewhere.example',
      role: 'admin',
    });
    const { user: ours } = await inviteUser(db(), {
      tenant: { kind: 'organization', id: tenant.organizationId },
      email: 'ours@test-capital.example',
      role: 'admin',
    });
    const assign = (transactionId: string, userId: string | null) =>
      assignTransaction(db(), { organizationId: tenant.organizationId, transactionId, userId });
    const byStranger = await refusal(assign(id, stranger.id));
    expect([byStranger.code, byStranger.details]).toEqual(['NOT_FOUND', { field: 'userId' }]);
    const ofStranger = await refusal(assign(theirs, ours.id));
    expect([ofStranger.code, ofStranger.details]).toEqual(['NOT_FOUND', { field: 'transactionId' }]);
    expect((await refusal(assign('nonsense', null))).code).toBe('NOT_FOUND');
    expect((await read(tenant)).rows[0]?.assignee).toBeNull();
    expect((await read(other)).rows[0]?.assignee).toBeNull();
  });
});

describe('migration 0016', () => {
  it('backfills when each transaction entered its state, when its recipient last acted, and the tabs’ counts', async () => {
    const { db: fresh, close } = await emptyDatabase();
    try {
      const all = await loadMigrations();
      await migrate(
        fresh,
        all.filter((migration) => migration.version < 16),
      );
      const [row] = await fresh.query<{ id: string; org: string }>(
        `with org as (insert into organizations (handle, name) values ('before-0016', 'Before') returning id),
         tpl as (insert into templates (organization_id, key, version, name, definition)
                 select id, 'subscription', 1, 'Fund subscription', $1::jsonb from org returning id),
         fund as (insert into entities (organization_id, name, type) select id, 'Fund I', 'fund' from org returning id)
         insert into transactions (organization_id, template_id, sender_entity_id, state, notice_name, notice_email,
           created_at)
         select org.id, tpl.id, fund.id, 'in_review', 'Ada Lovelace', 'ada@example.com', now() - interval '10 days'
         from org, tpl, fund returning id, organization_id as org`,
        [JSON.stringify(await loadExampleTemplate())],
      );
      if (!row) throw new Error('no transaction');
      await fresh.query(
        `insert into transaction_events (organization_id, transaction_id, event_key, source_state, target_state,
           actor_type, created_at)
         values ($1, $2, 'create', null, 'draft', 'api_key', now() - interval '10 days'),
           ($1, $2, 'send', 'draft', 'in_progress', 'api_key', now() - interval '9 days'),
           ($1, $2, 'submit', 'in_progress', 'in_review', 'recipient', now() - interval '5 days'),
           ($1, $2, 'mail.reminder', 'in_review', 'in_review', 'system', now() - interval '1 day')`,
        [row.org, row.id],
      );
      await migrate(fresh, all);
      const [backfilled] = await fresh.query<{ entered: number; active: number }>(
        `select extract(day from now() - state_entered_at)::int as entered,
           extract(day from now() - recipient_active_at)::int as active
         from transactions where id = $1`,
        [row.id],
      );
      expect(backfilled).toEqual({ entered: 5, active: 5 });
      const page = await readQueue(fresh, { organizationId: row.org, query: {} });
      expect(page.tabs?.find((tab) => tab.state === 'in_review')?.count).toBe(1);
      expect(page.rows[0]?.stateEnteredAt.getTime()).toBeLessThan(Date.now() - 4 * 86_400_000);
    } finally {
      await close();
    }
  });

  it('lets an organization go with its transactions and their counts', async () => {
    const tenant = await createEmptyTenant(db());
    await make(tenant, { name: 'Edith Clarke', email: 'edith@example.com' });
    await db().query('delete from organizations where id = $1', [tenant.organizationId]);
    const [left] = await db().query<{ count: number }>(
      'select count(*)::int as count from transaction_state_counts where organization_id = $1',
      [tenant.organizationId],
    );
    expect(left?.count).toBe(0);
  });
});

describe('migration 0023', () => {
  it('backfills each transaction’s investor with its primary recipient’s entity, not another recipient’s', async () => {
    const { db: fresh, close } = await emptyDatabase();
    try {
      const all = await loadMigrations();
      await migrate(
        fresh,
        all.filter((migration) => migration.version < 23),
      );
      const [row] = await fresh.query<{ id: string; org: string }>(
        `with org as (insert into organizations (handle, name) values ('before-0023', 'Before') returning id),
         tpl as (insert into templates (organization_id, key, version, name, definition)
                 select id, 'subscription', 1, 'Fund subscription', $1::jsonb from org returning id),
         fund as (insert into entities (organization_id, name, type) select id, 'Fund I', 'fund' from org returning id),
         trust as (insert into entities (organization_id, name, email, type)
                   select id, 'Redwood Family Trust', 'trustee@redwood.example', 'trust' from org returning id),
         made as (
           insert into transactions (organization_id, template_id, sender_entity_id, state, notice_name, notice_email)
           select org.id, tpl.id, fund.id, 'countersigning', 'Morgan Redwood', 'trustee@redwood.example'
           from org, tpl, fund returning id, organization_id),
         recipients as (
           insert into transaction_recipients (organization_id, transaction_id, entity_id, vulcan_key)
           select made.organization_id, made.id, trust.id, 'investor' from made, trust
           union all
           select made.organization_id, made.id, fund.id, 'countersigner' from made, fund)
         select id, organization_id as org from made`,
        [JSON.stringify(await loadExampleTemplate())],
      );
      if (!row) throw new Error('no transaction');
      await migrate(fresh, all);
      const page = await readQueue(fresh, { organizationId: row.org, query: { search: 'redwood fam' } });
      expect(page.rows.map((each) => [each.id, each.investorName, each.noticeName])).toEqual([
        [row.id, 'Redwood Family Trust', 'Morgan Redwood'],
      ]);
    } finally {
      await close();
    }
  });
});

/** A database that initdb made and nothing else (PGlite), or a schema of its own (PostgreSQL), and its closing. */
async function emptyDatabase(): Promise<{ db: Database; close: () => Promise<void> }> {
  if (TEST_DATABASE_URL === undefined) {
    const empty = await createPGliteFromTemplate('empty');
    return { db: empty, close: () => empty.close() };
  }
  const url = TEST_DATABASE_URL;
  const { options, drop } = await createTestSchema(url);
  const empty = createPostgresDatabase({ connectionString: url, connectionOptions: options });
  return {
    db: empty,
    close: async () => {
      await empty.close();
      await drop();
    },
  };
}
