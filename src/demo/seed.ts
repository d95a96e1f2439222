import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Environment } from '../config.ts';
import type { Database, Queryable } from '../db/database.ts';
import { oneRow } from '../db/one-row.ts';
import type { FileStore } from '../files/file-store.ts';
import { createDemoSignIn, type DemoSignIn } from './demo-sign-in.ts';
import { createApiKey } from '../keys/api-key-store.ts';
import { createTransaction } from '../transactions/create-transaction.ts';
import { applyEvent, lockTransaction, type LockedTransaction } from '../transactions/transitions.ts';
import { createOrganization } from '../transactions/organizations.ts';
import {
  primaryRecipient,
  recipientOf,
  saveItem,
  signDocument,
  submitRevision,
  type Signer,
} from '../transactions/recipients/actions.ts';
import { checkTemplate } from '../transactions/templates/validation.ts';
import { describeProblems } from '../validation/problems.ts';
import type { TemplateDefinition } from '../transactions/templates/schema.ts';
import type { DocumentWorkers } from '../transactions/documents/document-workers.ts';
import { recordEsignAct } from '../transactions/esign/consent.ts';

/** The ids and key of the demo data, as `demo.json` reports them. */
export interface TransactionsDemo {
  apiKey: string;
  /** The organization console, and the demo admin's sign-in (absent in a demo.json of an older Portico). */
  console?: ({ url: string } & DemoSignIn) | null;
  organizationId: string;
  templateId: string;
  senderEntityId: string;
  transactionId: string;
}

/**
 * What seeding returns: the demo facts, and the transmit token of the transaction waiting for its investor (the
 * Redwood Family Trust's), which `serve` turns into the banner's recipient link (`recipientUrl`).
 */
export interface SeededTransactionsDemo extends TransactionsDemo {
  waitingTransmitToken: string;
  /** The demo organization's admin, who signs in to the console: a fresh random password per data dir. */
  consoleSignIn: DemoSignIn;
}

/** The demo organization's console admin, unless `seedTransactionsDemo` is given another handle. */
export const DEMO_CONSOLE_ADMIN_EMAIL = 'admin@demo-capital.example';

/** The handle of the demo organization "Demo Capital", unless `seedTransactionsDemo` is given another. */
export const DEMO_ORGANIZATION_HANDLE = 'demo-capital';

const EXAMPLE_TEMPLATE = new URL('../../templates/examples/subscription.yaml', import.meta.url);

/** The example subscription template (`templates/examples/subscription.yaml`), checked like any import. */
export async function loadExampleTemplate(): Promise<TemplateDefinition> {
  const checked = checkTemplate(await readFile(EXAMPLE_TEMPLATE, 'utf8'));
  if (!checked.ok) throw new Error(describeProblems('subscription.yaml', checked.problems));
  return checked.definition;
}

/** Inserts one row and returns its id. Column names come from this file, values always as parameters. */
async function insert(db: Queryable, table: string, row: Record<string, unknown>): Promise<string> {
  const columns = Object.keys(row);
  const placeholders = columns.map((_, index) => `$${index + 1}`);
  const inserted = await oneRow<{ id: string }>(
    db,
    `insert into ${table} (${columns.join(', ')}) values (${placeholders.join(', ')}) returning id`,
    Object.values(row),
  );
  return inserted.id;
}

async function pdf(lines: string[]): Promise<Uint8Array> {
  // Only a start that seeds the demo makes PDFs: loaded then, not at every start.
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const document = await PDFDocument.create();
  const page = document.addPage([612, 792]);
  const font = await document.embedFont(StandardFonts.Helvetica);
  lines.forEach((line, index) => {
    page.drawText(line, { x: 72, y: 720 - index * 22, size: index === 0 ? 18 : 12, font });
  });
  document.setCreationDate(new Date('2026-01-01T00:00:00Z'));
  return document.save();
}

async function storeFile(
  db: Queryable,
  files: FileStore,
  organizationId: string,
  options: { filename: string; lines: string[] },
): Promise<string> {
  const content = await pdf(options.lines);
  const storageKey = `${organizationId}/${randomUUID()}.pdf`;
  await files.put(storageKey, content);
  return insert(db, 'files', {
    organization_id: organizationId,
    mime_type: 'application/pdf',
    extension: 'pdf',
    original_filename: options.filename,
    storage_key: storageKey,
    byte_size: content.byteLength,
    uploaded_at: new Date(),
  });
}

const investorDetails = {
  legalName: 'Jane Q. Doe',
  email: 'jane.doe@example.com',
  address: '12 Harbor Lane, Boston, MA 02110',
  dateOfBirth: '1979-04-18',
};

/**
 * Seeds the demo organization "Demo Capital": its sender entity (a fund), the subscription template, an API key
 * for the environment, and three transactions at different stages, made through the real lifecycle. The main
 * one is complete: two recipients (the investor, and the sender countersigning), three revisions of its process,
 * a signed agreement and an uploaded W-9. One waits for its investor (sent, partly filled in, nothing
 * submitted): its transmit token is returned, for a link a newcomer can open.
 *
 * Like every transaction, each queues an invitation to its investor (recipients/notice-queue.ts): sent once `serve`
 * runs, to `<data dir>/mail/` without PORTICO_SMTP_URL. The addresses are in reserved domains (`example.com`,
 * `*.example`), which no mail reaches; the complete transaction's invitation is dropped unsent.
 */
export async function seedTransactionsDemo(
  db: Database,
  files: FileStore,
  environment: Environment,
  options: { handle?: string; name?: string; workers?: DocumentWorkers | undefined } = {},
): Promise<SeededTransactionsDemo> {
  const seeded = await db.transaction(async (tx) => {
    const organization = await createOrganization(tx, {
      handle: options.handle ?? DEMO_ORGANIZATION_HANDLE,
      name: options.name ?? 'Demo Capital',
    });
    const org = organization.id;
    const { key } = await createApiKey(tx, { organizationId: org, environment, name: 'demo' });
    const senderEntityId = await insert(tx, 'entities', {
      organization_id: org,
      name: 'Demo Capital Fund I, L.P.',
      email: 'operations@demo-capital.example',
      type: 'fund',
      settings: { locale: 'en-US', timezone: 'America/New_York' },
    });
    const template = await loadExampleTemplate();
    const templateId = await insert(tx, 'templates', {
      organization_id: org,
      key: template.key,
      version: 1,
      name: template.name,
      description: template.description ?? null,
      definition: template,
    });
    const system = { type: 'system' as const, id: null };
    const context = { ipAddress: '127.0.0.1', userAgent: 'Portico demo' };
    const investor = (entity: { name: string; email: string; type: string }) =>
      insert(tx, 'entities', { organization_id: org, ...entity });
    /** A new transaction through the real lifecycle, locked for the changes that follow. */
    const start = async (notice: { name: string; email: string }, inputData: Record<string, unknown>) => {
      const { transactionId: id, transmitToken } = await createTransaction(tx, {
        organizationId: org,
        actor: system,
        input: { templateId, senderEntityId, noticeName: notice.name, noticeEmail: notice.email, inputData },
      });
      const subject = await lockTransaction(tx, { id, organizationId: org });
      if (!subject) throw new Error('the new transaction is gone');
      const investorRecipient = await primaryRecipient(tx, subject);
      return {
        id,
        transmitToken,
        subject,
        investorRecipient,
        actor: { type: 'recipient' as const, id: investorRecipient.recipientId },
      };
    };
    const fill = async (subject: LockedTransaction, items: Record<string, unknown>) => {
      for (const [vulcanKey, data] of Object.entries(items)) await saveItem(tx, subject, { vulcanKey, data });
    };

    // 1. Complete: Jane Doe subscribed, the sponsor asked for changes twice, then countersigned.
    await investor({ name: 'Jane Q. Doe', email: 'jane.doe@example.com', type: 'individual' });
    const jane = await start(
      { name: 'Jane Q. Doe', email: 'jane.doe@example.com' },
      { subscription_amount: { amount: { currency: 'USD', amount: 25_000_000 } } },
    );
    const transactionId = jane.id;
    const sign = (signer: Signer, signedName: string) =>
      signDocument(tx, jane.subject, {
        signer,
        documentKey: 'subscription_agreement',
        signedName,
        consent: true,
        context,
        files,
        workers: options.workers,
      });
    const submit = () => submitRevision(tx, jane.subject, { processKey: 'subscription', actor: jane.actor });
    await applyEvent(tx, jane.subject, 'send', system);
    await fill(jane.subject, {
      investor_details: { legalName: investorDetails.legalName, email: investorDetails.email },
      tax_forms: { taxResidency: 'US' },
    });
    await submit();
    await applyEvent(tx, jane.subject, 'request_changes', system);
    const w9 = await storeFile(tx, files, org, {
      filename: 'W-9 Jane Doe.pdf',
      lines: ['Form W-9 (demo)', 'Name: Jane Q. Doe', 'Taxpayer identification number: ***-**-6789'],
    });
    await insert(tx, 'transaction_files', {
      organization_id: org,
      transaction_id: transactionId,
      file_id: w9,
      transaction_recipient_id: jane.investorRecipient.recipientId,
      vulcan_key: 'tax_forms.w9FileId',
    });
    await fill(jane.subject, {
      investor_details: investorDetails,
      tax_forms: { taxResidency: 'US', usPerson: true, w9FileId: w9 },
      accreditation: { basis: ['net_worth'], confirmed: true },
    });
    // Before her first signature she agreed to use electronic records and signatures, as the portal asks.
    await recordEsignAct(tx, jane.subject, {
      recipientId: jane.investorRecipient.recipientId,
      act: 'consented',
      context,
    });
    await sign(jane.investorRecipient, 'Jane Q. Doe');
    await submit();
    await applyEvent(tx, jane.subject, 'request_changes', system);
    await fill(jane.subject, { subscription_amount: { amount: { currency: 'USD', amount: 50_000_000 } } });
    await sign(jane.investorRecipient, 'Jane Q. Doe');
    await submit();
    await applyEvent(tx, jane.subject, 'approve', system);
    const countersigner = await recipientOf(tx, transactionId, 'countersigner');
    if (!countersigner) throw new Error('approval added no countersigner');
    await sign(countersigner, 'Alex Morgan for Demo Capital Fund I, L.P.');
    await applyEvent(tx, jane.subject, 'countersign', system);

    // 2. In progress, waiting for its investor: the Redwood Family Trust has filled in part of the first revision.
    await investor({ name: 'Redwood Family Trust', email: 'trustee@redwood.example', type: 'trust' });
    const redwood = await start({ name: 'Morgan Redwood', email: 'trustee@redwood.example' }, {});
    await applyEvent(tx, redwood.subject, 'send', system);
    await fill(redwood.subject, {
      investor_details: { legalName: 'Redwood Family Trust', email: 'trustee@redwood.example' },
      subscription_amount: { currency: 'USD' },
    });

    // 3. Just created, not yet sent.
    await investor({ name: 'Acme Ventures LLC', email: 'finance@acme.example', type: 'company' });
    await start(
      { name: 'Acme Finance', email: 'finance@acme.example' },
      { subscription_amount: { currency: 'USD' } },
    );

    return {
      apiKey: key,
      organizationId: org,
      templateId,
      senderEntityId,
      transactionId,
      waitingTransmitToken: redwood.transmitToken,
    };
  });
  const consoleSignIn = await createDemoSignIn(db, {
    tenant: { kind: 'organization', id: seeded.organizationId },
    email: options.handle === undefined ? DEMO_CONSOLE_ADMIN_EMAIL : `admin@${options.handle}.example`,
    name: 'Alex Morgan',
    role: 'admin',
  });
  return { ...seeded, consoleSignIn };
}
