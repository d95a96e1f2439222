import { createPageDrawer } from '../../../src/http/drawing/page-drawing.ts';
import type { FastifyInstance } from 'fastify';
import type { Locator, Page } from 'playwright-core';
import type { Database } from '../../../src/db/database.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import { buildTransactionsApp } from '../../../src/transactions/app.ts';
import type { DocumentWorkers } from '../../../src/transactions/documents/document-workers.ts';
import { createRecipientNotices } from '../../../src/transactions/recipients/notice-sender.ts';
import { listenForBrowser } from './browser.ts';
import { PASSWORD, smtpWithMailer } from '../data/dashboard.ts';
import type { CloseAfterAll } from '../made-before-all.ts';
import type { TestSmtpServer } from '../peers/smtp.ts';
import { testTls } from '../peers/tls-listener.ts';
import { testDatabaseAndFiles } from '../data/transactions.ts';

/**
 * The Transactions service with its console, over real HTTPS for Chromium, on a database, a file store and an
 * SMTP server of the calling test file's own, closed after its tests. The recipients' mail (invitation, changes
 * requested, signed copy, voided) goes to the same SMTP server as the console's, at once. `app` answers the
 * GraphQL API and the recipient routes in-process (`inject`) too. Documents are made by `documentWorkers` (a
 * sealing pool, say), else by the process's.
 */
export async function consoleForBrowser(
  closeAfterAll: CloseAfterAll,
  options: { documentWorkers?: DocumentWorkers } = {},
): Promise<{
  app: FastifyInstance;
  db: Database;
  files: FileStore;
  smtp: TestSmtpServer;
  origin: string;
}> {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const { smtp, mailer } = await smtpWithMailer(closeAfterAll);
  // Links in mail point to where the service listens, known once it does.
  let origin = '';
  const recipientNotices = createRecipientNotices({
    db,
    mailer,
    transactionsUrl: () => origin,
    intervalMs: 0,
  });
  closeAfterAll(() => recipientNotices.stop());
  // Pages are drawn however slow the machine: a story reads what the drawn page did not bring, once.
  const pageDrawer = createPageDrawer({ waitMs: 60_000 });
  closeAfterAll(() => pageDrawer.close());
  const app = await buildTransactionsApp({
    db,
    files,
    environment: 'staging',
    tls: await testTls(),
    apiKeyCacheMs: 0,
    recipientNotices,
    console: { mailer, transactionsUrl: () => origin, pageDrawer },
    documentWorkers: options.documentWorkers,
  });
  origin = await listenForBrowser(app, closeAfterAll);
  return { app, db, files, smtp, origin };
}

/** Signs in on the console's sign-in form the page shows (its own, or one that asks again above a page). */
export async function signIn(page: Page, person: { email: string; password: string }): Promise<void> {
  await page.getByLabel('E-mail address').fill(person.email);
  await page.getByLabel('Password', { exact: true }).fill(person.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/**
 * Opens a mailed invitation link in `page`, sets the password {@link PASSWORD} and waits for the team page the
 * new person lands on, signed in, with their row marked "(you)".
 */
export async function acceptInvitation(page: Page, link: string, name: string): Promise<void> {
  await page.goto(link);
  await page.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat the new password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  // Signing in leads to the work queue; the team is a section of the navigation.
  await page.getByRole('heading', { name: 'Work queue' }).waitFor();
  await page.getByRole('link', { name: 'Team' }).click();
  await page.getByRole('heading', { name: 'Team' }).waitFor();
  await page.getByRole('row', { name: `${name} (you)` }).waitFor();
}

/**
 * On the team page of an admin: opens "Invite someone" and fills in the address, the name and the role; returns
 * the dialog, whose "Send invitation" is the caller's to click.
 */
export async function fillInvitation(
  page: Page,
  invitee: { email: string; name: string; role: 'Admin' | 'Operator' | 'Reviewer' | 'Viewer' },
): Promise<Locator> {
  await page.getByRole('button', { name: 'Invite someone' }).click();
  const dialog = page.getByRole('dialog', { name: 'Invite someone' });
  await dialog.getByLabel('E-mail address').fill(invitee.email);
  await dialog.getByLabel('Name').fill(invitee.name);
  await dialog.getByRole('radio', { name: new RegExp(invitee.role) }).click();
  return dialog;
}
