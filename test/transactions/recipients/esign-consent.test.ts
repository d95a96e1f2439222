// Consent to sign electronically (ESIGN Act 15 U.S.C. 7001(c), UETA): the disclosure the portal shows before the
// recipient's first signature, the consent as an act recorded with its time, IP address and user agent, its
// withdrawal and a request for paper, each told to the organization by mail and shown on the console's page.
// Requests come "through a TLS-terminating proxy" (x-forwarded-for, x-forwarded-proto), as the app trusts it.
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadExampleTemplate } from '../../../src/demo/seed.ts';
import type { TimelineEntry, TransactionDetail } from '../../../src/transactions/console/contract.ts';
import { createRecipientNotices } from '../../../src/transactions/recipients/notice-sender.ts';
import { importTemplate } from '../../../src/transactions/templates/templates.ts';
import { mailTo, smtpMailer } from '../../support/data/dashboard.ts';
import {
  consoleApiWorld,
  portalRequest,
  signedIn,
  transactionWithTeam,
} from '../../support/data/console-api.ts';
import { CREATE_TRANSACTION, graphql, transactionInput } from '../../support/data/transactions.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import { runPortico } from '../../support/cli.ts';
import { organizationStory } from '../../support/data/stories.ts';

const world = madeBeforeAll('consent to sign electronically', consoleApiWorld);

/** Where the investor's browser is, as the proxy says. */
const INVESTOR = { ip: '203.0.113.7', userAgent: 'consent-test/1.0 (investor)' };

/** A request of the investor's portal, through the proxy. */
const portal = (token: string, method: 'GET' | 'POST', path: string, payload?: Record<string, unknown>) =>
  portalRequest(world, INVESTOR, token, method, path, payload);

const sign = (token: string) =>
  portal(token, 'POST', '/documents/subscription_agreement/signatures', {
    signedName: 'Grace Hopper',
    consent: true,
  });

/** A transaction sent to its investor, with a person of each role of the organization, and its pages. */
async function sentTransaction() {
  const team = await transactionWithTeam(world, 'sent');
  const [made] = team.story.transactions;
  if (!made) throw new Error('the story made no transaction');
  return { ...team, token: made.transmitToken, investor: made.investor };
}

/** Sends the mail due now, as the service's runs do after a request that queued some. */
function sendDueMail() {
  const mailer = smtpMailer(world.smtp.url());
  const notices = createRecipientNotices({
    db: world.db,
    mailer,
    transactionsUrl: 'https://transactions.test',
    intervalMs: 0,
  });
  return notices.runDue().finally(() => {
    mailer.close();
  });
}

async function signatures(transactionId: string): Promise<number> {
  const [row] = await world.db.query<{ count: number }>(
    `select count(*)::int as count from transaction_signatures s
     join transaction_signature_containers c on c.id = s.transaction_signature_container_id
     where c.transaction_id = $1`,
    [transactionId],
  );
  return row?.count ?? 0;
}

describe('the disclosure before the first signature', () => {
  it("says in the portal's view that consent is needed, with Portico's default disclosure naming the organization and its hash", async () => {
    const { token, story } = await sentTransaction();
    const view = await portal(token, 'GET', '');
    expect(view.status).toBe(200);
    const { disclosure, standing } = view.body.esign;
    expect(standing).toBeNull();
    expect(disclosure.source).toBe('default');
    expect(disclosure.text).toContain(`${story.name} asks you to receive the documents of this transaction`);
    expect(disclosure.text).toContain('Sign on paper instead');
    expect(disclosure.text).toContain(story.sender.email);
    expect(disclosure.sha256).toBe(createHash('sha256').update(disclosure.text).digest('hex'));
  });

  it('refuses a signature without a recorded consent (ESIGN_CONSENT_REQUIRED, 409) and signs nothing', async () => {
    const { token, story } = await sentTransaction();
    const refused = await sign(token);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'ESIGN_CONSENT_REQUIRED',
      message:
        'the recipient has not agreed to use electronic records and signatures: accept the disclosure, then sign',
      details: { consent: null },
    });
    expect(await signatures(story.transactionId)).toBe(0);
  });

  it('records the consent with its time, IP address, user agent and the disclosure shown, in the timeline, and then takes the signature', async () => {
    const { token, story, people, path } = await sentTransaction();
    const { body: view } = await portal(token, 'GET', '');
    const before = Date.now();
    const consented = await portal(token, 'POST', '/esign', { act: 'consented' });
    expect(consented.status).toBe(200);
    expect(consented.body).toEqual({
      act: 'consented',
      at: expect.any(String),
      disclosureSha256: view.esign.disclosure.sha256,
      message: null,
    });
    expect(Date.parse(consented.body.at)).toBeGreaterThanOrEqual(before - 1000);
    // Agreeing twice (a double click) records nothing more.
    expect((await portal(token, 'POST', '/esign', { act: 'consented' })).body).toEqual(consented.body);

    const rows = await world.db.query(
      `select act, ip_address as ip, user_agent as "userAgent", disclosure_source as source,
         disclosure_text as text, disclosure_sha256 as sha256, notice_due_at as "noticeDueAt"
       from esign_consents where transaction_id = $1`,
      [story.transactionId],
    );
    expect(rows).toEqual([
      {
        act: 'consented',
        ip: INVESTOR.ip,
        userAgent: INVESTOR.userAgent,
        source: 'default',
        text: view.esign.disclosure.text,
        sha256: view.esign.disclosure.sha256,
        noticeDueAt: null,
      },
    ]);
    expect((await portal(token, 'GET', '')).body.esign.standing).toEqual(consented.body);

    const console = await signedIn(world, people.viewer);
    const { body: timeline } = await console.get(`${path('/timeline')}?kind=recipient`);
    const entry = (timeline as { entries: TimelineEntry[] }).entries.find(
      (each) => each.action === 'esign_consented',
    );
    expect(entry).toMatchObject({
      kind: 'recipient',
      actor: { type: 'recipient' },
      details: { disclosureSha256: view.esign.disclosure.sha256, disclosureSource: 'default' },
    });

    expect((await sign(token)).status).toBe(200);
    expect(await signatures(story.transactionId)).toBe(1);
  });

  it("shows and records a template's own disclosure instead of the default", async () => {
    const { story } = await sentTransaction();
    const own = 'We deliver **every** document electronically.\n\nWrite to paper@fund.example for paper.';
    const template = await importTemplate(world.db, {
      organizationId: story.organizationId,
      definition: { ...(await loadExampleTemplate()), key: 'own_disclosure', disclosure: own },
    });
    const created = await graphql(world.app, story.apiKey, CREATE_TRANSACTION, {
      input: transactionInput({ templateId: template.id, senderEntityId: story.senderEntityId }),
    });
    expect(created.body.errors).toBeUndefined();
    const { transactionId, transmitToken } = created.body.data?.createTransaction as {
      transactionId: string;
      transmitToken: string;
    };
    const { body: view } = await portal(transmitToken, 'GET', '');
    expect(view.esign.disclosure).toEqual({
      source: 'template',
      text: own,
      sha256: createHash('sha256').update(own).digest('hex'),
    });
    await portal(transmitToken, 'POST', '/esign', { act: 'consented' });
    const [row] = await world.db.query(
      'select disclosure_source as source, disclosure_text as text from esign_consents where transaction_id = $1',
      [transactionId],
    );
    expect(row).toEqual({ source: 'template', text: own });
  });
});

describe("the organization's own disclosure", () => {
  it('is set from a Markdown file with portico org disclosure, shown where the template has none, and dropped with --default', async () => {
    const { token, story } = await sentTransaction();
    const own = 'Test Capital deals with you **electronically**.\n\n- Paper: write to paper@test.example';
    const dir = await mkdtemp(join(tmpdir(), 'portico-disclosure-'));
    try {
      const file = join(dir, 'disclosure.md');
      await writeFile(file, `${own}\n`);
      const set = await runPortico(['org', 'disclosure', '--org', story.handle, '--file', file], {
        database: world.db,
      });
      expect(set).toMatchObject({ code: 0, stderr: '' });
      const sha256 = createHash('sha256').update(own).digest('hex');
      expect(set.stdout).toBe(
        `Organization ${story.handle} shows its own disclosure (SHA-256 ${sha256}) where a template has none.\n`,
      );
      expect((await portal(token, 'GET', '')).body.esign.disclosure).toEqual({
        source: 'organization',
        text: own,
        sha256,
      });
      const reset = await runPortico(['org', 'disclosure', '--org', story.handle, '--default'], {
        database: world.db,
      });
      expect(reset).toMatchObject({ code: 0, stderr: '' });
      expect((await portal(token, 'GET', '')).body.esign.disclosure.source).toBe('default');
      const neither = await runPortico(['org', 'disclosure', '--org', story.handle], { database: world.db });
      expect(neither.code).not.toBe(0);
      expect(neither.stderr).toContain('give --file <path> or --default');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('withdrawing consent, or asking for paper', () => {
  it('refuses the next signature once the investor withdraws, mails the admins and operators, and the console says so', async () => {
    const { token, story, people, path, investor } = await sentTransaction();
    await portal(token, 'POST', '/esign', { act: 'consented' });
    const mailedBefore = world.smtp.received.length;
    const withdrawn = await portal(token, 'POST', '/esign', {
      act: 'withdrawn',
      message: 'I would rather read these on paper.',
    });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body).toMatchObject({
      act: 'withdrawn',
      message: 'I would rather read these on paper.',
    });

    const refused = await sign(token);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'ESIGN_CONSENT_REQUIRED',
      details: { consent: 'withdrawn', at: withdrawn.body.at },
    });
    expect(await signatures(story.transactionId)).toBe(0);

    expect((await sendDueMail()).esignNotices).toBe(1);
    for (const person of [people.admin, people.operator]) {
      const mail = await mailTo(world.smtp, person?.email ?? '', { after: mailedBefore });
      expect(mail.parsed.subject).toBe(
        `${investor.name} withdrew consent to sign electronically: Fund subscription`,
      );
      expect(mail.parsed.text).toContain('I would rather read these on paper.');
      expect(mail.parsed.text).toContain(
        `https://transactions.test/console/transactions/${story.transactionId}`,
      );
    }
    const others = world.smtp.received
      .slice(mailedBefore)
      .filter((mail) =>
        [people.reviewer?.email, people.viewer?.email].some((to) => mail.envelope.to.includes(to ?? '')),
      );
    expect(others).toEqual([]);
    // Sent once: the next run has nothing due.
    expect((await sendDueMail()).esignNotices).toBe(0);

    const console = await signedIn(world, people.viewer);
    const { body } = await console.get(path());
    const detail = (body as { transaction: TransactionDetail }).transaction;
    expect(detail.recipients.find((recipient) => recipient.primary)?.esign).toEqual({
      act: 'withdrawn',
      at: expect.any(String),
      message: 'I would rather read these on paper.',
    });
    const { body: timeline } = await console.get(path('/timeline'));
    const actions = (timeline as { entries: TimelineEntry[] }).entries.map((entry) => [
      entry.kind,
      entry.action,
    ]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ['recipient', 'esign_withdrawn'],
        ['mail', 'sent'],
      ]),
    );

    // Agreeing again lets them sign.
    await portal(token, 'POST', '/esign', { act: 'consented' });
    expect((await sign(token)).status).toBe(200);
  });

  it('takes a request for paper before any consent, refuses signatures likewise, and mails the assignee alone when there is one', async () => {
    const { token, people, path, investor } = await sentTransaction();
    const admin = await signedIn(world, people.admin);
    expect((await admin.request('PUT', path('/assignee'), { userId: people.reviewer?.id })).status).toBe(200);
    const mailedBefore = world.smtp.received.length;

    const paper = await portal(token, 'POST', '/esign', { act: 'paper_requested' });
    expect(paper.status).toBe(200);
    expect(paper.body).toMatchObject({ act: 'paper_requested', message: null });
    expect((await sign(token)).body.error).toMatchObject({
      code: 'ESIGN_CONSENT_REQUIRED',
      message:
        'the recipient withdrew their agreement to use electronic records and signatures and asked for paper: accept the disclosure again to sign here',
      details: { consent: 'paper_requested' },
    });

    expect((await sendDueMail()).esignNotices).toBe(1);
    const mail = await mailTo(world.smtp, people.reviewer?.email ?? '', { after: mailedBefore });
    expect(mail.parsed.subject).toBe(`${investor.name} asked to sign on paper: Fund subscription`);
    const team = [people.admin, people.operator, people.reviewer, people.viewer].map(
      (person) => person?.email ?? '',
    );
    const toTeam = world.smtp.received
      .slice(mailedBefore)
      .flatMap((received) => received.envelope.to.filter((to) => team.includes(to)));
    expect(toTeam).toEqual([people.reviewer?.email]);

    const { body } = await admin.get(path());
    expect(
      (body as { transaction: TransactionDetail }).transaction.recipients.find(
        (recipient) => recipient.primary,
      )?.esign,
    ).toMatchObject({
      act: 'paper_requested',
    });
  });

  it('marks the notice of an organization with no admin or operator done, with no mail in its timeline', async () => {
    const story = await organizationStory(world.db, world.files, { transactions: ['sent'] });
    const token = story.transactions[0]?.transmitToken ?? '';
    expect((await portal(token, 'POST', '/esign', { act: 'paper_requested' })).status).toBe(200);
    expect((await sendDueMail()).esignNotices).toBe(0);
    const [row] = await world.db.query<{ due: Date | null; notified: boolean; mails: number }>(
      `select c.notice_due_at as due, c.notified_at is not null as notified,
         (select count(*)::int from transaction_activity a where a.transaction_id = c.transaction_id
            and a.kind = 'mail' and a.details ->> 'message' = 'paper_requested') as mails
       from esign_consents c where c.transaction_id = $1`,
      [story.transactionId],
    );
    expect(row).toEqual({ due: null, notified: true, mails: 0 });
  });

  it('refuses to withdraw a consent that was never given (CONFLICT), and a message over 1,000 characters', async () => {
    const { token } = await sentTransaction();
    const nothing = await portal(token, 'POST', '/esign', { act: 'withdrawn' });
    expect(nothing.status).toBe(409);
    expect(nothing.body.error.code).toBe('CONFLICT');
    const long = await portal(token, 'POST', '/esign', { act: 'paper_requested', message: 'x'.repeat(1001) });
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('BAD_USER_INPUT');
  });
});
