// Starting one transaction from the console: what the form offers, the invitation's preview, and the start itself,
// which goes through createTransaction's checks and makes one transaction for one idempotency key. Every request
// comes "through a TLS-terminating proxy" (x-forwarded-proto), as the session cookie is Secure.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MailMessage, Mailer } from '../../../src/mail/mailer.ts';
import { sendDueNotices } from '../../../src/transactions/recipients/notice-sender.ts';
import { api, consoleApiWorld, signedIn as signedInAs } from '../../support/data/console-api.ts';
import { createPerson, type DashboardPerson } from '../../support/data/dashboard.ts';
import { organizationStory } from '../../support/data/stories.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';

const world = madeBeforeAll('the console', consoleApiWorld);

const signedIn = (person: DashboardPerson) => signedInAs(world, person);

/** The answer the example template's subscription amount is. */
const AMOUNT = 'subscription_amount.amount';

/** An organization whose template lets the sender fill in the amount, with an operator and a viewer. */
async function organizationWithPrefill() {
  const story = await organizationStory(world.db, world.files, {
    transactions: [],
    template: (example) => ({ ...example, prefill: [AMOUNT], commitment: AMOUNT }),
  });
  const tenant = { kind: 'organization' as const, id: story.organizationId };
  const operator = await createPerson(world.db, { tenant, role: 'operator' });
  const viewer = await createPerson(world.db, { tenant, role: 'viewer' });
  return { story, operator, viewer };
}

/** A start's fields for the story's template and sender, with `changes`. */
function startOf(
  story: { templateId: string; senderEntityId: string },
  changes: Record<string, unknown> = {},
) {
  return {
    templateId: story.templateId,
    senderEntityId: story.senderEntityId,
    investor: { name: 'Ada Trust', email: `ada-${randomUUID()}@investor.example`, entityType: 'trust' },
    answers: { [AMOUNT]: { currency: 'USD', amount: 25_000_000 } },
    linkValidDays: 30,
    note: 'Looking forward to having you in Fund I.\nCall me with any question.',
    ...changes,
  };
}

/** The mail the notice sender sends now, of those addressed to `to`. */
async function mailTo(to: string): Promise<MailMessage[]> {
  const sent: MailMessage[] = [];
  const mailer: Mailer = {
    send: (message) => {
      sent.push(message);
      return Promise.resolve({ via: 'smtp', messageId: randomUUID() });
    },
    close: () => undefined,
  };
  await sendDueNotices(world.db, { mailer, transactionsUrl: 'https://portal.test' });
  return sent.filter((message) => message.to === to);
}

describe('starting a transaction from the console', () => {
  it('offers the templates with the answers the sender may fill in, by their titles, and the senders', async () => {
    const { story, operator } = await organizationWithPrefill();
    const page = await signedIn(operator);
    const options = await page.get(api('/start/options'));
    expect(options.status).toBe(200);
    const body = options.body as {
      templates: {
        id: string;
        latest: boolean;
        linkValidDays: number;
        prefill: unknown[];
        commitment: string;
      }[];
      senders: { id: string; name: string }[];
      entityTypes: { value: string; title: string }[];
    };
    expect(body.templates).toEqual([
      expect.objectContaining({
        id: story.templateId,
        latest: true,
        linkValidDays: 90,
        commitment: AMOUNT,
        prefill: [
          expect.objectContaining({
            answer: AMOUNT,
            kind: 'money',
            money: expect.objectContaining({ currencies: expect.arrayContaining(['USD']) }),
          }),
        ],
      }),
    ]);
    expect(body.senders).toEqual([{ id: story.senderEntityId, name: story.sender.name }]);
    expect(body.entityTypes).toContainEqual({ value: 'trust', title: 'Trust' });
  });

  it('starts one transaction for one idempotency key, as an entity of the type given, with the amount and the link’s days', async () => {
    const { story, operator } = await organizationWithPrefill();
    const page = await signedIn(operator);
    const fields = startOf(story);
    const idempotencyKey = randomUUID();
    const [first, second] = await Promise.all([
      page.request('POST', api('/transactions'), { ...fields, idempotencyKey }),
      page.request('POST', api('/transactions'), { ...fields, idempotencyKey }),
    ]);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    const { transaction } = first.body as { transaction: { id: string } };
    expect((second.body as { transaction: { id: string } }).transaction.id).toBe(transaction.id);

    const made = await world.db.query<{
      id: string;
      type: string;
      amount: unknown;
      days: number;
      note: string;
      actor: string;
    }>(
      `select t.id, e.type, t.input_data -> 'subscription_amount' -> 'amount' as amount,
         round(extract(epoch from t.transmit_token_expires_at - t.created_at) / 86400)::int as days,
         t.invitation_note as note, ev.actor_type as actor
       from transactions t
       join transaction_recipients r on r.transaction_id = t.id
       join entities e on e.id = r.entity_id
       join transaction_events ev on ev.transaction_id = t.id and ev.event_key = 'create'
       where t.organization_id = $1`,
      [story.organizationId],
    );
    expect(made).toEqual([
      {
        id: transaction.id,
        type: 'trust',
        amount: { currency: 'USD', amount: 25_000_000 },
        days: 30,
        note: fields.note,
        actor: 'user',
      },
    ]);
    // The transaction's page reads it.
    expect((await page.get(api(`/transactions/${transaction.id}`))).status).toBe(200);

    // The invitation quotes the personal line.
    const [invitation] = await mailTo(fields.investor.email);
    expect(invitation?.subject).toBe('Test Capital asks you to complete: Fund subscription');
    expect(invitation?.text).toContain(
      'Test Capital writes:\n> Looking forward to having you in Fund I.\n> Call me with any question.',
    );
  });

  it('previews the invitation as the investor will get it, and writes nothing', async () => {
    const { story, operator } = await organizationWithPrefill();
    const page = await signedIn(operator);
    const fields = startOf(story);
    const preview = await page.request('POST', api('/start/invitation'), fields);
    expect(preview.status).toBe(200);
    const { mail } = preview.body as { mail: { to: string; subject: string; text: string } };
    expect(mail.to).toBe(fields.investor.email);
    expect(mail.subject).toBe('Test Capital asks you to complete: Fund subscription');
    expect(mail.text).toContain('Dear Ada Trust,');
    expect(mail.text).toContain('> Looking forward to having you in Fund I.');
    expect(mail.text).toContain('- Subscription');
    expect(mail.text).toContain('Write to Test Capital Fund I, L.P. at operations@test-capital.example');
    const [count] = await world.db.query<{ n: number }>(
      'select count(*)::int as n from transactions where organization_id = $1',
      [story.organizationId],
    );
    expect(count?.n).toBe(0);
  });

  it('refuses, with the field named and nothing written, what createTransaction refuses and answers the template does not let the sender fill in', async () => {
    const { story, operator } = await organizationWithPrefill();
    const page = await signedIn(operator);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [
        { investor: { name: 'Ada', email: 'not-an-address', entityType: 'trust' } },
        'investor.email',
        /^"not-an-address" is not an e-mail address\.$/,
      ],
      [
        { investor: { name: '  ', email: 'ada@investor.example', entityType: 'trust' } },
        'investor.name',
        /^The investor's name must not be blank\.$/,
      ],
      [
        { answers: { [AMOUNT]: { currency: 'USD', amount: 100 } } },
        'answers.subscription_amount.amount',
        /^Amount: the amount must be at least \$1,000\.00$/,
      ],
      [
        { answers: { 'investor_details.legalName': 'Ada Trust' } },
        'answers',
        /^The template does not let the sender fill in investor_details\.legalName: the sender may fill in only subscription_amount\.amount\.$/,
      ],
      [{ templateId: randomUUID() }, 'templateId', /template/],
      [{ note: 'x'.repeat(1001) }, 'note', /1000|1,000/],
    ];
    for (const [changes, field, message] of cases) {
      const fields = startOf(story, changes);
      for (const [path, body] of [
        ['/transactions', { ...fields, idempotencyKey: randomUUID() }],
        ['/start/invitation', fields],
      ] as const) {
        const refused = await page.request('POST', api(path), body);
        expect(refused.status, `${path} ${field}`).toBe(400);
        const { error } = refused.body as { error: { message: string; details?: { field?: string } } };
        expect(error.details?.field, `${path} ${field}`).toBe(field);
        expect(error.message, `${path} ${field}`).toMatch(message);
      }
    }
    const [count] = await world.db.query<{ n: number }>(
      'select count(*)::int as n from transactions where organization_id = $1',
      [story.organizationId],
    );
    expect(count?.n).toBe(0);
  });

  it('lets only those who may operate start one: a viewer is refused, and another organization’s template reads as unknown', async () => {
    const { story, viewer, operator } = await organizationWithPrefill();
    const other = await organizationWithPrefill();
    const asViewer = await signedIn(viewer);
    expect((await asViewer.get(api('/start/options'))).status).toBe(403);
    const refused = await asViewer.request('POST', api('/transactions'), {
      ...startOf(story),
      idempotencyKey: randomUUID(),
    });
    expect(refused.status).toBe(403);

    const page = await signedIn(operator);
    const foreign = await page.request('POST', api('/transactions'), {
      ...startOf(story, { templateId: other.story.templateId }),
      idempotencyKey: randomUUID(),
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ error: { details: { field: 'templateId' } } });
  });
});
