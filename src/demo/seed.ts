import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Environment } from '../config.ts';
import type { Database, Queryable } from '../db/database.ts';
import type { FileStore } from '../files/local-file-store.ts';
import { createApiKey } from '../keys/api-key-store.ts';
import { createOrganization } from '../transactions/organizations.ts';
import { checkTemplate, describeProblems } from '../transactions/template-validation.ts';
import type { TemplateDefinition } from '../transactions/template-schema.ts';

/** The ids and key of the demo data, as `demo.json` reports them. */
export interface TransactionsDemo {
  apiKey: string;
  organizationId: string;
  templateId: string;
  senderEntityId: string;
  transactionId: string;
}

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
  const [inserted] = await db.query<{ id: string }>(
    `insert into ${table} (${columns.join(', ')}) values (${placeholders.join(', ')}) returning id`,
    Object.values(row),
  );
  if (!inserted) throw new Error(`insert into ${table} returned no row`);
  return inserted.id;
}

async function pdf(lines: string[]): Promise<Uint8Array> {
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
 * for the environment, and three transactions at different stages. The main one is complete: two recipients
 * (the investor, and the sender countersigning), three revisions of its process, a signed agreement and an
 * uploaded W-9.
 */
export async function seedTransactionsDemo(
  db: Database,
  files: FileStore,
  environment: Environment,
  options: { handle?: string; name?: string } = {},
): Promise<TransactionsDemo> {
  return db.transaction(async (tx) => {
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
    const investor = (entity: { name: string; email: string; type: string }) =>
      insert(tx, 'entities', { organization_id: org, ...entity });

    const createTransaction = async (options: {
      state: string;
      notice: { name: string; email: string };
      completed?: boolean;
    }) => {
      const id = await insert(tx, 'transactions', {
        organization_id: org,
        template_id: templateId,
        sender_entity_id: senderEntityId,
        state: options.state,
        notice_name: options.notice.name,
        notice_email: options.notice.email,
        input_data: { subscription_amount: { currency: 'USD' } },
        completed_at: options.completed ? new Date() : null,
      });
      return id;
    };
    const events = async (transactionId: string, steps: [string, string | null, string][]) => {
      for (const [eventKey, source, target] of steps) {
        await insert(tx, 'transaction_events', {
          organization_id: org,
          transaction_id: transactionId,
          event_key: eventKey,
          source_state: source,
          target_state: target,
          actor_type: eventKey === 'create' ? 'system' : eventKey === 'submit' ? 'recipient' : 'api_key',
        });
      }
    };
    const revision = async (
      transactionId: string,
      processId: string,
      number: number,
      options: { committed: boolean; context: unknown; items: Record<string, [unknown, number]> },
    ) => {
      const revisionId = await insert(tx, 'transaction_process_revisions', {
        organization_id: org,
        transaction_process_id: processId,
        transaction_id: transactionId,
        number,
        context: options.context,
      });
      for (const [vulcanKey, [data, completion]] of Object.entries(options.items)) {
        await insert(tx, 'transaction_items', {
          organization_id: org,
          transaction_process_revision_id: revisionId,
          transaction_id: transactionId,
          vulcan_key: vulcanKey,
          data,
          completion_percentage: completion,
        });
      }
      if (options.committed) {
        await tx.query(
          'update transaction_process_revisions set committed_at = clock_timestamp() where id = $1',
          [revisionId],
        );
      }
      return revisionId;
    };

    // 1. Complete: Jane Doe subscribed, the sponsor asked for changes twice, then countersigned.
    const janeId = await investor({ name: 'Jane Q. Doe', email: 'jane.doe@example.com', type: 'individual' });
    const transactionId = await createTransaction({
      state: 'completed',
      notice: { name: 'Jane Q. Doe', email: 'jane.doe@example.com' },
      completed: true,
    });
    const janeRecipient = await insert(tx, 'transaction_recipients', {
      organization_id: org,
      transaction_id: transactionId,
      entity_id: janeId,
      vulcan_key: 'investor',
    });
    const processId = await insert(tx, 'transaction_processes', {
      organization_id: org,
      transaction_id: transactionId,
      key: 'subscription',
    });
    const w9 = await storeFile(tx, files, org, {
      filename: 'W-9 Jane Doe.pdf',
      lines: ['Form W-9 (demo)', 'Name: Jane Q. Doe', 'Taxpayer identification number: ***-**-6789'],
    });
    await insert(tx, 'transaction_files', {
      organization_id: org,
      transaction_id: transactionId,
      file_id: w9,
      transaction_recipient_id: janeRecipient,
      vulcan_key: 'tax_forms.w9FileId',
    });
    await revision(transactionId, processId, 1, {
      committed: true,
      context: { reason: 'initial' },
      items: {
        investor_details: [{ ...investorDetails, address: '' }, 67],
        tax_forms: [{ taxResidency: 'US' }, 50],
        subscription_amount: [{ amountCents: '25000000', currency: 'USD' }, 100],
      },
    });
    await revision(transactionId, processId, 2, {
      committed: true,
      context: { reason: 'changes_requested', note: 'Please add your address and upload a W-9.' },
      items: {
        investor_details: [investorDetails, 100],
        tax_forms: [{ taxResidency: 'US', w9FileId: w9 }, 100],
        subscription_amount: [{ amountCents: '25000000', currency: 'USD' }, 100],
      },
    });
    await revision(transactionId, processId, 3, {
      committed: true,
      context: { reason: 'changes_requested', note: 'The minimum subscription is USD 500,000.' },
      items: {
        investor_details: [investorDetails, 100],
        tax_forms: [{ taxResidency: 'US', w9FileId: w9 }, 100],
        subscription_amount: [{ amountCents: '50000000', currency: 'USD' }, 100],
      },
    });
    const countersigner = await insert(tx, 'transaction_recipients', {
      organization_id: org,
      transaction_id: transactionId,
      entity_id: senderEntityId,
      vulcan_key: 'countersigner',
    });
    const containerId = await insert(tx, 'transaction_signature_containers', {
      organization_id: org,
      transaction_id: transactionId,
      transaction_process_id: processId,
      document_key: 'subscription_agreement',
      state: 'completed',
      completed_at: new Date(),
    });
    for (const [recipientId, signedName] of [
      [janeRecipient, 'Jane Q. Doe'],
      [countersigner, 'Alex Morgan for Demo Capital Fund I, L.P.'],
    ] as const) {
      await insert(tx, 'transaction_signatures', {
        organization_id: org,
        transaction_signature_container_id: containerId,
        transaction_recipient_id: recipientId,
        state: 'signed',
        signed_name: signedName,
        signed_at: new Date(),
        ip_address: '127.0.0.1',
        user_agent: 'Portico demo',
      });
    }
    const agreement = await storeFile(tx, files, org, {
      filename: 'Subscription agreement - Jane Q. Doe.pdf',
      lines: [
        'Subscription agreement (demo)',
        'Investor: Jane Q. Doe',
        'Fund: Demo Capital Fund I, L.P.',
        'Amount: USD 500,000.00',
        'Signed: Jane Q. Doe; Alex Morgan for Demo Capital Fund I, L.P.',
      ],
    });
    await insert(tx, 'transaction_signature_files', {
      organization_id: org,
      transaction_id: transactionId,
      transaction_signature_container_id: containerId,
      file_id: agreement,
    });
    await tx.query('update transaction_processes set completed_at = clock_timestamp() where id = $1', [
      processId,
    ]);
    await events(transactionId, [
      ['create', null, 'draft'],
      ['send', 'draft', 'in_progress'],
      ['submit', 'in_progress', 'in_review'],
      ['request_changes', 'in_review', 'changes_requested'],
      ['submit', 'changes_requested', 'in_review'],
      ['request_changes', 'in_review', 'changes_requested'],
      ['submit', 'changes_requested', 'in_review'],
      ['approve', 'in_review', 'countersigning'],
      ['countersign', 'countersigning', 'completed'],
    ]);

    // 2. In progress: the Redwood Family Trust has filled in part of the first revision.
    const trustId = await investor({
      name: 'Redwood Family Trust',
      email: 'trustee@redwood.example',
      type: 'trust',
    });
    const inProgress = await createTransaction({
      state: 'in_progress',
      notice: { name: 'Morgan Redwood', email: 'trustee@redwood.example' },
    });
    await insert(tx, 'transaction_recipients', {
      organization_id: org,
      transaction_id: inProgress,
      entity_id: trustId,
      vulcan_key: 'investor',
    });
    const inProgressProcess = await insert(tx, 'transaction_processes', {
      organization_id: org,
      transaction_id: inProgress,
      key: 'subscription',
    });
    await revision(inProgress, inProgressProcess, 1, {
      committed: false,
      context: { reason: 'initial' },
      items: {
        investor_details: [{ legalName: 'Redwood Family Trust', email: 'trustee@redwood.example' }, 67],
        tax_forms: [{}, 0],
        subscription_amount: [{ currency: 'USD' }, 50],
      },
    });
    await events(inProgress, [
      ['create', null, 'draft'],
      ['send', 'draft', 'in_progress'],
    ]);

    // 3. Just created, not yet sent.
    const acmeId = await investor({
      name: 'Acme Ventures LLC',
      email: 'finance@acme.example',
      type: 'company',
    });
    const draft = await createTransaction({
      state: 'draft',
      notice: { name: 'Acme Finance', email: 'finance@acme.example' },
    });
    await insert(tx, 'transaction_recipients', {
      organization_id: org,
      transaction_id: draft,
      entity_id: acmeId,
      vulcan_key: 'investor',
    });
    const draftProcess = await insert(tx, 'transaction_processes', {
      organization_id: org,
      transaction_id: draft,
      key: 'subscription',
    });
    await revision(draft, draftProcess, 1, {
      committed: false,
      context: { reason: 'initial' },
      items: {
        investor_details: [{}, 0],
        tax_forms: [{}, 0],
        subscription_amount: [{ currency: 'USD' }, 50],
      },
    });
    await events(draft, [['create', null, 'draft']]);

    return { apiKey: key, organizationId: org, templateId, senderEntityId, transactionId };
  });
}
