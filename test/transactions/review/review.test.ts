// The review loop's data: a reviewer's comments on fields of a transaction's items, and what changed between
// the recipient's submissions (src/transactions/review/); and the timeline that holds them with the workflow's
// events and the webhook attempts (src/transactions/history/), on transactions taken through the real
// lifecycle and webhooks delivered to a real HTTP receiver.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  addReviewComment,
  commentsOf,
  resolveReviewComment,
} from '../../../src/transactions/review/comments.ts';
import { createFileLinks } from '../../../src/files/file-links.ts';
import { reviewOf } from '../../../src/transactions/review/review.ts';
import { timelineOf } from '../../../src/transactions/history/timeline.ts';
import { deliverDue, fanOutEvents } from '../../../src/webhooks/delivery.ts';
import { createEndpoint } from '../../../src/webhooks/endpoints.ts';
import { startWebhookReceiver } from '../../support/peers/webhook-receiver.ts';
import { createPerson } from '../../support/data/dashboard.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import { organizationStory } from '../../support/data/stories.ts';
import { testDatabaseAndFiles } from '../../support/data/transactions.ts';

const links = createFileLinks(Buffer.alloc(32, 1));
const world = madeBeforeAll('a database', (closeAfterAll) => testDatabaseAndFiles(closeAfterAll));

/** An organization with one transaction submitted `rounds` times, and a reviewer of it. */
async function submitted(rounds = 1) {
  const story = await organizationStory(world.db, world.files, { transactions: ['submitted'], rounds });
  const reviewer = await createPerson(world.db, {
    tenant: { kind: 'organization', id: story.organizationId },
    role: 'reviewer',
  });
  const actor = { type: 'user' as const, id: reviewer.id, requestId: 'req_test' };
  return {
    story,
    reviewer,
    actor,
    ids: { organizationId: story.organizationId, transactionId: story.transactionId },
  };
}

describe('comments on fields', () => {
  it('keeps a comment on a field of the latest revision, with its author, and records it in the activity', async () => {
    const { story, reviewer, actor, ids } = await submitted();
    const comment = await addReviewComment(world.db, {
      ...ids,
      vulcanKey: 'investor_details',
      field: 'address',
      body: '  Please give the <b>full</b> address.  ',
      forInvestor: true,
      actor,
    });
    expect(comment).toMatchObject({
      processKey: 'subscription',
      revision: 1,
      vulcanKey: 'investor_details',
      field: 'address',
      body: 'Please give the <b>full</b> address.',
      author: { id: reviewer.id, name: reviewer.name },
      resolvedAt: null,
    });
    const [activity] = await world.db.query(
      "select kind, action, actor_type, actor_id, request_id, details from transaction_activity where transaction_id = $1 and kind = 'console'",
      [story.transactionId],
    );
    expect(activity).toMatchObject({
      kind: 'console',
      action: 'commented',
      actor_type: 'user',
      actor_id: reviewer.id,
      request_id: 'req_test',
      details: { vulcanKey: 'investor_details', field: 'address', commentId: comment.id },
    });
  });

  it('refuses a field the item does not have, an item the template does not have, and an empty or too long comment, writing nothing', async () => {
    const { actor, ids } = await submitted();
    const add = (vulcanKey: string, field: string, body: string) =>
      addReviewComment(world.db, { ...ids, vulcanKey, field, body, forInvestor: true, actor });
    await expect(add('investor_details', 'shoeSize', 'Why?')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'field' },
    });
    await expect(add('investor_details', 'shoeSize', 'Why?')).rejects.toThrow(
      /^The item "investor_details" has no field "shoeSize"; its fields are [a-zA-Z, ]*legalName[a-zA-Z, ]*\.$/,
    );
    await expect(add('horoscope', 'sign', 'Why?')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'vulcanKey' },
    });
    await expect(add('investor_details', 'address', '   ')).rejects.toMatchObject({
      details: { field: 'body' },
    });
    await expect(add('investor_details', 'address', 'x'.repeat(2001))).rejects.toMatchObject({
      details: { field: 'body' },
    });
    expect(await commentsOf(world.db, ids)).toEqual([]);
  });

  it("answers another organization's transaction and comment as ones that do not exist", async () => {
    const mine = await submitted();
    const theirs = await submitted();
    await expect(
      addReviewComment(world.db, {
        organizationId: mine.story.organizationId,
        transactionId: theirs.story.transactionId,
        vulcanKey: 'investor_details',
        field: 'address',
        body: 'Mine?',
        forInvestor: true,
        actor: mine.actor,
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const comment = await addReviewComment(world.db, {
      ...theirs.ids,
      vulcanKey: 'investor_details',
      field: 'address',
      body: 'Theirs.',
      forInvestor: true,
      actor: theirs.actor,
    });
    for (const commentId of [comment.id, randomUUID()]) {
      await expect(
        resolveReviewComment(world.db, {
          organizationId: mine.story.organizationId,
          commentId,
          actor: mine.actor,
        }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    expect((await commentsOf(world.db, { ...theirs.ids, open: true })).map((each) => each.id)).toEqual([
      comment.id,
    ]);
  });

  it('resolves a comment once: resolving it again changes nothing and records nothing more', async () => {
    const { actor, ids } = await submitted();
    const comment = await addReviewComment(world.db, {
      ...ids,
      vulcanKey: 'tax_forms',
      field: 'taxResidency',
      body: 'Which country?',
      forInvestor: true,
      actor,
    });
    const resolved = await resolveReviewComment(world.db, {
      organizationId: ids.organizationId,
      commentId: comment.id,
      actor,
    });
    expect(resolved.resolvedAt).toBeInstanceOf(Date);
    const again = await resolveReviewComment(world.db, {
      organizationId: ids.organizationId,
      commentId: comment.id,
      actor,
    });
    expect(again.resolvedAt).toEqual(resolved.resolvedAt);
    const actions = await world.db.query<{ action: string }>(
      "select action from transaction_activity where transaction_id = $1 and kind = 'console' order by sequence",
      [ids.transactionId],
    );
    expect(actions.map((row) => row.action)).toEqual(['commented', 'resolved_comment']);
    expect(await commentsOf(world.db, { ...ids, open: true })).toEqual([]);
  });
});

describe('what a reviewer reads', () => {
  it("shows the revisions, the latest items' fields by their titles in the form's order with the answers in words, and what changed between the last two submissions", async () => {
    const { story, ids } = await submitted(2);
    const review = await reviewOf(world.db, { ...ids, links });
    expect(review.processes).toHaveLength(1);
    const [process] = review.processes;
    expect(process?.revisions.map((revision) => [revision.number, revision.committedAt !== null])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(process?.items.map((item) => [item.vulcanKey, item.title])).toEqual([
      ['investor_details', 'About you'],
      ['tax_forms', 'Tax residency and forms'],
      ['accreditation', 'Accreditation'],
      ['subscription_amount', 'Subscription amount'],
    ]);
    const answers = (index: number) =>
      process?.items[index]?.fields.map((field) => [field.label, field.text]);
    // The portal's order (ui.order), titles for keys, words for values; the unasked phone stays listed.
    expect(answers(0)).toEqual([
      ['Investing as', null],
      ['Full legal name', 'Investor 1'],
      ['Date of birth', 'April 18, 1979'],
      ['E-mail address', story.transactions[0]?.investor.email],
      ['Phone number', null],
      ['Residential or registered address', '12 Harbor Lane, Boston, MA 02110'],
    ]);
    expect(answers(1)).toEqual([
      ['Country of tax residence', 'United States (US)'],
      ['Taxpayer identification number', null],
      ['I am a U.S. person for tax purposes', 'Yes'],
      ['W-9 (U.S. persons) or W-8BEN (others)', 'W-9 Investor 1.pdf (uploaded file)'],
    ]);
    expect(process?.items[1]?.fields[3]?.file).toEqual({
      id: expect.any(String),
      name: 'W-9 Investor 1.pdf',
      downloadPath: expect.stringMatching(/^\/files\/[0-9a-f-]{36}\?expires=\d+&signature=/),
    });
    expect(answers(2)?.[0]).toEqual([
      'You qualify as an accredited investor by',
      'Net worth over $1,000,000, excluding your home',
    ]);
    expect(process?.changes).toEqual({
      from: 1,
      to: 2,
      fields: [
        {
          vulcanKey: 'subscription_amount',
          field: 'amount',
          itemTitle: 'Subscription amount',
          label: 'Amount',
          change: 'changed',
          before: '$250,000.00',
          after: '$500,000.00',
        },
      ],
    });
  });

  it('has no changes to show before a second submission', async () => {
    const { ids } = await submitted(1);
    const review = await reviewOf(world.db, { ...ids, links });
    expect(review.processes[0]?.changes).toBeNull();
  });
});

describe('the timeline of a transaction', () => {
  it('holds the workflow events, the console actions and every webhook attempt, each with its actor, oldest first', async () => {
    const { story, reviewer, actor, ids } = await submitted();
    const receiver = await startWebhookReceiver();
    try {
      for (const url of [receiver.url, 'http://127.0.0.1:9/hooks']) {
        await createEndpoint(world.db, {
          organizationId: story.organizationId,
          url,
          eventTypes: ['transaction.state_changed'],
          allowInsecure: true,
        });
      }
      await fanOutEvents(world.db);
      await deliverDue(world.db, { allowInsecure: true, delaysMs: [3_600_000], batchSize: 100 });
    } finally {
      await receiver.close();
    }
    await addReviewComment(world.db, {
      ...ids,
      vulcanKey: 'investor_details',
      field: 'address',
      body: 'Full address?',
      forInvestor: true,
      actor,
    });

    const timeline = await timelineOf(world.db, ids);
    const workflow = timeline.filter((entry) => entry.kind === 'workflow');
    expect(workflow.map((entry) => [entry.action, entry.actor.type, entry.details.to])).toEqual([
      ['create', 'system', 'draft'],
      ['send', 'system', 'in_progress'],
      ['submit', 'recipient', 'in_review'],
    ]);
    expect(workflow[2]?.actor.label).toBe(story.transactions[0]?.investor.name);
    // In the template's words: the consent's field, the comment's text and field, never their keys.
    expect(timeline.filter((entry) => entry.kind === 'recipient')).toContainEqual(
      expect.objectContaining({
        action: 'consent given',
        details: { to: 'I confirm that what I have given here is true and complete (Accreditation)' },
      }),
    );
    expect(timeline.filter((entry) => entry.kind === 'console')).toEqual([
      expect.objectContaining({
        action: 'commented',
        requestId: 'req_test',
        actor: { type: 'user', id: reviewer.id, label: reviewer.name },
        details: {
          on: 'Residential or registered address (About you)',
          comment: 'Full address?',
          readBy: 'the investor',
        },
      }),
    ]);
    const webhooks = timeline.filter((entry) => entry.kind === 'webhook');
    expect(webhooks.filter((entry) => entry.action === 'delivered').map((entry) => entry.details)).toEqual(
      Array.from({ length: 3 }, () =>
        expect.objectContaining({
          url: receiver.url,
          statusCode: 204,
          eventType: 'transaction.state_changed',
        }),
      ),
    );
    const failed = webhooks.filter((entry) => entry.action === 'failed');
    expect(failed).toHaveLength(3);
    expect(failed[0]?.details).toMatchObject({
      url: 'http://127.0.0.1:9/hooks',
      statusCode: null,
      error: expect.any(String),
    });
    expect(failed[0]?.details.nextAttemptAt).toEqual(expect.any(String));
    expect(
      timeline.filter((entry) => entry.kind === 'mail').map((entry) => [entry.action, entry.details.message]),
    ).toEqual([['queued', 'invitation']]);
    const times = timeline.map((entry) => entry.at.getTime());
    expect(times).toEqual(times.toSorted((a, b) => a - b));

    expect(
      (await timelineOf(world.db, { ...ids, kinds: ['webhook'] })).every((entry) => entry.kind === 'webhook'),
    ).toBe(true);
    expect((await timelineOf(world.db, { ...ids, actorType: 'user' })).map((entry) => entry.action)).toEqual([
      'commented',
    ]);
  });

  it("answers another organization's transaction as one that does not exist", async () => {
    const mine = await submitted();
    const theirs = await submitted();
    await expect(
      timelineOf(world.db, {
        organizationId: mine.story.organizationId,
        transactionId: theirs.story.transactionId,
      }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
