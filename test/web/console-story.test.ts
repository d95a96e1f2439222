/// <reference lib="dom" />
// Kept as one file: the console's stories share one server and one Chromium, whose start is most of a
// short story's time.
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { displayPrefix } from '../../src/keys/api-key.ts';
import { createEntity } from '../../src/transactions/entities.ts';
import { createOrganization } from '../../src/transactions/organizations.ts';
import { deliverDue, fanOutEvents } from '../../src/webhooks/delivery.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import { PHONE, useChromium } from '../support/browser/browser.ts';
import {
  acceptInvitation,
  consoleForBrowser,
  fillInvitation,
  signIn,
} from '../support/browser/console-chromium.ts';
import { countOf, createPerson, mailedLink, mailTo, uniqueEmail } from '../support/data/dashboard.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { transactionStory } from '../support/data/stories.ts';
import {
  CREATE_TRANSACTION,
  TRIGGER_TRANSACTION_EVENT,
  graphql,
  uniqueHandle,
} from '../support/data/transactions.ts';
import { createEmptyTenant } from '../support/data/transactions-suite.ts';
import { answerThroughLink, samplePdf } from '../support/data/uploads.ts';
import { startWebhookReceiver } from '../support/peers/webhook-receiver.ts';

/**
 * The organization console's story, end to end in one Chromium over real HTTPS (issue 25): an admin invites a
 * reviewer by real SMTP; a transaction created through GraphQL is submitted by its investor; the reviewer
 * comments on a field and asks for changes, the investor sees the comment beside the field in the portal, edits
 * it and submits again; the reviewer sees what changed and approves; an admin countersigns for the organization
 * and completes it; the timeline shows each step with who acted, the mail and the completion webhook a real
 * receiver got; the workflow panel lists what can and cannot happen, with the engine's reasons, at every step; a
 * viewer gets no event buttons and is refused by the route, and on a phone jumps to each part and folds the
 * queue's menus; another transaction's paper form is submitted on its investor's behalf, and voiding it with a
 * reason shows its investor the reason instead of the portal; a trust's transaction is found by the trust's name;
 * the team's activity tells each comment and event in words. Along the way: the investor's empty form cannot be
 * submitted (panel, GraphQL, portal), a double click runs an event once, markup in a comment stays text, an
 * internal note never reaches the investor, and a comment being typed stays while the page follows a change
 * made elsewhere. One test,
 * each step needing the one before, with as few page loads as the story allows. Screenshots go to
 * test/web/screenshots/ as `console-<database>-story-…png`.
 *
 * Beside it, in an organization of its own whose names hold markup, the team page's actions: an admin invites a
 * reviewer through a session that ends mid-invitation, makes her an operator, mails her invitation again (from
 * whom the mail says; the first link then says it is not valid before it asks for a password), deactivates and
 * reactivates her once she has accepted, and changes their own password, with which they sign in again; the
 * invitee lands on the team without its buttons (screenshots
 * `console-<database>-team…png`, `…-sign-in-again.png`).
 *
 * Last, on a clock the test moves: a row clicked as the search typed before it ends its pause opens its
 * transaction, rather than the search taking the person back to the queue.
 */
describe('the organization console in Chromium', () => {
  const chromium = useChromium('console');
  const world = madeBeforeAll('the console story', async (closeAfterAll) => {
    const { app, db, files, smtp, origin } = await consoleForBrowser(closeAfterAll);
    const tenant = await createEmptyTenant(db);
    const people = { kind: 'organization' as const, id: tenant.organizationId };
    const admin = await createPerson(db, { tenant: people, role: 'admin', name: 'Ada Admin' });
    const viewer = await createPerson(db, { tenant: people, role: 'viewer', name: 'Vic Viewer' });
    const receiver = await startWebhookReceiver('/hooks/portico');
    closeAfterAll(() => receiver.close());
    await createEndpoint(db, {
      organizationId: tenant.organizationId,
      url: receiver.url,
      eventTypes: ['transaction.completed'],
      allowInsecure: true,
    });
    // The other transaction, which the admin voids: its investor was invited and has started.
    const other = await transactionStory(db, files, tenant, { state: 'sent', index: 1 });
    // The organization whose admin's session ends mid-invitation: a name with markup in it, shown as text.
    const kestrel = await createOrganization(db, {
      handle: uniqueHandle('console'),
      name: 'Kestrel <b>Growth</b> Fund',
    });
    const kestrelAdmin = await createPerson(db, {
      tenant: { kind: 'organization', id: kestrel.id },
      role: 'admin',
      name: 'Ada <i>Admin</i>',
    });
    return { app, db, smtp, origin, tenant, admin, viewer, receiver, other, kestrel, kestrelAdmin };
  });

  /** A recipient route of the investor's link, as the portal calls it. */
  async function portal(
    token: string,
    method: 'PUT' | 'POST',
    path: string,
    payload?: Record<string, unknown>,
  ): Promise<void> {
    const response = await world.app.inject({
      method,
      url: `/recipient/${token}${path}`,
      ...(payload ? { payload } : {}),
    });
    expect(response.statusCode, `${method} ${path}: ${response.body}`).toBeLessThan(300);
  }

  /** The investor signs the agreement of the open revision and submits it, through their link's routes. */
  async function signAndSubmit(token: string): Promise<void> {
    await portal(token, 'POST', '/esign', { act: 'consented' });
    await portal(token, 'POST', '/documents/subscription_agreement/signatures', {
      signedName: 'Grace Hopper',
      consent: true,
    });
    await portal(token, 'POST', '/processes/subscription/submit');
  }

  /**
   * The events the workflow panel lists, each as "<name> (<button | greyed | no button>)", followed by ": <the
   * engine's reason>" when it cannot happen now.
   */
  function panelEvents(page: Page): Promise<string[]> {
    return workflowOf(page)
      .locator('h3 + ul > li')
      .evaluateAll((items) =>
        items.map((item) => {
          const button = item.querySelector('button');
          const shown = button ? (button.disabled ? 'greyed' : 'button') : 'no button';
          const name = (button ?? item.querySelector('span'))?.textContent ?? '';
          const line = item.querySelector('p')?.textContent ?? '';
          const reason = /^Not now: (.*?)(?: \(Not yours to trigger: your role does not\.\))?$/.exec(
            line,
          )?.[1];
          return reason === undefined ? `${name} (${shown})` : `${name} (${shown}): ${reason}`;
        }),
      );
  }

  const workflowOf = (page: Page): Locator => page.getByRole('region', { name: 'Workflow' });

  /** Waits until the panel says the transaction is `now` (in words) and lists `events` as {@link panelEvents}. */
  async function expectPanel(page: Page, now: string, events: string[]): Promise<void> {
    await workflowOf(page)
      .getByText(new RegExp(`^Now ${now}`))
      .waitFor();
    await expect.poll(() => panelEvents(page)).toEqual(events);
  }

  /** What a person's row of the team shows of them: their role and status badges, and the row's buttons. */
  async function shownIn(row: Locator): Promise<{ badges: string[]; buttons: string[] }> {
    return {
      badges: await row.locator('.rt-Badge').filter({ visible: true }).allTextContents(),
      buttons: await row.getByRole('button').allTextContents(),
    };
  }

  /** Runs an event through its preview dialog, with a message, and waits for the panel to say it moved. */
  async function runEvent(page: Page, event: string, message: string, from: string, to: string) {
    await workflowOf(page).getByRole('button', { name: event, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `${event}?` });
    await dialog.getByText(new RegExp(`Moves it from ${from} to ${to}`)).waitFor();
    await dialog.getByRole('textbox').fill(message);
    // A double click runs it once: the second click finds the move made.
    await dialog.getByRole('button', { name: event, exact: true }).dblclick();
    await page.getByText(`Done: ${event} moved it from ${from} to ${to}.`).waitFor();
  }

  it(
    'takes a transaction from an invited reviewer through comments, changes, approval and countersigning to its webhook, shows a viewer no buttons, submits another on its investor’s behalf with a paper form, then voids it, and finds a trust’s transaction by the trust’s name',
    // About 15 s alone on a fast machine; 35 s alone and 90 s beside another browser and ESLint on a slow one.
    { timeout: 240_000 },
    async () => {
      const { app, db, smtp, origin, tenant, admin, viewer, receiver, other } = world;

      // 1. The admin invites a reviewer by mail; the reviewer sets a password and is signed in.
      const adminPage = await chromium.newPage(origin);
      await adminPage.goto(`${origin}/console`);
      await signIn(adminPage, admin);
      await adminPage.getByRole('heading', { name: 'Work queue' }).waitFor();
      await adminPage.getByRole('link', { name: 'Team' }).click();
      await adminPage.getByRole('heading', { name: 'Team' }).waitFor();
      const reviewerEmail = uniqueEmail('reviewer');
      const invitation = await fillInvitation(adminPage, {
        email: reviewerEmail,
        name: 'Rita Reviewer',
        role: 'Reviewer',
      });
      const mailed = smtp.received.length;
      await invitation.getByRole('button', { name: 'Send invitation' }).click();
      await adminPage.getByText(`Invitation mailed to ${reviewerEmail}.`).waitFor();
      const { link } = mailedLink(
        await mailTo(smtp, reviewerEmail, { after: mailed }),
        'invitation',
        `${origin}/console`,
      );
      const reviewerPage = await chromium.newPage(origin);
      await acceptInvitation(reviewerPage, link, 'Rita Reviewer');

      // 2. The reviewer keeps the work queue open; a transaction created through GraphQL appears there, with
      // the tabs' counts, without a reload (the live stream), and its investor is mailed their link.
      await reviewerPage.getByRole('link', { name: 'Work queue' }).click();
      await reviewerPage.getByRole('heading', { name: 'Work queue' }).waitFor();
      const draftTab = reviewerPage
        .getByRole('navigation', { name: 'States' })
        .getByRole('link', { name: /^Draft/ });
      await expect.poll(() => draftTab.textContent()).toBe('Draft0');
      const investorEmail = uniqueEmail('grace');
      const created = await graphql(app, tenant.apiKey, CREATE_TRANSACTION, {
        input: {
          templateId: tenant.templateId,
          senderEntityId: tenant.senderEntityId,
          noticeName: 'Grace Hopper',
          noticeEmail: investorEmail,
        },
      });
      expect(created.body.errors).toBeUndefined();
      const { transactionId, transmitToken: token } = created.body.data?.createTransaction as {
        transactionId: string;
        transmitToken: string;
      };
      // No reload: the row arrives through the live stream (in the page's default wait, as a slow machine needs).
      const row = reviewerPage.getByRole('row', { name: /Grace Hopper/ });
      await row.waitFor();
      await expect.poll(() => draftTab.textContent()).toBe('Draft1');
      expect(await row.textContent()).toContain('draft');
      await chromium.screenshotPhoneAndDesktop(reviewerPage, 'queue');
      await mailTo(smtp, investorEmail);

      // The reviewer opens it from its row before the investor has submitted: nothing to review or approve yet.
      await row.getByRole('link', { name: 'Grace Hopper' }).click();
      await reviewerPage.getByRole('heading', { level: 1, name: 'Grace Hopper' }).waitFor();
      // The drawing comes after the panel's words, into the room kept for it: there, it fills it, no longer busy.
      const room = workflowOf(reviewerPage).locator('.workflow-graph-room');
      await room.getByRole('img', { name: /^The workflow drawn: now draft/ }).waitFor();
      expect(await room.getAttribute('aria-busy')).toBeNull();
      expect((await room.locator('svg').boundingBox())?.height).toBe((await room.boundingBox())?.height);
      // The investor's submit is blocked while their form lacks answers: in the panel, through GraphQL and the portal.
      const missing =
        '6 required answers, 1 consent, 1 upload and 1 signature missing in About you, Tax residency and forms, Accreditation, Subscription amount and Subscription agreement';
      await expectPanel(reviewerPage, 'draft', [
        'Send (no button)',
        `Submit (no button): Submit: ${missing}`,
        'Request changes (greyed): Request changes: only from in review',
        'Approve (greyed): Approve: only from in review',
        'Countersign (no button): Countersign: only from countersigning',
        'Void (no button)',
      ]);

      const early = await graphql(app, tenant.apiKey, TRIGGER_TRANSACTION_EVENT, {
        input: { transactionId, eventKey: 'submit' },
      });
      expect(early.body.errors?.[0]?.extensions).toMatchObject({
        code: 'REVISION_INCOMPLETE',
        reason: `submit: ${missing}`,
      });
      const portalSubmit = await app.inject({
        method: 'POST',
        url: `/recipient/${token}/processes/subscription/submit`,
      });
      expect(portalSubmit.statusCode).toBe(409);
      expect(portalSubmit.json()).toMatchObject({ error: { code: 'REVISION_INCOMPLETE' } });
      await chromium.screenshotPhoneAndDesktop(reviewerPage, 'submit-blocked');

      // 3. The investor fills in, signs and submits through their link's routes; the reviewer's page follows.
      await answerThroughLink(app, token, { legalName: 'Grace Hoper', email: investorEmail });
      await signAndSubmit(token);
      // The reviewer's panel in review: the same again once the investor resubmits (5).
      const inReview = [
        'Send (no button): Send: only from draft',
        'Submit (no button): Submit: only from draft, in progress or changes requested',
        'Request changes (button)',
        'Approve (button)',
        'Countersign (no button): Countersign: only from countersigning',
        'Void (no button)',
      ];
      await expectPanel(reviewerPage, 'in review', inReview);

      // 8. A viewer sees the same panel without a button, and the event route refuses them.
      const viewerPage = await chromium.newPage(origin, { viewport: PHONE });
      await viewerPage.goto(`${origin}/console/transactions/${transactionId}`);
      await signIn(viewerPage, viewer);
      await expectPanel(viewerPage, 'in review', [
        'Send (no button): Send: only from draft',
        'Submit (no button): Submit: only from draft, in progress or changes requested',
        'Request changes (no button)',
        'Approve (no button)',
        'Countersign (no button): Countersign: only from countersigning',
        'Void (no button)',
      ]);
      expect(await viewerPage.getByRole('button', { name: /^Comment on/ }).count()).toBe(0);
      // The request the page would send, were there a button: the session's CSRF token, the version it shows.
      const refused = await viewerPage.evaluate(async (id) => {
        const read = async <T>(path: string) => (await (await fetch(`/console/api${path}`)).json()) as T;
        const { csrfToken } = await read<{ csrfToken: string }>('/session');
        const { workflow } = await read<{ workflow: { version: string } }>(`/transactions/${id}/workflow`);
        const response = await fetch(`/console/api/transactions/${id}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
          body: JSON.stringify({ eventKey: 'approve', version: workflow.version }),
        });
        return { status: response.status, body: (await response.json()) as unknown };
      }, transactionId);
      expect(refused).toMatchObject({
        status: 403,
        body: {
          error: {
            code: 'FORBIDDEN',
            message: 'Only admins, operators and reviewers may approve. You are a viewer.',
          },
        },
      });
      // On a phone the page jumps to each part, and leads back to the work queue, whose four menus fold behind
      // one button until it is opened.
      const jumps = viewerPage.getByRole('navigation', { name: 'Jump to' });
      expect(await jumps.getByRole('link').allTextContents()).toEqual([
        'Recipients',
        'Workflow',
        'Review',
        'Files',
        'Timeline',
      ]);
      await jumps.getByRole('link', { name: 'Timeline' }).click();
      await expect
        .poll(() => viewerPage.evaluate(() => document.activeElement?.textContent))
        .toBe('Timeline');
      await viewerPage.getByRole('main').getByRole('link', { name: 'Work queue' }).click();
      await viewerPage.getByRole('heading', { name: 'Work queue' }).waitFor();
      const template = viewerPage.getByLabel('Template');
      expect(await template.isVisible()).toBe(false);
      await viewerPage.getByRole('button', { name: 'Filters' }).click();
      await template.waitFor();
      await viewerPage.goBack();
      await viewerPage.getByRole('heading', { level: 1, name: 'Grace Hopper' }).waitFor();

      // The review speaks the template's words: titles for keys, answers in words, the W-9 a link by its name.
      const review = reviewerPage.getByRole('region', { name: /^Review/ });
      await review.getByText('Country of tax residence').waitFor();
      await review.getByText('United States (US)').waitFor();
      await review.getByRole('link', { name: 'W-9 Grace Hopper.pdf' }).waitFor();
      await review
        .getByText('Income over $200,000 ($300,000 jointly) in each of the last two years')
        .waitFor();
      for (const key of ['W9 file id', 'Legal name', 'Tax residency', 'w9FileId', 'income']) {
        expect(await review.getByText(key, { exact: true }).count(), key).toBe(0);
      }
      await chromium.screenshotPhoneAndDesktop(reviewerPage, 'review-words');

      // 4. The reviewer leaves an internal note on the address, comments for the investor on the legal name and
      // asks for changes through the preview.
      await reviewerPage
        .getByRole('button', { name: /^Comment on Residential or registered address/ })
        .click();
      await reviewerPage.getByRole('radio', { name: 'Only my team (an internal note)' }).click();
      const note = 'Checked against the utility bill.';
      await reviewerPage.getByLabel(/^Your note on Residential or registered address/).fill(note);
      await reviewerPage.getByRole('button', { name: 'Add note' }).click();
      await review.getByText(note, { exact: true }).waitFor();
      await reviewerPage.getByRole('button', { name: /^Comment on Full legal name/ }).click();
      // Markup in a comment is text, on the console's page and in the portal.
      const comment = 'Your legal name is spelt <i>Hopper</i>.';
      await reviewerPage.getByLabel(/^Your comment on Full legal name/).fill(comment);
      // Who reads it is asked each time: not chosen, nothing is sent.
      await reviewerPage.getByRole('button', { name: 'Add comment' }).click();
      await reviewerPage.getByText('Choose who reads it: the investor, or only your team.').waitFor();
      await reviewerPage.getByRole('radio', { name: 'The investor' }).click();
      await reviewerPage
        .getByText('The investor will see this, beside this answer in their form, under your name.')
        .waitFor();
      await reviewerPage.getByRole('button', { name: 'Send to the investor' }).click();
      await review.getByText(comment, { exact: true }).waitFor();
      expect(await reviewerPage.locator('main i, main b').count()).toBe(0);
      const beforeChanges = smtp.received.length;
      await runEvent(
        reviewerPage,
        'Request changes',
        'Please check your name.',
        'in review',
        'changes requested',
      );
      await mailTo(smtp, investorEmail, { after: beforeChanges });
      expect(
        await countOf(
          db,
          `select count(*) from transaction_events where transaction_id = $1 and event_key = 'request_changes'`,
          [transactionId],
        ),
      ).toBe(1);
      // The new revision carries the answers forward; only the agreement waits to be signed again.
      await expectPanel(reviewerPage, 'changes requested', [
        'Send (no button): Send: only from draft',
        'Submit (no button): Submit: 1 signature missing in Subscription agreement',
        'Request changes (greyed): Request changes: only from in review',
        'Approve (greyed): Approve: only from in review',
        'Countersign (no button): Countersign: only from countersigning',
        'Void (no button)',
      ]);

      // The investor sees the comment beside the field, corrects it and submits again.
      const investorPage = await chromium.newPage(origin, { viewport: PHONE });
      await investorPage.goto(`${origin}/r/${token}/subscription/items/investor_details`);
      await investorPage
        .getByRole('note')
        .filter({ hasText: `Rita Reviewer asks: ${comment}` })
        .waitFor();
      expect(await investorPage.locator('main i').count()).toBe(0);
      // The internal note never reaches the investor.
      expect(await investorPage.getByText(note).count()).toBe(0);
      await investorPage.getByLabel('Full legal name').fill('Grace Hopper');
      await investorPage.getByText(/Saved at/).waitFor();
      // Meanwhile the reviewer has begun another comment: the page follows the resubmission, the typing stays.
      await reviewerPage
        .getByRole('button', { name: /^Comment on Residential or registered address/ })
        .click();
      await reviewerPage.getByLabel(/^Your comment on Residential or registered address/).fill('Half typed');
      await signAndSubmit(token);

      // 5. The reviewer sees what changed since revision 1 and approves.
      await expectPanel(reviewerPage, 'in review', inReview);
      expect(
        await reviewerPage.getByLabel(/^Your comment on Residential or registered address/).inputValue(),
      ).toBe('Half typed');
      await reviewerPage.getByRole('button', { name: 'Cancel' }).click();
      const changes = reviewerPage.getByText('What changed since revision 1').locator('..');
      await changes.getByText('About you · Full legal name: Grace Hoper → Grace Hopper').waitFor();
      // The portal's form gave the investor type its default on the second round: a field added, shown so.
      await changes.getByText('About you · Investing as: added: An individual').waitFor();
      await runEvent(reviewerPage, 'Approve', 'All in order.', 'in review', 'countersigning');
      await expectPanel(reviewerPage, 'countersigning', [
        'Send (no button): Send: only from draft',
        'Submit (no button): Submit: only from draft, in progress or changes requested',
        'Request changes (greyed): Request changes: only from in review',
        'Approve (greyed): Approve: only from in review',
        'Countersign (no button): Countersign: 0 of 1 process complete',
        'Void (no button)',
      ]);
      // From the top, so that the sticky header is drawn where it belongs in the whole page's picture.
      await reviewerPage.evaluate(() => {
        window.scrollTo(0, 0);
      });
      await chromium.screenshotPhoneAndDesktop(reviewerPage, 'story-approved');

      // An admin signs for the organization; the countersign waits for that signature, then completes it. The
      // page, opened by its address, comes drawn by the server: its header is in the HTML, with the answers it was
      // drawn with, so the browser reads only the parts the drawing left out (the timeline), once each.
      const reads: string[] = [];
      const countRead = (request: { method: () => string; url: () => string }) => {
        if (request.method() === 'GET') reads.push(new URL(request.url()).pathname);
      };
      adminPage.on('request', countRead);
      const opened = await adminPage.goto(`${origin}/console/transactions/${transactionId}`);
      const html = (await opened?.text()) ?? '';
      expect(html).toContain('<div id="console" data-drawn>');
      expect(html).toContain('Not now: The recipient has nothing to submit now');
      const admins = [
        'Send (greyed): Send: only from draft',
        'Submit (greyed): Submit: only from draft, in progress or changes requested',
        'Request changes (greyed): Request changes: only from in review',
        'Approve (greyed): Approve: only from in review',
      ];
      await expectPanel(adminPage, 'countersigning', [
        ...admins,
        'Countersign (greyed): Countersign: 0 of 1 process complete',
        'Void (button)',
      ]);
      adminPage.off('request', countRead);
      for (const [part, times] of [
        ['', 0],
        ['/workflow', 0],
        ['/review', 0],
        ['/timeline', 1],
      ] as const) {
        expect(
          reads.filter((path) => path === `/console/api/transactions/${transactionId}${part}`),
        ).toHaveLength(times);
      }
      // The investor has nothing left to submit: Remind now is greyed with the server's reason, the rest is live.
      const remindNow = adminPage.getByRole('button', { name: 'Remind now' });
      expect(await remindNow.isDisabled()).toBe(true);
      const why = await remindNow.getAttribute('aria-describedby');
      expect(await adminPage.locator(`#${why ?? 'none'}`).textContent()).toBe(
        'Not now: The recipient has nothing to submit now: a reminder would ask them for nothing.',
      );
      const resetLink = adminPage.getByRole('button', { name: 'Reset link for the investor' });
      expect(await resetLink.isDisabled()).toBe(false);
      await chromium.screenshot(adminPage, 'link-actions');
      await adminPage.getByLabel('Your name, as you sign').fill('Ada Admin for Test Capital Fund I, L.P.');
      await adminPage.getByLabel(/I agree to sign this document electronically/).check();
      await adminPage.getByRole('button', { name: 'Sign for the organization' }).click();
      // Signed, the panel goes (its "Signed: …" with it, once the page reads the transaction again).
      await adminPage.getByRole('heading', { name: /^Sign for/ }).waitFor({ state: 'detached' });
      await expectPanel(adminPage, 'countersigning', [...admins, 'Countersign (button)', 'Void (button)']);
      const beforeCompletion = smtp.received.length;
      await runEvent(adminPage, 'Countersign', 'Countersigned.', 'countersigning', 'completed');
      await mailTo(smtp, investorEmail, { after: beforeCompletion });
      const final = 'the transaction is completed, a final state';
      await expectPanel(
        adminPage,
        'completed',
        ['Send', 'Submit', 'Request changes', 'Approve', 'Countersign', 'Void'].map(
          (event) => `${event} (greyed): ${event}: ${final}`,
        ),
      );

      // 6. The completion webhook reaches the receiver; the timeline shows each step, who acted, mail and webhook.
      await fanOutEvents(db);
      await deliverDue(db, { allowInsecure: true });
      expect(receiver.bodies.map((body) => (JSON.parse(body) as { type: string }).type)).toEqual([
        'transaction.completed',
      ]);
      await viewerPage.reload();
      const timeline = viewerPage.getByRole('list', { name: 'Timeline, newest first' });
      await timeline.getByText(/Webhook transaction.completed delivered/).waitFor();
      const entries = await timeline.locator('li').evaluateAll((items) =>
        items.map((item) => {
          const [kind, action] = [...item.querySelectorAll('div > span')].map((each) => each.textContent);
          const actor = item.querySelector('p')?.textContent.split(' · ')[0];
          return `${kind ?? ''}: ${action ?? ''} (${actor ?? ''})`;
        }),
      );
      // Newest first: the webhook, after the mail that completion queued and sent.
      expect(entries[0]).toBe('Webhook: Webhook transaction.completed delivered (Portico)');
      expect(entries).toEqual(
        expect.arrayContaining([
          `API: Create transaction (${displayPrefix(tenant.apiKey)})`,
          'Mail: Mail queued: invitation (Portico)',
          'Mail: Mail sent: invitation (Portico)',
          'Recipient: Uploaded (Grace Hopper)',
          'Workflow: Submit (Grace Hopper)',
          'Console: Commented (Rita Reviewer)',
          'Workflow: Request changes (Rita Reviewer)',
          'Mail: Mail sent: changes requested (Portico)',
          'Recipient: Opened (Grace Hopper)',
          'Workflow: Approve (Rita Reviewer)',
          'Workflow: Countersign (Ada Admin)',
          'Mail: Mail sent: signed copy (Portico)',
        ]),
      );
      expect(entries.filter((entry) => entry === 'Workflow: Submit (Grace Hopper)')).toHaveLength(2);
      // A comment in the timeline: its text, its field by title and who reads it, never a key or an id.
      await timeline.getByText(`Comment: ${comment}`).waitFor();
      await timeline.getByText('On: Full legal name (About you)').waitFor();
      await timeline.getByText('Read by: the investor').waitFor();
      expect(await timeline.getByText(/Vulcan key|Comment id/).count()).toBe(0);
      // The history is sealed by a hash chain: its head under the entries. An event row edited in the database
      // (its message) makes the page name the first entry that no longer matches.
      const timelineRegion = viewerPage.getByRole('region', { name: 'Timeline' });
      await timelineRegion.getByText(/^History sealed by a hash chain: [0-9a-f]{16}…$/).waitFor();
      const [edited] = await db.query<{ position: number }>(
        `update transaction_events set message = 'Edited afterwards.'
         where transaction_id = $1 and chain_position = (
           select min(chain_position) from transaction_events where transaction_id = $1)
         returning chain_position::int as position`,
        [transactionId],
      );
      await viewerPage.reload();
      const position = String(edited?.position);
      await timelineRegion
        .getByRole('alert')
        .getByText(
          `The history does not match from entry ${position}: entry ${position} was edited: its content no longer matches its hash.`,
        )
        .waitFor();
      expect(await timelineRegion.getByText(/^History sealed by a hash chain/).count()).toBe(0);

      // 9. The other investor asked to sign on paper, from their link: the page says so at its top, and in its
      // timeline. Their form came by post: the admin submits it on their behalf, with the scan, which the
      // timeline and the files then name. Voiding it, with its reason, closes its investor's link, which shows it.
      await portal(other.transmitToken, 'POST', '/esign', {
        act: 'paper_requested',
        message: 'Please post the forms to me.',
      });
      await adminPage.goto(`${origin}/console/transactions/${other.id}`);
      await adminPage.getByRole('heading', { level: 1, name: other.investor.name }).waitFor();
      await adminPage
        .getByText(`${other.investor.name} asked to sign on paper instead of electronically on`)
        .waitFor();
      await adminPage.getByText('They wrote: “Please post the forms to me.”').waitFor();
      await adminPage.getByRole('region', { name: 'Timeline' }).getByText('Asked to sign on paper').waitFor();
      await chromium.screenshotPhoneAndDesktop(adminPage, 'paper-requested');
      await workflowOf(adminPage).getByRole('button', { name: "Submit on the investor's behalf…" }).click();
      const onBehalf = adminPage.getByRole('dialog', { name: "Submit on the investor's behalf" });
      await onBehalf.getByLabel('Signed paper form (PDF)').setInputFiles({
        name: 'signed-by-post.pdf',
        mimeType: 'application/pdf',
        buffer: await samplePdf('Subscription agreement, signed by post'),
      });
      const uploadAndSubmit = onBehalf.getByRole('button', { name: 'Upload and submit' });
      expect(await uploadAndSubmit.isDisabled()).toBe(true);
      await onBehalf
        .getByRole('checkbox', { name: 'I received this form from the investor, signed by them' })
        .click();
      await chromium.screenshotPhoneAndDesktop(adminPage, 'on-behalf');
      await uploadAndSubmit.click();
      await adminPage.getByText('Done: Submit moved it from in progress to in review.').waitFor();
      const otherTimeline = adminPage.getByRole('region', { name: 'Timeline' });
      await otherTimeline.getByText("Submit · on the investor's behalf, with the paper form").waitFor();
      const paperLink = otherTimeline.getByRole('link', { name: 'signed-by-post.pdf' });
      const paperForm = await adminPage.request.get(
        new URL((await paperLink.getAttribute('href')) ?? '', origin).href,
      );
      expect((await paperForm.body()).subarray(0, 5).toString()).toBe('%PDF-');
      await adminPage.getByRole('region', { name: 'Files' }).getByText('paper form').waitFor();
      await runEvent(adminPage, 'Void', 'The fund closed before this subscription.', 'in review', 'voided');
      await investorPage.goto(`${origin}/r/${other.transmitToken}`);
      await investorPage.getByRole('heading', { name: 'This transaction was voided' }).waitFor();
      await investorPage.getByText('“The fund closed before this subscription.”').waitFor();

      // 10. The queue names the investor, not the contact: a trust's transaction, mailed to its trustee, is found
      // by the trust's legal name, beside the trustee's, and its page is headed by it.
      const trusteeEmail = uniqueEmail('trustee');
      await createEntity(db, {
        organizationId: tenant.organizationId,
        type: 'trust',
        name: 'Redwood Family Trust',
        email: trusteeEmail,
      });
      const trust = await graphql(app, tenant.apiKey, CREATE_TRANSACTION, {
        input: {
          templateId: tenant.templateId,
          senderEntityId: tenant.senderEntityId,
          noticeName: 'Morgan Redwood',
          noticeEmail: trusteeEmail,
        },
      });
      expect(trust.body.errors).toBeUndefined();
      await adminPage.goto(`${origin}/console/queue`);
      await adminPage.getByLabel('Search').fill('Redwood Family');
      const trustRow = adminPage.getByRole('row', { name: /Redwood Family Trust/ });
      await trustRow.waitFor();
      expect(await trustRow.textContent()).toContain('Morgan Redwood');
      await trustRow.getByRole('link', { name: 'Redwood Family Trust' }).click();
      await adminPage.getByRole('heading', { level: 1, name: 'Redwood Family Trust' }).waitFor();

      // 11. The team's activity tells each comment by its text, an internal note as one, and each event by its
      // title with where it moved the transaction.
      await adminPage.getByRole('link', { name: 'Team' }).click();
      const activity = adminPage.getByRole('region', { name: 'Recent activity' });
      await activity.getByText(`Rita Reviewer commented on Grace Hopper: “${comment}”`).waitFor();
      await activity
        .getByText(`Rita Reviewer commented on Grace Hopper: “${note}” (internal note)`)
        .waitFor();
      await activity
        .getByText('Rita Reviewer chose Request changes on Grace Hopper (in review → changes requested)')
        .waitFor();
    },
  );

  it('lets an admin invite a reviewer through a session that ends mid-invitation, make her an operator, mail her invitation again, deactivate and reactivate her, and change their own password; the invitee lands on the team without its buttons', async () => {
    const { db, smtp, origin, kestrel: organization, kestrelAdmin: admin } = world;
    const page = await chromium.newPage(origin);
    await page.goto(`${origin}/console`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signIn(page, admin);
    // Signing in leads to the work queue; the team is a section of the navigation.
    await page.getByRole('heading', { name: 'Work queue' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/queue');
    await page.getByText('No transactions yet').waitFor();
    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { name: 'Team' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/team');
    await expect.poll(() => page.title()).toBe(`Team · ${organization.name} · Portico`);
    await page.getByRole('row', { name: /Ada <i>Admin<\/i> \(you\)/ }).waitFor();

    const reviewer = uniqueEmail('reviewer');
    const dialog = await fillInvitation(page, { email: reviewer, name: 'Rita Reviewer', role: 'Reviewer' });

    // The session ends (idle for too long) while the dialog is open: sending asks to sign in again above it.
    await db.query(`update user_sessions set expires_at = now() - interval '1 minute' where user_id = $1`, [
      admin.id,
    ]);
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    const again = page.getByRole('dialog', { name: 'Sign in again' });
    await again.getByText('Your session has ended. Sign in again to go on.').waitFor();
    expect(await again.getByLabel('E-mail address').inputValue()).toBe(admin.email);
    await chromium.screenshot(page, 'sign-in-again');
    await again.getByLabel('Password', { exact: true }).fill(admin.password);
    await again.getByRole('button', { name: 'Sign in', exact: true }).click();
    await again.waitFor({ state: 'detached' });
    await dialog.getByText('This was not sent: your session had ended.').waitFor();
    // What was typed is still there; sending it again invites.
    expect(await dialog.getByLabel('E-mail address').inputValue()).toBe(reviewer);
    expect(await dialog.getByLabel('Name').inputValue()).toBe('Rita Reviewer');
    expect(await dialog.getByRole('radio', { name: /Reviewer/ }).getAttribute('aria-checked')).toBe('true');
    const received = smtp.received.length;
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation mailed to ${reviewer}.`).waitFor();
    await expect
      .poll(() => page.getByRole('row', { name: /Rita Reviewer/ }).textContent())
      .toContain('Invited');
    // The invitation is the team's activity too.
    await page
      .getByRole('region', { name: 'Recent activity' })
      .getByText(/invited\s+Rita Reviewer/)
      .waitFor();
    await chromium.screenshotPhoneAndDesktop(page, 'team');
    // Arrived, so that the mail counted next is the one sent again.
    const firstInvitation = await mailTo(smtp, reviewer, { after: received });

    // Another invitation cannot follow within a minute of the first: greyed, with the server's reason.
    const rita = page.getByRole('row', { name: /Rita Reviewer/ });
    const resend = rita.getByRole('button', { name: 'Resend invitation to Rita Reviewer' });
    expect(await resend.isDisabled()).toBe(true);
    const why = await resend.getAttribute('aria-describedby');
    expect(await page.locator(`#${why ?? 'none'}`).textContent()).toMatch(
      /^Not now: An invitation went to Rita Reviewer \d+ seconds ago: another can be sent in \d+ seconds\.$/,
    );
    // A minute later (the invitation's time moved back), the admin makes her an operator through its dialog.
    await db.query(
      `update user_links set created_at = created_at - interval '2 minutes'
       where purpose = 'invitation' and user_id = (select id from users where email = $1)`,
      [reviewer],
    );
    await rita.getByRole('button', { name: 'Change role of Rita Reviewer' }).click();
    const changeRole = page.getByRole('dialog', { name: 'Change the role of Rita Reviewer' });
    expect(await changeRole.getByRole('radio', { name: /^Reviewer/ }).getAttribute('aria-checked')).toBe(
      'true',
    );
    await changeRole.getByRole('radio', { name: /^Operator/ }).click();
    await changeRole.getByRole('button', { name: 'Change role' }).click();
    await changeRole.waitFor({ state: 'detached' });
    await page.getByText('Rita Reviewer is now operator.').waitFor();
    await expect
      .poll(() => shownIn(rita))
      .toEqual({
        badges: ['Operator', 'Invited'],
        buttons: ['Change role', 'Resend invitation', 'Deactivate'],
      });
    // The list read again knows the minute has passed: a new invitation goes, from the admin, for the new role.
    const resent = smtp.received.length;
    await resend.click();
    await page
      .getByText(`A new invitation is mailed to ${reviewer}; the link mailed before no longer works.`)
      .waitFor();
    const invitation = await mailTo(smtp, reviewer, { after: resent });
    expect(invitation.parsed.text).toContain(
      `${admin.name} (${admin.email}) invited you to ${organization.name} on the Portico console, as an operator`,
    );
    const activity = page.getByRole('region', { name: 'Recent activity' });
    await activity.getByText(/changed the role of\s+Rita Reviewer to operator/).waitFor();
    await activity.getByText(/sent a new invitation to\s+Rita Reviewer/).waitFor();

    // She accepts the new invitation: the team without its buttons, her names and the organization's as text.
    // The first link, replaced by the new one, says so before it asks for any password.
    const theirs = await chromium.newPage(origin);
    await theirs.goto(mailedLink(firstInvitation, 'invitation', `${origin}/console`).link);
    await theirs.getByRole('heading', { name: 'This link is not valid any more' }).waitFor();
    expect(await theirs.getByLabel(/password/i).count()).toBe(0);
    const { link } = mailedLink(invitation, 'invitation', `${origin}/console`);
    await acceptInvitation(theirs, link, 'Rita Reviewer');
    await theirs.getByText('Only admins invite and deactivate people.').waitFor();
    expect(await theirs.getByRole('button', { name: 'Invite someone' }).count()).toBe(0);
    expect(await theirs.getByRole('button', { name: /^Deactivate/ }).count()).toBe(0);
    await chromium.screenshot(theirs, 'team-operator');
    // The organization's name and the people's names are text, never markup.
    expect(await theirs.locator('header').textContent()).toContain('Kestrel <b>Growth</b> Fund');
    expect(await theirs.locator('main b, main i').count()).toBe(0);

    // The admin deactivates her, after a confirmation, and gives her access back: the list says so each time.
    await rita.getByRole('button', { name: 'Deactivate Rita Reviewer' }).click();
    const deactivate = page.getByRole('alertdialog', { name: 'Deactivate Rita Reviewer?' });
    await deactivate
      .getByText(
        `Rita Reviewer is signed out at once and can no longer sign in to ${organization.name}'s console.`,
      )
      .waitFor();
    await deactivate.getByRole('button', { name: 'Deactivate', exact: true }).click();
    await deactivate.waitFor({ state: 'detached' });
    await page.getByText('Rita Reviewer was deactivated.').waitFor();
    await expect
      .poll(() => shownIn(rita))
      .toEqual({ badges: ['Operator', 'Deactivated'], buttons: ['Reactivate'] });
    await rita.getByRole('button', { name: 'Reactivate Rita Reviewer' }).click();
    await page.getByText('Rita Reviewer was reactivated: they sign in with their password again.').waitFor();
    await expect
      .poll(() => shownIn(rita))
      .toEqual({
        // She has no second factor: there is no two-step sign-in of hers to reset.
        badges: ['Operator', 'Active'],
        buttons: ['Change role', 'End sessions', 'Deactivate'],
      });
    await activity.getByText(/^Ada <i>Admin<\/i> deactivated\s+Rita Reviewer/).waitFor();
    await activity.getByText(/reactivated\s+Rita Reviewer/).waitFor();
    await chromium.screenshotPhoneAndDesktop(page, 'team-actions');

    // The admin changes their own password from their menu: a wrong current one is refused in the dialog.
    const newPassword = 'a longer passphrase of my own';
    const menu = page.getByRole('button', { name: /account menu$/ });
    await menu.click();
    await page.getByRole('menuitem', { name: 'Change password' }).click();
    const changePassword = page.getByRole('dialog', { name: 'Change your password' });
    const current = changePassword.getByLabel('Current password');
    await current.fill('not my password at all');
    await changePassword.getByLabel('New password', { exact: true }).fill(newPassword);
    await changePassword.getByLabel('Repeat the new password').fill(newPassword);
    await changePassword.getByRole('button', { name: 'Change password' }).click();
    await changePassword.getByText('Your current password is not right.').waitFor();
    expect(await current.getAttribute('aria-invalid')).toBe('true');
    await current.fill(admin.password);
    await changePassword.getByRole('button', { name: 'Change password' }).click();
    const changed = page.getByRole('dialog', { name: 'Your password is changed' });
    await changed
      .getByText('Use it from now on. This browser stays signed in; you were signed in nowhere else.')
      .waitFor();
    await changed.getByRole('button', { name: 'Close' }).click();
    await changed.waitFor({ state: 'detached' });
    // Signed out, the old password no longer signs them in; the new one does.
    await menu.click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    await signIn(page, admin);
    await page.getByText('The e-mail address or the password is not right.').waitFor();
    await signIn(page, { email: admin.email, password: newPassword });
    await page.getByRole('heading', { name: 'Work queue' }).waitFor();
  });

  it("asks someone not signed in to sign in at a transaction's address, without an error from the page's chunk started early whose style sheet did not come", async () => {
    const { origin } = world;
    const page = await chromium.newPage(origin);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // The entry starts the transaction page's chunk and style sheet before the session is known; the style sheet
    // fails (as when the person leaves, or the network drops it), and the route that would show the page never
    // renders: no one is signed in.
    await page.route(/\/console\/assets\/transaction-[^/]+\.css$/, (route) => route.abort());
    const failed = page.waitForEvent('requestfailed', (request) =>
      /\/transaction-[^/]+\.css$/.test(request.url()),
    );
    await page.goto(`${origin}/console/transactions/${randomUUID()}`);
    await page.getByLabel('E-mail address').waitFor();
    await failed;
    // A turn of the page's event loop after the failure: an unhandled rejection would have been reported by then.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(errors).toEqual([]);
    await page.unrouteAll();
  });

  it('says that the app, a page or the drawing whose code did not come did not load, in its place, keeping the rest of the page, and loads it again when asked', async () => {
    const { origin, admin, other } = world;
    const page = await chromium.newPage(origin);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // The app's chunk, the team page's and the drawing's do not come until they are asked for again, as when the
    // network drops them or the person leaves the page while they load.
    const refusing = new Set(['app', 'team', 'workflow-graph']);
    const refused: string[] = [];
    await page.route(/\/console\/assets\/(app|team|workflow-graph)-[^/]+\.js$/, async (route) => {
      const chunk = /\/(app|team|workflow-graph)-[^/]+\.js$/.exec(route.request().url())?.[1] ?? '';
      if (!refusing.has(chunk)) return route.continue();
      refused.push(chunk);
      return route.abort();
    });
    await page.goto(`${origin}/console`);
    const appNotLoaded = page.getByRole('alert').filter({ hasText: 'This page did not finish loading' });
    await appNotLoaded.waitFor();
    await chromium.screenshot(page, 'app-not-loaded');
    refusing.delete('app');
    await appNotLoaded.getByRole('link', { name: 'Reload the page' }).click();
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Work queue' }).waitFor();
    await page.getByRole('link', { name: 'Team' }).click();
    const pageNotLoaded = page.getByRole('alert').filter({ hasText: 'This page did not load' });
    await pageNotLoaded.waitFor();
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Work queue' })
      .waitFor();
    refusing.delete('team');
    await pageNotLoaded.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('heading', { name: 'Team' }).waitFor();

    await page.goto(`${origin}/console/transactions/${other.id}`);
    const drawingNotLoaded = page
      .getByRole('alert')
      .filter({ hasText: 'The drawing of the workflow did not load' });
    await drawingNotLoaded.waitFor();
    // The rest of the transaction's page is there, its timeline read.
    await page.getByRole('list', { name: 'Timeline, newest first' }).getByRole('listitem').first().waitFor();
    await chromium.screenshot(page, 'drawing-not-loaded');
    refusing.delete('workflow-graph');
    await drawingNotLoaded.getByRole('button', { name: 'Try again' }).click();
    await workflowOf(page)
      .locator('.workflow-graph-room')
      .getByRole('img', { name: /^The workflow drawn: now / })
      .waitFor();
    expect(await page.getByRole('alert').filter({ hasText: 'did not load' }).count()).toBe(0);
    expect(new Set(refused)).toEqual(new Set(['app', 'team', 'workflow-graph']));
    expect(errors).toEqual([]);
    await page.unrouteAll();
  });

  it("opens the person's menu chosen before its code has come, from a click and from the keyboard, and keeps the focus on its button as the menu comes", async () => {
    const { origin, admin } = world;
    const page = await chromium.newPage(origin);
    await page.goto(`${origin}/console`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Work queue' }).waitFor();
    const menuButton = page.getByRole('button', { name: /account menu$/ });
    // Found by its markup too: an open menu hides the rest of the page from the accessibility tree.
    const trigger = page.locator('header button[aria-haspopup="menu"]');
    const focusIsOn = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);
    const focusIsInMenu = () =>
      page.evaluate(() => document.activeElement?.closest('[role="menu"]') !== null);
    /** Opens the console again with the menu's chunk held until `release` is called. */
    const holdMenuChunk = async () => {
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      await page.unrouteAll();
      await page.route(/\/console\/assets\/account-menu-[^/]+\.js$/, async (route) => {
        await released;
        await route.continue();
      });
      await page.goto(`${origin}/console/queue`);
      await page.getByRole('heading', { name: 'Work queue' }).waitFor();
      return () => {
        release();
      };
    };

    // A click before the menu's code has come: nothing opens yet, then the menu opens as it comes.
    let release = await holdMenuChunk();
    await menuButton.click();
    expect(await page.getByRole('menu').count()).toBe(0);
    expect(await menuButton.getAttribute('aria-expanded')).toBe('false');
    release();
    await page.getByRole('menuitem', { name: 'Sign out' }).waitFor();
    expect(await trigger.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'detached' });
    // Radix gives the focus back to the button in a task after the menu leaves.
    await expect.poll(() => focusIsOn(trigger)).toBe(true);

    // From the keyboard: Enter on the button opens the menu as it comes, with the focus in it.
    release = await holdMenuChunk();
    await menuButton.focus();
    await page.keyboard.press('Enter');
    release();
    await page.getByRole('menuitem', { name: 'Sign out' }).waitFor();
    await expect.poll(focusIsInMenu).toBe(true);
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'detached' });
    // Radix gives the focus back to the button in a task after the menu leaves.
    await expect.poll(() => focusIsOn(trigger)).toBe(true);

    // Focused but not chosen: the button becomes the menu's as its code comes, in the same place and size, and
    // keeps the focus: in the same render, so that it is there as soon as the menu's button is.
    release = await holdMenuChunk();
    await menuButton.focus();
    const drawnBefore = await menuButton.boundingBox();
    release();
    await page.locator('header button[aria-haspopup="menu"][data-state="closed"]').waitFor();
    expect(await focusIsOn(trigger)).toBe(true);
    expect(await menuButton.boundingBox()).toEqual(drawnBefore);
    expect(await page.getByRole('menu').count()).toBe(0);
    await page.keyboard.press('ArrowDown');
    await page.getByRole('menuitem', { name: 'Sign out' }).waitFor();

    // Pressed, and the code comes before the button is let go: the menu opens as Radix's does, on the press.
    release = await holdMenuChunk();
    const box = await menuButton.boundingBox();
    if (box === null) throw new Error('the menu button is not shown');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    release();
    await page.getByRole('menuitem', { name: 'Sign out' }).waitFor();
    await page.mouse.up();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    await page.unrouteAll();
  });

  it('opens the transaction a row leads to even when the search typed before the click ends its pause as the queue leaves the page', async () => {
    const { app, db, origin, tenant, admin } = world;
    const email = uniqueEmail('trustee');
    await createEntity(db, {
      organizationId: tenant.organizationId,
      type: 'trust',
      name: 'Alder Family Trust',
      email,
    });
    const created = await graphql(app, tenant.apiKey, CREATE_TRANSACTION, {
      input: {
        templateId: tenant.templateId,
        senderEntityId: tenant.senderEntityId,
        noticeName: 'Robin Alder',
        noticeEmail: email,
      },
    });
    expect(created.body.errors).toBeUndefined();
    const page = await chromium.newPage(origin);
    // The page's timers run on a clock the test moves: the search waits 250 ms after the last key, and the click
    // comes about then, when the queue's own cleanup (after the next frame) came too late under CI's load.
    await page.clock.install();
    await page.goto(`${origin}/console`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Work queue' }).waitFor();
    for (const clickAfterMs of [240, 250, 255, 260]) {
      await page.goto(`${origin}/console/queue`);
      const row = page.getByRole('row', { name: /Alder Family Trust/ });
      await row.waitFor();
      await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1_000);
      await page.getByLabel('Search').fill('Alder Family');
      await page.clock.runFor(clickAfterMs);
      await row.getByRole('link', { name: 'Alder Family Trust' }).click();
      await page.clock.runFor(100);
      await page.clock.resume();
      await page.getByRole('heading', { level: 1, name: 'Alder Family Trust' }).waitFor();
      expect(new URL(page.url()).pathname, `a click ${clickAfterMs} ms after typing`).toMatch(
        /^\/console\/transactions\//,
      );
    }
  });
});
