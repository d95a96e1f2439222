// The console's mail alerts: each person picks theirs (none until they do), and the digest job mails what happened
// in their organization at most once a quarter of an hour, through a real SMTP server, with a one-click stop that
// works without signing in. The job's clock is given to each run (`runDue(now)`): nothing sleeps.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Mailer } from '../../../src/mail/mailer.ts';
import { createAlertDigests } from '../../../src/transactions/console/alerts/digest-job.ts';
import type { AlertsAnswer } from '../../../src/transactions/console/alerts/alerts-contract.ts';
import { api, consoleApiWorld, signedIn, TRANSACTIONS_URL } from '../../support/data/console-api.ts';
import { countOf, createPerson, smtpMailer, type Browser } from '../../support/data/dashboard.ts';
import { organizationStory, transactionStory, type TransactionState } from '../../support/data/stories.ts';
import type { ReceivedMail } from '../../support/peers/smtp.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';

const world = madeBeforeAll('the console and an SMTP server', async (closeAfterAll) => {
  const made = await consoleApiWorld(closeAfterAll);
  const mailer: Mailer = smtpMailer(made.smtp.url());
  closeAfterAll(() => {
    mailer.close();
  });
  return { ...made, mailer };
});

const QUARTER_HOUR_MS = 15 * 60_000;

/** A digest job of the test's own: never on a timer, listing what happened up to the run's time. */
function digestJob() {
  return createAlertDigests({
    db: world.db,
    mailer: world.mailer,
    transactionsUrl: TRANSACTIONS_URL,
    intervalMs: 0,
    settleMs: 0,
  });
}

/** An organization of the example template, with a reviewer signed in to the console. */
async function organization() {
  const story = await organizationStory(world.db, world.files, { transactions: [] });
  const reviewer = await createPerson(world.db, {
    tenant: { kind: 'organization', id: story.organizationId },
    role: 'reviewer',
    name: 'Rita Reviewer',
  });
  const page = await signedIn(world, reviewer);
  /** Makes transactions of the organization, taken to `state` through the real lifecycle. */
  const make = async (
    state: TransactionState,
    count: number,
    options: { from?: number; rounds?: number } = {},
  ) => {
    const made = [];
    for (let index = 0; index < count; index += 1) {
      made.push(
        await transactionStory(world.db, world.files, story, {
          state,
          index: (options.from ?? 0) + index,
          rounds: options.rounds,
        }),
      );
    }
    return made;
  };
  return { story, reviewer, page, make };
}

async function pick(page: Browser, kinds: string[]): Promise<AlertsAnswer> {
  const saved = await page.request('PUT', api('/alerts'), { kinds });
  expect(saved.status).toBe(200);
  return saved.body as AlertsAnswer;
}

/** The mail received for `address` since `after` (an index into what the SMTP server received). */
const mailsTo = (address: string, after = 0): ReceivedMail[] =>
  world.smtp.received.slice(after).filter((mail) => mail.envelope.to.includes(address.toLowerCase()));

/** A header of a mail as it was sent (unfolded), e.g. `List-Unsubscribe`. */
function headerOf(mail: ReceivedMail, name: string): string | undefined {
  const head = mail.raw.split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const line = unfolded
    .split(/\r?\n/)
    .find((each) => each.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** The stop link of a digest, from its `List-Unsubscribe` header (`<https://…>`). */
function stopLinkOf(mail: ReceivedMail): string {
  const header = headerOf(mail, 'List-Unsubscribe') ?? '';
  const link = /^<(https:\/\/[^>]+)>$/.exec(header)?.[1];
  if (link === undefined) throw new Error(`no https link in List-Unsubscribe: ${header}`);
  return link;
}

/** Requests a stop link's path as a mail client or a mail provider would: over HTTPS, without a session. */
function requestStop(link: string, method: 'GET' | 'POST', payload?: string) {
  return world.app.inject({
    method,
    url: new URL(link).pathname,
    headers: {
      'x-forwarded-proto': 'https',
      ...(payload === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
    },
    ...(payload === undefined ? {} : { payload }),
  });
}

describe('mail alerts of the console', () => {
  it('are none until a person picks them, and are saved as picked, for that person alone', async () => {
    const { story, page } = await organization();
    const before = (await page.get(api('/alerts'))).body as AlertsAnswer;
    expect(before.alerts.map((alert) => [alert.label, alert.picked])).toEqual([
      ['An investor submitted a transaction', false],
      ['An investor answered a request for changes', false],
      ['A transaction was completed', false],
      ['A closing finished creating its transactions', false],
      ['A webhook endpoint started failing', false],
    ]);
    expect(before.everyMinutes).toBe(15);
    const saved = await pick(page, ['completed', 'submitted']);
    expect(saved.alerts.filter((alert) => alert.picked).map((alert) => alert.kind)).toEqual([
      'submitted',
      'completed',
    ]);
    expect(((await page.get(api('/alerts'))).body as AlertsAnswer).alerts).toEqual(saved.alerts);
    const refused = await page.request('PUT', api('/alerts'), { kinds: ['everything'] });
    expect(refused.status).toBe(400);
    // Each person's alerts are their own: a colleague's are untouched.
    const colleague = await createPerson(world.db, {
      tenant: { kind: 'organization', id: story.organizationId },
      role: 'admin',
    });
    const theirs = (await (await signedIn(world, colleague)).get(api('/alerts'))).body as AlertsAnswer;
    expect(theirs.alerts.some((alert) => alert.picked)).toBe(false);
    expect(theirs.email).toBe(colleague.email);
  });

  it('mail one digest for several submissions, grouped by kind, with the investor, the template and a link, and nothing of another organization or of a kind not picked', async () => {
    const ours = await organization();
    const theirs = await organization();
    await pick(ours.page, ['submitted', 'completed']);
    await pick(theirs.page, ['submitted']);
    const jobs = digestJob();
    // Nothing happened yet: no mail, however often the job runs.
    const start = world.smtp.received.length;
    await jobs.runDue(new Date());
    expect(mailsTo(ours.reviewer.email, start)).toEqual([]);

    const submitted = await ours.make('submitted', 3);
    const complete = await ours.make('complete', 1, { from: 3 });
    // Changes answered, which the reviewer did not pick: it was submitted a first time too.
    const answered = await ours.make('submitted', 1, { from: 4, rounds: 2 });
    await theirs.make('submitted', 2, { from: 50 });
    await jobs.runDue(new Date());
    await jobs.stop();

    const [digest, ...more] = mailsTo(ours.reviewer.email, start);
    expect(more).toEqual([]);
    if (!digest) throw new Error('no digest');
    const { text = '', html = '' } = digest.parsed;
    expect(digest.parsed.subject).toBe('Test Capital: 5 submitted, 1 completed');
    expect(text).toContain('Submitted (5)');
    expect(text).toContain('Completed (1)');
    expect(text).not.toContain('Changes answered');
    for (const transaction of [...submitted, ...complete, ...answered]) {
      expect(text).toContain(`- ${transaction.investor.name} — Fund subscription\n`);
      expect(text).toContain(`${TRANSACTIONS_URL}/console/transactions/${transaction.id}`);
    }
    // The other organization's investors (from 51 on) are theirs alone.
    expect(text).not.toContain('Investor 51');
    expect(mailsTo(theirs.reviewer.email, start)).toHaveLength(1);
    expect(mailsTo(theirs.reviewer.email, start)[0]?.parsed.text).not.toContain('Investor 1 ');
    expect(html).toContain('>Stop these alerts</a>');
    expect(headerOf(digest, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(stopLinkOf(digest)).toMatch(/^https:\/\/transactions\.test\/console\/alerts\/stop\/[\w-]{43}$/);
    expect(
      await countOf(world.db, 'select count(*) from alert_digests where user_id = $1', [ours.reviewer.id]),
    ).toBe(1);
    // The stop link's token is kept only as its hash.
    const token = stopLinkOf(digest).split('/').at(-1) ?? '';
    const kept = (hash: Buffer) =>
      countOf(world.db, 'select count(*) from alert_stop_tokens where token_hash = $1', [hash]);
    expect(await kept(createHash('sha256').update(token).digest())).toBe(1);
    expect(await kept(Buffer.from(token))).toBe(0);
  });

  it('waits for the quarter hour before a second burst, then lists it alone', async () => {
    const { reviewer, page, make } = await organization();
    await pick(page, ['submitted']);
    const jobs = digestJob();
    const start = world.smtp.received.length;
    const first = await make('submitted', 2);
    await jobs.runDue(new Date());
    expect(mailsTo(reviewer.email, start)).toHaveLength(1);

    const second = await make('submitted', 3, { from: 10 });
    // Within the quarter hour: nothing more, and nothing lost.
    await jobs.runDue(new Date());
    await jobs.runDue(new Date(Date.now() + QUARTER_HOUR_MS - 60_000));
    expect(mailsTo(reviewer.email, start)).toHaveLength(1);
    // A new job (a restart) at the quarter hour mails the second burst, and none of the first again.
    await jobs.stop();
    const restarted = digestJob();
    await restarted.runDue(new Date(Date.now() + QUARTER_HOUR_MS + 1000));
    await restarted.stop();
    const digests = mailsTo(reviewer.email, start);
    expect(digests).toHaveLength(2);
    const text = digests[1]?.parsed.text ?? '';
    expect(text).toContain('Submitted (3)');
    for (const transaction of second) expect(text).toContain(transaction.id);
    for (const transaction of first) expect(text).not.toContain(transaction.id);
  });

  it('keep what a failed send would have listed for the next try', async () => {
    const { reviewer, page, make } = await organization();
    await pick(page, ['submitted']);
    const start = world.smtp.received.length;
    const made = await make('submitted', 2);
    // A mail server that is not there: the send fails, and the cursor stays.
    const nowhere = smtpMailer('smtp://127.0.0.1:9');
    const failing = createAlertDigests({
      db: world.db,
      mailer: nowhere,
      transactionsUrl: TRANSACTIONS_URL,
      intervalMs: 0,
      settleMs: 0,
    });
    const now = Date.now();
    expect((await failing.runDue(new Date(now))).failed).toBeGreaterThanOrEqual(1);
    await failing.stop();
    nowhere.close();
    const jobs = digestJob();
    // Not before its time to try again (5 minutes), then with both submissions.
    await jobs.runDue(new Date(now + 60_000));
    expect(mailsTo(reviewer.email, start)).toEqual([]);
    await jobs.runDue(new Date(now + 5 * 60_000 + 1000));
    await jobs.stop();
    const [digest] = mailsTo(reviewer.email, start);
    for (const transaction of made) expect(digest?.parsed.text).toContain(transaction.id);
  });

  it('stop by a one-click POST without signing in, while a GET only asks', async () => {
    const { reviewer, page, make } = await organization();
    await pick(page, ['submitted']);
    const start = world.smtp.received.length;
    await make('submitted', 1);
    const jobs = digestJob();
    await jobs.runDue(new Date());
    const [digest] = mailsTo(reviewer.email, start);
    if (!digest) throw new Error('no digest');
    const link = stopLinkOf(digest);
    // The body's link is the header's.
    expect(digest.parsed.text).toContain(`Stop these alerts: ${link}`);

    // A mail scanner's GET (or a person's) shows a button and stops nothing.
    const asked = await requestStop(link, 'GET');
    expect(asked.statusCode).toBe(200);
    expect(asked.headers['content-type']).toContain('text/html');
    expect(asked.body).toContain('<h1>Stop mail alerts?</h1>');
    expect(asked.body).toContain(
      '<form method="post"><button type="submit">Stop these alerts</button></form>',
    );
    expect(asked.body).toContain(reviewer.email);
    expect(((await page.get(api('/alerts'))).body as AlertsAnswer).alerts.some((a) => a.picked)).toBe(true);

    // RFC 8058's one-click POST, as a mail provider sends it.
    const stopped = await requestStop(link, 'POST', 'List-Unsubscribe=One-Click');
    expect(stopped.statusCode).toBe(200);
    expect(stopped.body).toContain('<h1>Alerts stopped</h1>');
    expect(stopped.body).toContain('href="/console/alerts"');
    expect(((await page.get(api('/alerts'))).body as AlertsAnswer).alerts.some((a) => a.picked)).toBe(false);
    // Again: it says so again. Its GET now says they are stopped.
    expect((await requestStop(link, 'POST', 'List-Unsubscribe=One-Click')).statusCode).toBe(200);
    expect((await requestStop(link, 'GET')).body).toContain('These alerts are stopped');

    // Nothing more is mailed to them, at any time.
    await make('submitted', 2, { from: 5 });
    await jobs.runDue(new Date(Date.now() + QUARTER_HOUR_MS + 1000));
    await jobs.stop();
    expect(mailsTo(reviewer.email, start)).toHaveLength(1);
  });

  it('refuse a bad or expired stop link with a page that says which, and change nothing', async () => {
    const { reviewer, page, make } = await organization();
    await pick(page, ['submitted']);
    const unknown = await requestStop(
      `${TRANSACTIONS_URL}/console/alerts/stop/${'A'.repeat(43)}`,
      'POST',
      '',
    );
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('<h1>This link does not work</h1>');
    const garbled = await requestStop(`${TRANSACTIONS_URL}/console/alerts/stop/not-a-token`, 'GET');
    expect(garbled.statusCode).toBe(404);
    expect(garbled.body).toContain('This link does not work');
    // Longer than any token: refused before the route (414 URI_TOO_LONG), and nothing stops.
    const tooLong = await requestStop(
      `${TRANSACTIONS_URL}/console/alerts/stop/${'A'.repeat(500)}`,
      'POST',
      '',
    );
    expect(tooLong.statusCode).toBe(414);

    const start = world.smtp.received.length;
    await make('submitted', 1);
    const jobs = digestJob();
    await jobs.runDue(new Date());
    await jobs.stop();
    const [digest] = mailsTo(reviewer.email, start);
    if (!digest) throw new Error('no digest');
    await world.db.query(
      `update alert_stop_tokens set expires_at = clock_timestamp() - interval '1 minute' where user_id = $1`,
      [reviewer.id],
    );
    const expired = await requestStop(stopLinkOf(digest), 'POST', 'List-Unsubscribe=One-Click');
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('<h1>This link has expired</h1>');
    expect(((await page.get(api('/alerts'))).body as AlertsAnswer).alerts.some((a) => a.picked)).toBe(true);
  });

  it('are mailed once when two job instances run at the same time', async () => {
    const { reviewer, page, make } = await organization();
    await pick(page, ['submitted']);
    const start = world.smtp.received.length;
    await make('submitted', 3);
    const [one, two] = [digestJob(), digestJob()];
    const now = new Date();
    await Promise.all([one.runDue(now), two.runDue(now), one.runDue(now), two.runDue(now)]);
    await Promise.all([one.stop(), two.stop()]);
    expect(mailsTo(reviewer.email, start)).toHaveLength(1);
    expect(
      await countOf(world.db, 'select count(*) from alert_digests where user_id = $1', [reviewer.id]),
    ).toBe(1);
  });
});
