// The organization console's JSON routes on the Transactions service (/console/api): signing in to an
// organization, the team and its roles, invitations and password resets by real SMTP on loopback, and that no
// organization reads or changes another's. Every request comes "through a TLS-terminating proxy"
// (x-forwarded-proto: https), as the session cookie is Secure.
import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPortfolioInstance } from '../../support/data/portfolio.ts';
import type { ConsoleRole } from '../../../src/accounts/roles.ts';
import { loadMigrations } from '../../../src/db/migrate.ts';
import type {
  TeamActivityEntry,
  QueueRow,
  TimelineEntry,
  TransactionDetail,
  WorkflowPanel,
} from '../../../src/transactions/console/contract.ts';
import { CONSOLE_PATH } from '../../../src/transactions/console/links.ts';
import {
  type Browser,
  PASSWORD,
  createPerson,
  linkToken,
  mailTo,
  uniqueEmail,
  type DashboardPerson,
} from '../../support/data/dashboard.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import {
  api,
  browser,
  consoleApiWorld,
  organizationWith as withPeople,
  signedIn as signedInAs,
  transactionWithTeam,
  TRANSACTIONS_URL,
} from '../../support/data/console-api.ts';
import { fanOutEvents } from '../../../src/webhooks/delivery.ts';
import { createEndpoint } from '../../../src/webhooks/endpoints.ts';
import { organizationStory, type TransactionState } from '../../support/data/stories.ts';
import {
  CREATE_TRANSACTION,
  TRIGGER_TRANSACTION_EVENT,
  graphql,
  transactionInput,
} from '../../support/data/transactions.ts';

const world = madeBeforeAll('the console', consoleApiWorld);

/** A new organization of its own, with a person of each role asked for (admin first). */
const organizationWith = (roles?: ConsoleRole[]) => withPeople(world, roles, 'console');

function signedIn(person: DashboardPerson | undefined): Promise<Browser> {
  return signedInAs(world, person);
}

describe('signing in to the console', () => {
  it("signs a person in to their organization's console, answers who they are with a CSRF token, and signs them out", async () => {
    const { people, handle, organization } = await organizationWith(['operator']);
    const operator = people.operator;
    const page = await signedIn(operator);
    expect(page.cookieAttributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Strict', `Path=${CONSOLE_PATH}`]),
    );
    const session = await page.session();
    expect(session.body).toEqual({
      csrfToken: expect.any(String),
      user: { id: operator?.id, email: operator?.email, name: operator?.name, role: 'operator' },
      organization: { handle, name: organization.name },
      secondFactorRequired: false,
    });
    expect((await page.request('DELETE', api('/session'))).status).toBe(200);
    expect((await page.session()).body).toMatchObject({ user: null, organization: null });
    expect((await page.get(api('/team'))).status).toBe(401);
  });

  it('asks which organization when one address and password open two, and signs in to the one named', async () => {
    const email = uniqueEmail('two-funds');
    const first = await organizationWith([]);
    const second = await organizationWith([]);
    for (const { organization } of [first, second]) {
      await createPerson(world.db, {
        tenant: { kind: 'organization', id: organization.id },
        role: 'viewer',
        email,
      });
    }
    const page = browser(world);
    const ask = await page.signIn({ email, password: PASSWORD });
    expect(ask.status).toBe(409);
    expect(ask.body).toMatchObject({
      error: {
        code: 'ORGANIZATION_CHOICE_REQUIRED',
        details: {
          organizations: expect.arrayContaining([
            { handle: first.handle, name: first.organization.name },
            { handle: second.handle, name: second.organization.name },
          ]),
        },
      },
    });
    const chosen = await page.signIn({ email, password: PASSWORD, organization: second.handle });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ organization: { handle: second.handle } });
  });

  it('does not sign a dashboard person in to the console, and answers as for a wrong password', async () => {
    const instance = await createPortfolioInstance(world.db);
    const person = await createPerson(world.db, {
      tenant: { kind: 'instance', id: instance.instanceId },
      role: 'admin',
    });
    const refused = await browser(world).signIn({ email: person.email, password: person.password });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { code: 'INVALID_CREDENTIALS' } });
  });

  it('refuses a change without the CSRF token of the session', async () => {
    const { people } = await organizationWith(['admin']);
    const page = await signedIn(people.admin);
    const refused = await page.request(
      'POST',
      api('/team'),
      { email: uniqueEmail(), role: 'viewer' },
      { csrfToken: null },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'CSRF_INVALID' } });
  });
});

describe('the team', () => {
  it('lets an admin invite a reviewer by mail, whose link sets their password and signs them in as a reviewer', async () => {
    const { people, organization } = await organizationWith(['admin']);
    const page = await signedIn(people.admin);
    const email = uniqueEmail('reviewer');
    const received = world.smtp.received.length;
    const invited = await page.request('POST', api('/team'), {
      email,
      role: 'reviewer',
      name: 'Rae <b>View</b>',
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({
      person: { email, role: 'reviewer', name: 'Rae <b>View</b>', active: false, deactivatedAt: null },
    });

    const mail = await mailTo(world.smtp, email, { after: received });
    expect(mail.parsed.subject).toBe(`You are invited to ${organization.name}`);
    const token = linkToken(mail, 'invitation', `${TRANSACTIONS_URL}/console`);
    const theirs = browser(world);
    await theirs.session();
    const accepted = await theirs.request('POST', api('/invitation'), { token, password: PASSWORD });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ user: { email, role: 'reviewer' } });

    const activity = await page.get(api('/team/activity'));
    expect((activity.body as { entries: TeamActivityEntry[] }).entries).toEqual([
      expect.objectContaining({
        kind: 'team',
        action: 'invited',
        actor: { id: people.admin?.id, label: people.admin?.name },
        person: expect.objectContaining({ label: 'Rae <b>View</b>' }),
        details: { role: 'reviewer' },
      }),
    ]);
    const team = await page.get(api('/team'));
    expect(team.body).toMatchObject({
      people: [
        { email: people.admin?.email, role: 'admin', active: true },
        { email, role: 'reviewer', active: true },
      ],
    });
  });

  it.each(['operator', 'reviewer', 'viewer'] as const)(
    'refuses people of the %s role who invite or deactivate people with 403 naming who may, and changes nothing',
    async (role) => {
      const { people, organization } = await organizationWith(['admin', role]);
      const page = await signedIn(people[role]);
      expect((await page.get(api('/team'))).status).toBe(200);
      const invite = await page.request('POST', api('/team'), { email: uniqueEmail(), role: 'admin' });
      expect(invite.status).toBe(403);
      expect(invite.body).toMatchObject({
        error: {
          code: 'FORBIDDEN',
          message: `Only admins invite and deactivate people; you are a ${role} of ${organization.name}.`,
        },
      });
      const deactivate = await page.request('POST', api(`/team/${people.admin?.id ?? ''}/deactivate`));
      expect(deactivate.status).toBe(403);
      const [row] = await world.db.query<{ count: string }>(
        'select count(*) from users where organization_id = $1 and deactivated_at is null',
        [organization.id],
      );
      expect(Number(row?.count)).toBe(2);
    },
  );

  it('deactivates a person: their session ends at once, they cannot sign in, and inviting them again brings them back', async () => {
    const { people, organization } = await organizationWith(['admin', 'operator']);
    const admin = await signedIn(people.admin);
    const operator = people.operator;
    const theirs = await signedIn(operator);

    const done = await admin.request('POST', api(`/team/${operator?.id ?? ''}/deactivate`));
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ person: { id: operator?.id, deactivatedAt: expect.any(String) } });
    expect((await theirs.get(api('/team'))).status).toBe(401);
    const again = await browser(world).signIn({ email: operator?.email ?? '', password: PASSWORD });
    expect(again.status).toBe(401);

    const received = world.smtp.received.length;
    const invited = await admin.request('POST', api('/team'), { email: operator?.email, role: 'viewer' });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ person: { role: 'viewer', active: false, deactivatedAt: null } });
    const token = linkToken(
      await mailTo(world.smtp, operator?.email ?? '', { after: received }),
      'invitation',
      `${TRANSACTIONS_URL}/console`,
    );
    const back = browser(world);
    await back.session();
    expect(
      (await back.request('POST', api('/invitation'), { token, password: `${PASSWORD}!` })).body,
    ).toMatchObject({
      user: { role: 'viewer' },
      organization: { name: organization.name },
    });
  });

  it("refuses an admin's own deactivation, and answers another organization's person as one that does not exist", async () => {
    const mine = await organizationWith(['admin']);
    const theirs = await organizationWith(['admin']);
    const admin = await signedIn(mine.people.admin);
    const self = await admin.request('POST', api(`/team/${mine.people.admin?.id ?? ''}/deactivate`));
    expect(self.status).toBe(409);
    expect(self.body).toMatchObject({
      error: { code: 'CONFLICT', message: 'You cannot deactivate yourself: ask another admin.' },
    });
    for (const id of [theirs.people.admin?.id ?? '', randomUUID()]) {
      const other = await admin.request('POST', api(`/team/${id}/deactivate`));
      expect(other.status).toBe(404);
      expect(other.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    }
    const [row] = await world.db.query<{ deactivatedAt: Date | null }>(
      'select deactivated_at as "deactivatedAt" from users where id = $1',
      [theirs.people.admin?.id],
    );
    expect(row?.deactivatedAt).toBeNull();
  });

  it('mails a password reset link to the console, which sets a new password and ends the old sessions', async () => {
    const { people } = await organizationWith(['viewer']);
    const viewer = people.viewer;
    const old = await signedIn(viewer);
    const page = browser(world);
    await page.session();
    const received = world.smtp.received.length;
    expect((await page.request('POST', api('/password-reset'), { email: viewer?.email })).status).toBe(202);
    const mail = await mailTo(world.smtp, viewer?.email ?? '', { after: received });
    const token = linkToken(mail, 'reset-password', `${TRANSACTIONS_URL}/console`);
    const confirmed = await page.request('POST', api('/password-reset/confirm'), {
      token,
      password: 'a brand new passphrase',
    });
    expect(confirmed.status).toBe(200);
    expect((await old.get(api('/team'))).status).toBe(401);
    await browser(world).signInOrThrow({ email: viewer?.email ?? '', password: 'a brand new passphrase' });
  });
});

/** An organization with a transaction its investor has submitted, and a person of each role. */
/** A transaction in `state` of an organization of its own, and an operator signed in to its console. */
async function operatorOn(state: 'sent' | 'complete') {
  const story = await organizationStory(world.db, world.files, { transactions: [state] });
  const operator = await createPerson(world.db, {
    tenant: { kind: 'organization', id: story.organizationId },
    role: 'operator',
  });
  const path = (rest: string) => api(`/transactions/${story.transactionId}${rest}`);
  return { story, path, page: await signedIn(operator) };
}

/** A transaction in review, and a person of each role of its organization. */
const inReview = () => withTeam('submitted');

/** A transaction the story took to `state`, and a person of each role of its organization. */
const withTeam = (state: TransactionState) => transactionWithTeam(world, state);

describe('a transaction in the console', () => {
  it("shows the recipient's progress and the files, whose links download them", async () => {
    const { story, people, path } = await inReview();
    const page = await signedIn(people.viewer);
    const answer = await page.get(path());
    expect(answer.status).toBe(200);
    const { transaction } = answer.body as { transaction: TransactionDetail };
    expect(transaction).toMatchObject({
      id: story.transactionId,
      state: 'in_review',
      template: { key: 'subscription' },
      noticeEmail: story.transactions[0]?.investor.email,
    });
    expect(transaction.recipients).toEqual([
      expect.objectContaining({
        role: 'investor',
        primary: true,
        percentDone: 100,
        submittedAt: expect.any(String),
        signedAt: expect.any(String),
        mail: expect.objectContaining({ invitationDueAt: expect.any(String), failures: 0 }),
      }),
    ]);
    expect(transaction.files).toEqual([
      expect.objectContaining({
        kind: 'upload',
        of: 'W-9 (U.S. persons) or W-8BEN (others) (Tax residency and forms)',
        name: story.transactions[0]?.files[0],
      }),
    ]);
    // The agreement is the investor's and the sender's (the countersigner role): the page offers the latter's signature.
    expect(transaction.documents).toEqual([
      {
        key: 'subscription_agreement',
        title: 'Subscription agreement',
        senderRole: 'countersigner',
        onPaper: false,
      },
    ]);
    const download = await world.app.inject({ method: 'GET', url: transaction.files[0]?.downloadPath ?? '' });
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('draws the workflow with the reason of each blocked event, and the events each role may trigger', async () => {
    const { people, path } = await inReview();
    const events = async (role: ConsoleRole) => {
      const { body } = await (await signedIn(people[role])).get(path('/workflow'));
      return (body as { workflow: { state: string; events: Record<string, unknown>[] } }).workflow;
    };
    const reviewer = await events('reviewer');
    expect(reviewer.state).toBe('in_review');
    const byKey = Object.fromEntries(reviewer.events.map((event) => [event.key, event]));
    expect(byKey.approve).toMatchObject({ allowed: true, reason: null, mayTrigger: true });
    expect(byKey.request_changes).toMatchObject({ allowed: true, mayTrigger: true });
    expect(byKey.countersign).toMatchObject({
      allowed: false,
      reason: 'Countersign: only from countersigning',
      mayTrigger: false,
    });
    expect(byKey.void).toMatchObject({ allowed: true, mayTrigger: false, messageRequired: true });
    expect((await events('operator')).events.every((event) => event.mayTrigger)).toBe(true);
    expect((await events('viewer')).events.some((event) => event.mayTrigger)).toBe(false);
  });

  it('previews an event, runs it against the state the page saw, and refuses the same click again as stale', async () => {
    const { people, path } = await inReview();
    const reviewer = await signedIn(people.reviewer);
    const preview = await reviewer.request('POST', path('/events/preview'), { eventKey: 'request_changes' });
    expect(preview.body).toEqual({
      preview: {
        eventKey: 'request_changes',
        from: 'in_review',
        to: 'changes_requested',
        actions: [{ openRevision: 'subscription' }],
        messageRequired: false,
        mails: [{ to: 'primary_recipient', role: 'investor', kind: 'changes_requested' }],
        webhooks: ['transaction.state_changed'],
        completes: false,
      },
    });
    const { body } = await reviewer.get(path('/workflow'));
    const { version } = (body as { workflow: { version: string } }).workflow;
    const run = () =>
      reviewer.request('POST', path('/events'), {
        eventKey: 'request_changes',
        version,
        message: 'The address, please.',
      });
    const first = await run();
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      outcome: 'done',
      sourceStateKey: 'in_review',
      targetStateKey: 'changes_requested',
    });
    const again = await run();
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      error: {
        code: 'STALE_STATE',
        details: { state: 'changes_requested', movedBy: people.reviewer?.name, eventKey: 'request_changes' },
      },
    });

    const { body: timeline } = await reviewer.get(`${path('/timeline')}?kind=workflow&actor=user`);
    expect((timeline as { entries: TimelineEntry[] }).entries).toEqual([
      expect.objectContaining({
        action: 'request_changes',
        requestId: first.headers['x-request-id'],
        actor: { type: 'user', id: people.reviewer?.id, label: people.reviewer?.name },
        details: { from: 'in_review', to: 'changes_requested', message: 'The address, please.' },
      }),
    ]);
  });

  it('refuses an event a role may not trigger with 403, a void without its reason, and an event the engine blocks with its reason', async () => {
    const { people, path } = await inReview();
    const version = async (page: Browser) =>
      ((await page.get(path('/workflow'))).body as { workflow: { version: string } }).workflow.version;
    const viewer = await signedIn(people.viewer);
    const forbidden = await viewer.request('POST', path('/events'), {
      eventKey: 'approve',
      version: await version(viewer),
    });
    expect(forbidden.status).toBe(403);
    const reviewer = await signedIn(people.reviewer);
    const noVoid = await reviewer.request('POST', path('/events'), {
      eventKey: 'void',
      version: await version(reviewer),
      message: 'Closed.',
    });
    expect(noVoid.body).toMatchObject({
      error: {
        code: 'FORBIDDEN',
        message:
          'Only admins and operators may void; reviewers may request changes or approve. You are a reviewer.',
      },
    });
    const operator = await signedIn(people.operator);
    const unexplained = await operator.request('POST', path('/events'), {
      eventKey: 'void',
      version: await version(operator),
      message: '   ',
    });
    expect(unexplained.status).toBe(400);
    expect(unexplained.body).toMatchObject({
      error: { code: 'BAD_USER_INPUT', details: { field: 'message' } },
    });
    const blocked = await operator.request('POST', path('/events'), {
      eventKey: 'countersign',
      version: await version(operator),
    });
    expect(blocked.status).toBe(409);
    expect(blocked.body).toMatchObject({
      error: { code: 'INVALID_EVENT', details: { reason: 'countersign: only from countersigning' } },
    });
    const voided = await operator.request('POST', path('/events'), {
      eventKey: 'void',
      version: await version(operator),
      message: 'The fund closed.',
    });
    expect(voided.body).toEqual({ outcome: 'done', sourceStateKey: 'in_review', targetStateKey: 'voided' });
  });

  it("greys the investor's submit with what their form lacks, and refuses it as the API does, for an admin too", async () => {
    const { people, path } = await withTeam('sent');
    const admin = await signedIn(people.admin);
    const { body } = await admin.get(path('/workflow'));
    const { workflow } = body as { workflow: WorkflowPanel };
    const missing =
      'submit: 3 required answers, 1 consent, 1 upload and 1 signature missing in About you, Tax residency and forms, Accreditation and Subscription agreement';
    // The panel says it in words; the refusals as the API does.
    expect(workflow.events.find((event) => event.key === 'submit')).toMatchObject({
      allowed: false,
      reason: `S${missing.slice(1)}`,
      mayTrigger: true,
    });
    const preview = await admin.request('POST', path('/events/preview'), { eventKey: 'submit' });
    expect(preview.status).toBe(409);
    expect(preview.body).toMatchObject({
      error: { code: 'REVISION_INCOMPLETE', details: { reason: missing } },
    });
    const run = await admin.request('POST', path('/events'), {
      eventKey: 'submit',
      version: workflow.version,
    });
    expect(run.status).toBe(409);
    expect(run.body).toMatchObject({ error: { code: 'REVISION_INCOMPLETE', details: { reason: missing } } });
    const after = await admin.get(path('/workflow'));
    expect((after.body as { workflow: WorkflowPanel }).workflow.state).toBe('in_progress');
  });

  it('lets reviewers comment on a field, refuses a field that does not exist and a viewer, and shows the comment in the review', async () => {
    const { people, path } = await inReview();
    const reviewer = await signedIn(people.reviewer);
    const made = await reviewer.request('POST', path('/comments'), {
      vulcanKey: 'investor_details',
      field: 'address',
      body: '<script>alert(1)</script> Is this the registered address?',
      forInvestor: true,
    });
    expect(made.status).toBe(201);
    const missing = await reviewer.request('POST', path('/comments'), {
      vulcanKey: 'investor_details',
      field: 'nope',
      body: 'x',
      forInvestor: true,
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: { code: 'BAD_USER_INPUT', details: { field: 'field' } } });
    // Who reads it is asked every time: a comment that does not say is refused, never sent to the investor.
    const unsaid = await reviewer.request('POST', path('/comments'), {
      vulcanKey: 'investor_details',
      field: 'address',
      body: 'Checked.',
    });
    expect(unsaid.status).toBe(400);
    const viewer = await signedIn(people.viewer);
    const refused = await viewer.request('POST', path('/comments'), {
      vulcanKey: 'investor_details',
      field: 'address',
      body: 'x',
      forInvestor: true,
    });
    expect(refused.status).toBe(403);
    const review = await viewer.get(path('/review'));
    expect(review.body).toMatchObject({
      processes: [{ key: 'subscription', revisions: [{ number: 1 }], changes: null }],
      comments: [
        {
          field: 'address',
          body: '<script>alert(1)</script> Is this the registered address?',
          forInvestor: true,
          resolvedAt: null,
        },
      ],
    });
    const id = (made.body as { comment: { id: string } }).comment.id;
    const resolved = await reviewer.request('POST', api(`/comments/${id}/resolve`));
    expect(resolved.body).toMatchObject({ comment: { id, resolvedAt: expect.any(String) } });
  });

  it('shows a field the recipient filled in only on their second submission as added, without a value before', async () => {
    const { story, people, path } = await inReview();
    const reviewer = await signedIn(people.reviewer);
    const { workflow } = (await reviewer.get(path('/workflow'))).body as { workflow: WorkflowPanel };
    const asked = await reviewer.request('POST', path('/events'), {
      eventKey: 'request_changes',
      version: workflow.version,
    });
    expect(asked.status).toBe(200);
    const investor = story.transactions[0]?.investor;
    const token = story.transactions[0]?.transmitToken ?? '';
    for (const [method, url, payload] of [
      [
        'PUT',
        'items/investor_details',
        {
          data: {
            legalName: investor?.name,
            email: investor?.email,
            address: '12 Harbor Lane, Boston, MA 02110',
            dateOfBirth: '1979-04-18',
            phone: '+1 617 555 0100',
          },
        },
      ],
      ['POST', 'esign', { act: 'consented' }],
      ['POST', 'documents/subscription_agreement/signatures', { signedName: investor?.name, consent: true }],
      ['POST', 'processes/subscription/submit', undefined],
    ] as const) {
      const response = await world.app.inject({
        method,
        url: `/recipient/${token}/${url}`,
        ...(payload ? { payload } : {}),
      });
      expect(response.statusCode, response.body).toBeLessThan(300);
    }
    const review = await reviewer.get(path('/review'));
    expect(review.status).toBe(200);
    expect(review.body).toMatchObject({
      processes: [
        {
          changes: {
            from: 1,
            to: 2,
            fields: [
              { vulcanKey: 'investor_details', field: 'phone', change: 'added', after: '+1 617 555 0100' },
            ],
          },
        },
      ],
    });
  });

  it("shows the API calls that changed it in its timeline: the key's prefix, the request and its Idempotency-Key's fingerprint", async () => {
    const { story, people } = await inReview();
    const created = await graphql(
      world.app,
      story.apiKey,
      CREATE_TRANSACTION,
      { input: transactionInput(story) },
      { 'idempotency-key': 'create-ada-1' },
    );
    const id = (created.body.data?.createTransaction as { transactionId: string }).transactionId;
    const triggered = await graphql(world.app, story.apiKey, TRIGGER_TRANSACTION_EVENT, {
      input: { transactionId: id, eventKey: 'send' },
    });
    expect(triggered.body.errors).toBeUndefined();
    const page = await signedIn(people.viewer);
    const { body } = await page.get(api(`/transactions/${id}/timeline?kind=api`));
    const prefix = story.apiKey.slice(0, 12);
    expect((body as { entries: TimelineEntry[] }).entries).toEqual([
      expect.objectContaining({
        action: 'createTransaction',
        requestId: created.headers['x-request-id'],
        actor: expect.objectContaining({ type: 'api_key', label: expect.stringContaining(prefix) }),
        // The first 8 hex digits of the SHA-256 of "create-ada-1" (`printf %s create-ada-1 | sha256sum`).
        details: { idempotencyKeySha256: 'c906543b' },
      }),
      expect.objectContaining({
        action: 'triggerTransactionEvent',
        requestId: triggered.headers['x-request-id'],
        details: {},
      }),
    ]);
  });

  it('never shows a viewer an Idempotency-Key, nor keeps one in clear, and still replays the call it sealed', async () => {
    const { story, people } = await inReview();
    const key = `retry-${randomUUID()}`;
    const send = () =>
      graphql(
        world.app,
        story.apiKey,
        CREATE_TRANSACTION,
        { input: transactionInput(story, { noticeEmail: 'replayed@example.com' }) },
        { 'idempotency-key': key },
      );
    const first = await send();
    const replayed = await send();
    expect(first.body.errors).toBeUndefined();
    // The replay opens the result sealed under the key: the same transaction and link, made once.
    expect(replayed.body).toEqual(first.body);
    const id = (first.body.data?.createTransaction as { transactionId: string }).transactionId;
    const page = await signedIn(people.viewer);
    const timeline = await page.get(api(`/transactions/${id}/timeline`));
    expect(timeline.status).toBe(200);
    expect(timeline.text).not.toContain(key);
    const fingerprint = createHash('sha256').update(key).digest('hex').slice(0, 8);
    expect(timeline.text).toContain(`"idempotencyKeySha256":"${fingerprint}"`);
    const [stored] = await world.db.query<{ count: number }>(
      `select count(*)::int as count from transaction_activity where details::text like '%' || $1 || '%'`,
      [key],
    );
    expect(stored?.count).toBe(0);
  });

  it('rewrites the Idempotency-Keys that timelines kept in clear into their fingerprints when migrated', async () => {
    const { story } = await inReview();
    const written = await world.db.query<{ id: string }>(
      `insert into transaction_activity (organization_id, transaction_id, kind, action, actor_type, details)
       values ($1, $2, 'api', 'createTransaction', 'api_key', $3), ($1, $2, 'api', 'voidTransaction', 'api_key', '{}'),
         ($1, $2, 'console', 'commented', 'user', $4)
       returning id`,
      [
        story.organizationId,
        story.transactionId,
        { idempotencyKey: 'create-ada-1', note: 'kept' },
        { idempotencyKey: 'not an api call' },
      ],
    );
    const migration = (await loadMigrations()).find((each) => each.name === 'idempotency_key_fingerprints');
    await world.db.transaction((tx) => tx.exec(migration?.sql ?? 'select missing_migration()'));
    const rows = await world.db.query<{ details: Record<string, unknown> }>(
      'select details from transaction_activity where id = any($1::uuid[]) order by sequence',
      [written.map((row) => row.id)],
    );
    expect(rows.map((row) => row.details)).toEqual([
      { idempotencyKeySha256: 'c906543b', note: 'kept' },
      {},
      { idempotencyKey: 'not an api call' },
    ]);
  });

  it('reminds the recipient now, resets their link and sets when it expires, each in the timeline, for operators only', async () => {
    const story = await organizationStory(world.db, world.files, { transactions: ['sent'] });
    const operator = await createPerson(world.db, {
      tenant: { kind: 'organization', id: story.organizationId },
      role: 'operator',
    });
    const reviewer = await createPerson(world.db, {
      tenant: { kind: 'organization', id: story.organizationId },
      role: 'reviewer',
    });
    const path = (rest: string) => api(`/transactions/${story.transactionId}${rest}`);
    const page = await signedIn(operator);
    expect((await (await signedIn(reviewer)).request('POST', path('/remind'))).status).toBe(403);

    const reminded = await page.request('POST', path('/remind'));
    expect(reminded.status).toBe(200);
    const [notice] = await world.db.query<{ due: boolean }>(
      'select next_reminder_at <= clock_timestamp() as due from recipient_notices where transaction_id = $1',
      [story.transactionId],
    );
    expect(notice?.due).toBe(true);

    const inAMonth = new Date(Date.now() + 30 * 24 * 3600 * 1000).toISOString();
    const expiry = await page.request('PUT', path('/link-expiry'), { expiresAt: inAMonth });
    expect(expiry.body).toEqual({ expiresAt: inAMonth });
    const past = await page.request('PUT', path('/link-expiry'), { expiresAt: '2020-01-01T00:00:00.000Z' });
    expect(past.body).toMatchObject({ error: { code: 'BAD_USER_INPUT', details: { field: 'expiresAt' } } });
    const tooFar = await page.request('PUT', path('/link-expiry'), {
      expiresAt: new Date(Date.now() + 400 * 24 * 3600 * 1000).toISOString(),
    });
    expect(tooFar.status).toBe(400);

    const oldLink = story.transactions[0]?.transmitToken ?? '';
    const reset = await page.request('POST', path('/reset-link'));
    expect(reset.status).toBe(200);
    const refused = await world.app.inject({ method: 'GET', url: `/recipient/${oldLink}` });
    expect(refused.json()).toMatchObject({ error: { code: 'LINK_REVOKED' } });

    const { body } = await page.get(`${path('/timeline')}?kind=console`);
    expect(
      (body as { entries: TimelineEntry[] }).entries.map((entry) => [entry.action, entry.actor.label]),
    ).toEqual([
      ['reminded', operator.name],
      ['expiry_set', operator.name],
      ['link_reset', operator.name],
    ]);
  });

  it('queues one reminder for two clicks at once, and refuses another within a minute saying when it can be asked', async () => {
    const { story, path, page } = await operatorOn('sent');
    const linkActions = async () =>
      ((await page.get(path(''))).body as { transaction: TransactionDetail }).transaction.linkActions;
    expect((await linkActions()).remind).toEqual({ allowed: true, reason: null });

    const answers = await Promise.all([
      page.request('POST', path('/remind')),
      page.request('POST', path('/remind')),
    ]);
    expect(answers.map((answer) => answer.status).toSorted()).toEqual([200, 409]);
    const refused = answers.find((answer) => answer.status === 409);
    expect(refused?.body).toMatchObject({
      error: {
        code: 'CONFLICT',
        message: expect.stringMatching(
          /^A reminder was asked for \d+ seconds ago: another can be asked in \d+ seconds\.$/,
        ),
      },
    });
    const [count] = await world.db.query<{ n: number }>(
      `select count(*)::int as n from transaction_activity where transaction_id = $1 and action = 'reminded'`,
      [story.transactionId],
    );
    expect(count?.n).toBe(1);
    // The page is told the same, before anyone clicks.
    const after = await linkActions();
    expect(after.remind).toEqual({
      allowed: false,
      reason: expect.stringMatching(/^A reminder was asked for/),
    });
    expect(after.resetLink).toEqual({ allowed: true, reason: null });

    // A minute later, another may be asked for.
    await world.db.query(
      `update transaction_activity set created_at = created_at - interval '61 seconds'
       where transaction_id = $1 and action = 'reminded'`,
      [story.transactionId],
    );
    expect((await page.request('POST', path('/remind'))).status).toBe(200);
  });

  it('tells the page which link actions a complete transaction refuses, and why, as the actions answer', async () => {
    const { path, page } = await operatorOn('complete');
    const { transaction } = (await page.get(path(''))).body as { transaction: TransactionDetail };
    const reason = 'This transaction is complete: its recipient has nothing more to do.';
    expect(transaction.linkActions).toEqual({
      remind: { allowed: false, reason },
      resetLink: { allowed: false, reason },
      setLinkExpiry: { allowed: false, reason },
    });
    const inAWeek = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();
    for (const [method, url, body] of [
      ['POST', path('/remind'), undefined],
      ['POST', path('/reset-link'), undefined],
      ['PUT', path('/link-expiry'), { expiresAt: inAWeek }],
    ] as const) {
      const answer = await page.request(method, url, body);
      expect(answer.body, url).toMatchObject({ error: { code: 'CONFLICT', message: reason } });
    }
  });

  it('refuses a reminder when the recipient has nothing to submit, and any action on a voided transaction', async () => {
    const { people, path } = await inReview();
    const operator = await signedIn(people.operator);
    const nothing = await operator.request('POST', path('/remind'));
    expect(nothing.status).toBe(409);
    expect(nothing.body).toMatchObject({
      error: {
        code: 'CONFLICT',
        message: 'The recipient has nothing to submit now: a reminder would ask them for nothing.',
      },
    });
    const { body } = await operator.get(path('/workflow'));
    const { version } = (body as { workflow: { version: string } }).workflow;
    await operator.request('POST', path('/events'), { eventKey: 'void', version, message: 'Closed.' });
    for (const [method, url] of [
      ['POST', path('/remind')],
      ['POST', path('/reset-link')],
    ] as const) {
      const answer = await operator.request(method, url);
      expect(answer.body, url).toMatchObject({
        error: { code: 'CONFLICT', message: expect.stringContaining('voided') },
      });
    }
  });

  it("lists what the organization's people did, newest first, naming each transaction by its investor and each comment by its text, and one person's alone, never another organization's", async () => {
    const { story, people, path } = await inReview();
    const reviewer = await signedIn(people.reviewer);
    await reviewer.request('POST', path('/comments'), {
      vulcanKey: 'tax_forms',
      field: 'taxResidency',
      body: 'Sure?',
      forInvestor: true,
    });
    const { body } = await reviewer.get(path('/workflow'));
    const { version } = (body as { workflow: { version: string } }).workflow;
    await reviewer.request('POST', path('/events'), { eventKey: 'request_changes', version });
    const other = await inReview();
    await (
      await signedIn(other.people.reviewer)
    ).request('POST', other.path('/comments'), {
      vulcanKey: 'tax_forms',
      field: 'taxResidency',
      body: 'Theirs.',
      forInvestor: true,
    });

    const admin = await signedIn(people.admin);
    const all = await admin.get(api('/team/activity'));
    const entries = (all.body as { entries: TeamActivityEntry[] }).entries;
    expect(entries.map((entry) => [entry.kind, entry.action, entry.actor.label])).toEqual([
      ['workflow', 'request_changes', people.reviewer?.name],
      ['console', 'commented', people.reviewer?.name],
    ]);
    expect(entries[0]?.transaction).toEqual({
      id: story.transactionId,
      investorName: story.transactions[0]?.investor.name,
    });
    // A comment is told with its text and who reads it; an event with its template's titles.
    expect(entries[1]?.details).toMatchObject({ comment: 'Sure?', forInvestor: true });
    expect(entries[0]?.details).toMatchObject({
      titles: { event: 'Request changes', from: 'in review', to: 'changes requested' },
    });
    const mine = await admin.get(api(`/team/activity?person=${people.admin?.id ?? ''}`));
    expect((mine.body as { entries: unknown[] }).entries).toEqual([]);
  });

  it('asks a second person to approve an event the template names, who runs it; the one who asked cannot', async () => {
    const story = await organizationStory(world.db, world.files, {
      transactions: ['submitted'],
      template: (example) => ({ ...example, workflow: { ...example.workflow, secondPerson: ['void'] } }),
    });
    const person = (role: ConsoleRole) =>
      createPerson(world.db, { tenant: { kind: 'organization', id: story.organizationId }, role });
    const [first, second] = [await signedIn(await person('operator')), await signedIn(await person('admin'))];
    const path = (rest: string) => api(`/transactions/${story.transactionId}${rest}`);
    const panel = async (page: Browser) =>
      ((await page.get(path('/workflow'))).body as { workflow: WorkflowPanel }).workflow;
    const before = await panel(first);
    expect(before.events.find((event) => event.key === 'void')).toMatchObject({ needsSecondPerson: true });
    expect(before.events.find((event) => event.key === 'approve')).toMatchObject({
      needsSecondPerson: false,
    });

    const asked = await first.request('POST', path('/events'), {
      eventKey: 'void',
      version: before.version,
      message: 'The fund is closed.',
    });
    expect(asked.body).toMatchObject({
      outcome: 'asked',
      approval: { eventKey: 'void', message: 'The fund is closed.' },
    });
    const { approval } = asked.body as { approval: { id: string } };
    const again = await first.request('POST', path('/events'), {
      eventKey: 'void',
      version: before.version,
      message: 'x',
    });
    expect(again.body).toMatchObject({ error: { code: 'CONFLICT', details: { approvalId: approval.id } } });
    expect((await panel(second)).state).toBe('in_review');
    expect((await panel(second)).pendingApproval).toMatchObject({ id: approval.id, eventKey: 'void' });

    const self = await first.request('POST', api(`/approvals/${approval.id}/approve`));
    expect(self.body).toMatchObject({
      error: { code: 'FORBIDDEN', message: 'You asked for void: a second person approves or declines it.' },
    });
    const approved = await second.request('POST', api(`/approvals/${approval.id}/approve`));
    expect(approved.body).toEqual({
      outcome: 'approved',
      sourceStateKey: 'in_review',
      targetStateKey: 'voided',
    });
    const after = await panel(first);
    expect(after).toMatchObject({ state: 'voided', pendingApproval: null });
    expect(after.path.at(-1)).toMatchObject({ eventKey: 'void', message: 'The fund is closed.' });
    expect((await second.request('POST', api(`/approvals/${approval.id}/approve`))).status).toBe(404);
    const { body } = await first.get(`${path('/timeline')}?kind=console`);
    expect((body as { entries: TimelineEntry[] }).entries.map((entry) => entry.action)).toEqual([
      'approval_requested',
      'approval_granted',
    ]);
  });

  it('drops a request a second person declines, and one the transaction has moved past as stale', async () => {
    const story = await organizationStory(world.db, world.files, {
      transactions: ['submitted'],
      template: (example) => ({ ...example, workflow: { ...example.workflow, secondPerson: ['void'] } }),
    });
    const person = (role: ConsoleRole) =>
      createPerson(world.db, { tenant: { kind: 'organization', id: story.organizationId }, role });
    const [first, second] = [
      await signedIn(await person('operator')),
      await signedIn(await person('operator')),
    ];
    const path = (rest: string) => api(`/transactions/${story.transactionId}${rest}`);
    const version = async () =>
      ((await first.get(path('/workflow'))).body as { workflow: WorkflowPanel }).workflow.version;
    const ask = async () => {
      const { body } = await first.request('POST', path('/events'), {
        eventKey: 'void',
        version: await version(),
        message: 'No.',
      });
      return (body as { approval: { id: string } }).approval.id;
    };
    const declined = await ask();
    expect((await second.request('POST', api(`/approvals/${declined}/decline`))).body).toEqual({
      outcome: 'declined',
    });
    const stale = await ask();
    await first.request('POST', path('/events'), { eventKey: 'request_changes', version: await version() });
    const refused = await second.request('POST', api(`/approvals/${stale}/approve`));
    expect(refused.body).toMatchObject({
      error: { code: 'STALE_STATE', details: { eventKey: 'request_changes' } },
    });
    expect((await second.request('POST', api(`/approvals/${stale}/approve`))).status).toBe(404);
    expect(((await first.get(path('/workflow'))).body as { workflow: WorkflowPanel }).workflow).toMatchObject(
      {
        state: 'changes_requested',
        pendingApproval: null,
      },
    );
  });

  it.each([
    ['the text "true"', 'true'],
    ['the number 1', 1],
    ['the list [true]', [true]],
  ])(
    'refuses a countersignature whose consent is %s, naming the field, and signs only with the JSON true',
    async (_, consent) => {
      const { story, people, path } = await inReview();
      const approved = await graphql(world.app, story.apiKey, TRIGGER_TRANSACTION_EVENT, {
        input: { transactionId: story.transactionId, eventKey: 'approve' },
      });
      expect(approved.body.errors).toBeUndefined();
      const page = await signedIn(people.admin);
      const signature = { documentKey: 'subscription_agreement', signedName: 'Ada Admin for Test Capital' };
      const refused = await page.request('POST', path('/sign'), { ...signature, consent });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        error: {
          code: 'BAD_USER_INPUT',
          message: 'The field "consent" must be true or false.',
          details: { field: 'consent' },
        },
      });
      const withheld = await page.request('POST', path('/sign'), { ...signature, consent: false });
      expect(withheld.body).toMatchObject({
        error: { code: 'CONSENT_REQUIRED', details: { field: 'consent' } },
      });
      const signed = await page.request('POST', path('/sign'), { ...signature, consent: true });
      expect(signed.status).toBe(200);
      expect(signed.body).toEqual({ documentKey: 'subscription_agreement', state: 'COMPLETED' });
    },
  );

  it("answers another organization's transaction as one that does not exist on every route", async () => {
    const theirs = await inReview();
    const { people } = await organizationWith(['admin']);
    const page = await signedIn(people.admin);
    const other = (rest = '') => api(`/transactions/${theirs.story.transactionId}${rest}`);
    for (const url of [other(), other('/timeline'), other('/review'), other('/workflow')]) {
      expect((await page.get(url)).status, url).toBe(404);
    }
    for (const [url, body] of [
      [other('/events'), { eventKey: 'approve', version: null }],
      [other('/events/preview'), { eventKey: 'approve' }],
      [other('/comments'), { vulcanKey: 'investor_details', field: 'address', body: 'x', forInvestor: true }],
    ] as const) {
      expect((await page.request('POST', url, body)).status, url).toBe(404);
    }
  });
});

describe('webhooks from the console', () => {
  it('sends a webhook delivery again for an operator, in the timeline, and never one of another organization', async () => {
    const { story, people, path } = await inReview();
    await createEndpoint(world.db, {
      organizationId: story.organizationId,
      url: 'http://127.0.0.1:9/hooks',
      eventTypes: ['transaction.state_changed'],
      allowInsecure: true,
    });
    await fanOutEvents(world.db);
    const [delivery] = await world.db.query<{ id: string }>(
      `select d.id from webhook_deliveries d join outbox_events o on o.id = d.event_id
       where o.transaction_id = $1 order by d.sequence limit 1`,
      [story.transactionId],
    );
    await world.db.query("update webhook_deliveries set status = 'failed', attempts = 8 where id = $1", [
      delivery?.id,
    ]);
    const url = api(`/webhook-deliveries/${delivery?.id ?? ''}/resend`);
    expect((await (await signedIn(people.viewer)).request('POST', url)).status).toBe(403);
    const operator = await signedIn(people.operator);
    expect((await operator.request('POST', url)).body).toEqual({ resent: true });
    const [after] = await world.db.query<{ status: string; attempts: number }>(
      'select status, attempts from webhook_deliveries where id = $1',
      [delivery?.id],
    );
    expect(after).toEqual({ status: 'pending', attempts: 0 });
    const { body } = await operator.get(`${path('/timeline')}?kind=console`);
    expect((body as { entries: TimelineEntry[] }).entries.map((entry) => entry.action)).toEqual([
      'webhook_resent',
    ]);
    const stranger = (await organizationWith(['operator'])).people.operator;
    expect((await (await signedIn(stranger)).request('POST', url)).status).toBe(404);
  });
});

describe('the work queue', () => {
  it("lists the organization's transactions with a tab per state and its count, searched, and only its own", async () => {
    const story = await organizationStory(world.db, world.files, {
      transactions: ['submitted', 'sent', 'created'],
    });
    await organizationStory(world.db, world.files, { transactions: ['submitted'] });
    const viewer = await signedIn(
      await createPerson(world.db, {
        tenant: { kind: 'organization', id: story.organizationId },
        role: 'viewer',
      }),
    );
    const { body } = await viewer.get(api('/queue'));
    const page = body as {
      rows: QueueRow[];
      tabs: { state: string; count: number }[];
      nextCursor: string | null;
    };
    expect(page.rows.map((row) => row.id).sort()).toEqual(story.transactions.map((each) => each.id).sort());
    expect(page.nextCursor).toBeNull();
    const counts = Object.fromEntries(page.tabs.map((tab) => [tab.state, tab.count]));
    expect(counts).toMatchObject({ in_review: 1, in_progress: 1, draft: 1, completed: 0 });

    const investor = story.transactions[1]?.investor.email ?? '';
    const found = await viewer.get(
      `${api('/queue')}?search=${encodeURIComponent(investor.slice(0, 14))}&state=in_progress`,
    );
    expect((found.body as { rows: QueueRow[] }).rows.map((row) => row.noticeEmail)).toEqual([investor]);
    const short = await viewer.get(`${api('/queue')}?search=ab`);
    expect(short.body).toMatchObject({ error: { code: 'BAD_USER_INPUT', details: { field: 'search' } } });

    const options = await viewer.get(api('/queue/options'));
    expect(options.body).toMatchObject({
      templates: [{ key: 'subscription' }],
      senders: [{ id: story.senderEntityId }],
    });
  });

  it("assigns a transaction to a colleague and unassigns it, for operators, in the timeline, and never to another organization's person", async () => {
    const { story, people, path } = await inReview();
    const operator = await signedIn(people.operator);
    const assigned = await operator.request('PUT', path('/assignee'), { userId: people.reviewer?.id });
    expect(assigned.body).toEqual({ assignee: { id: people.reviewer?.id, name: people.reviewer?.name } });
    const { body } = await operator.get(api('/queue'));
    expect(
      (body as { rows: QueueRow[] }).rows.find((row) => row.id === story.transactionId)?.assignee,
    ).toEqual({
      id: people.reviewer?.id,
      name: people.reviewer?.name,
    });
    const viewer = await signedIn(people.viewer);
    expect((await viewer.request('PUT', path('/assignee'), { userId: null })).status).toBe(403);
    const stranger = (await organizationWith(['operator'])).people.operator;
    const refused = await operator.request('PUT', path('/assignee'), { userId: stranger?.id });
    expect(refused.status).toBe(404);
    const cleared = await operator.request('PUT', path('/assignee'), { userId: null });
    expect(cleared.body).toEqual({ assignee: null });
    const { body: timeline } = await operator.get(`${path('/timeline')}?kind=console`);
    expect(
      (timeline as { entries: TimelineEntry[] }).entries.map((entry) => [
        entry.action,
        entry.details.assignee,
      ]),
    ).toEqual([
      ['assigned', { id: people.reviewer?.id, name: people.reviewer?.name }],
      ['assigned', null],
    ]);
  });
});

describe("a transaction's history seal", () => {
  it('answers with the timeline the head of the whole history, and where it stops matching once a row is edited', async () => {
    const { story, people, path } = await transactionWithTeam(world, 'sent');
    const viewer = await signedIn(people.viewer);
    const [head] = await world.db.query<{ head: string }>(
      `select encode(head, 'hex') as head from transaction_history_heads where transaction_id = $1`,
      [story.transactionId],
    );
    const intact = await viewer.get(`${path('/timeline')}?kind=console`);
    expect((intact.body as { history: unknown }).history).toEqual({ head: head?.head, intact: true });

    await world.db.query(
      `update transaction_activity set details = '{"message": "voided"}' where transaction_id = $1 and kind = 'mail'`,
      [story.transactionId],
    );
    const [edited] = await world.db.query<{ position: number }>(
      `select chain_position::int as position from transaction_activity where transaction_id = $1 and kind = 'mail'
       order by chain_position limit 1`,
      [story.transactionId],
    );
    const broken = await viewer.get(path('/timeline'));
    expect((broken.body as { history: unknown }).history).toEqual({
      head: head?.head,
      intact: false,
      brokenAt: {
        position: edited?.position,
        reason: `entry ${String(edited?.position)} was edited: its content no longer matches its hash`,
      },
    });
  });
});
