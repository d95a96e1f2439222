/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { applyEvent, lockTransaction } from '../../src/transactions/transitions.ts';
import { PHONE, useChromium } from '../support/browser.ts';
import { consoleForBrowser } from '../support/console-chromium.ts';
import { countOf, createPerson } from '../support/dashboard.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { organizationStory } from '../support/stories.ts';

/**
 * A transaction's page in the organization console, in Chromium over real HTTPS: a transaction the investor
 * submitted (in review), a reviewer who comments and asks for changes through the preview, a change made
 * elsewhere that shows without a reload, and a viewer who sees no event buttons. Screenshots go to
 * test/web/screenshots/ as `console-<database>-transaction-…png`.
 */
describe("a transaction's page at /console/transactions/:id in Chromium", () => {
  const chromium = useChromium('console');
  const world = madeBeforeAll("a transaction's page", async (closeAfterAll) => {
    const { db, files, origin } = await consoleForBrowser(closeAfterAll);
    const story = await organizationStory(db, files, { transactions: ['submitted'] });
    const tenant = { kind: 'organization' as const, id: story.organizationId };
    const reviewer = await createPerson(db, { tenant, role: 'reviewer', name: 'Rita <b>Reviewer</b>' });
    const viewer = await createPerson(db, { tenant, role: 'viewer' });
    return { db, origin, story, reviewer, viewer };
  });

  async function openSignedIn(person: { email: string; password: string }, viewport = PHONE): Promise<Page> {
    const { origin, story } = world;
    const page = await chromium.newPage(origin, { viewport });
    await page.goto(`${origin}/console/transactions/${story.transactionId}`);
    await page.getByLabel('E-mail address').fill(person.email);
    await page.getByLabel('Password', { exact: true }).fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: story.transactions[0]?.investor.name }).waitFor();
    return page;
  }

  it('lets a reviewer comment and ask for changes through the preview, shows changes made elsewhere live, and shows a viewer no event buttons', async () => {
    const { db, story, reviewer, viewer } = world;
    const page = await openSignedIn(reviewer, { width: 1280, height: 800 });
    const events = page.getByRole('list').filter({ has: page.getByRole('button', { name: 'Approve' }) });
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    expect(await page.getByRole('button', { name: 'Request changes' }).isEnabled()).toBe(true);
    // Countersigning is not the reviewer's, nor possible now: no button, greyed, with the engine's reason.
    expect(await events.getByRole('button', { name: 'Countersign' }).count()).toBe(0);
    await events.getByText(/Not now: countersign: .*countersigning/).waitFor();

    // A comment on a field, with markup in it shown as text.
    await page.getByRole('button', { name: /^Comment on Legal name/ }).click();
    await page.getByLabel(/^Your comment on Legal name/).fill('Use the <i>full</i> legal name.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.getByText('Use the <i>full</i> legal name.').waitFor();
    expect(await page.locator('main i, main b').count()).toBe(0);

    // Asking for changes: the preview first, then one move however often the button is clicked.
    await page.getByRole('button', { name: 'Request changes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Request changes?' });
    await dialog.getByText(/Moves it from in review to changes requested/).waitFor();
    await dialog.getByLabel('Message (optional)').fill('Please check the legal name.');
    await dialog.getByRole('button', { name: 'Request changes' }).dblclick();
    await page.getByText(/Done: Request changes moved it from in review to changes requested/).waitFor();
    expect(
      await countOf(
        db,
        `select count(*) from transaction_events where transaction_id = $1 and event_key = 'request_changes'`,
        [story.transactionId],
      ),
    ).toBe(1);

    // Typing in a comment, then the investor submits again elsewhere: the page shows it, the typing stays.
    await page.getByRole('button', { name: /^Comment on Address/ }).click();
    await page.getByLabel(/^Your comment on Address/).fill('Half typed');
    await db.transaction(async (tx) => {
      const subject = await lockTransaction(tx, {
        id: story.transactionId,
        organizationId: story.organizationId,
      });
      if (!subject) throw new Error('the story transaction is gone');
      await applyEvent(tx, subject, 'submit', { type: 'system', id: null });
    });
    await page
      .getByRole('button', { name: 'Approve' })
      .and(page.locator(':enabled'))
      .waitFor({ timeout: 5000 });
    expect(await page.getByLabel(/^Your comment on Address/).inputValue()).toBe('Half typed');
    await chromium.screenshotPhoneAndDesktop(page, 'transaction-reviewer');

    // A viewer sees the same page without a button that moves it or comments.
    const theirs = await openSignedIn(viewer);
    await theirs.getByRole('heading', { name: 'Workflow' }).waitFor();
    await theirs.getByText('Approve', { exact: true }).waitFor();
    expect(
      await theirs.getByRole('button', { name: /^(Approve|Request changes|Countersign|Void)$/ }).count(),
    ).toBe(0);
    expect(await theirs.getByRole('button', { name: /^Comment on/ }).count()).toBe(0);
    await chromium.screenshot(theirs, 'transaction-viewer-phone');
  });
});
