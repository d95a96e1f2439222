import type { TemplateDefinition } from '../../../src/transactions/templates/schema.ts';
import { randomUUID } from 'node:crypto';
import type { Environment } from '../../../src/config.ts';
import type { Database, Queryable, Transaction } from '../../../src/db/database.ts';
import { loadExampleTemplate } from '../../../src/demo/seed.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import { createApiKey } from '../../../src/keys/api-key-store.ts';
import { createTransaction } from '../../../src/transactions/create-transaction.ts';
import { createEntity } from '../../../src/transactions/entities.ts';
import { createOrganization } from '../../../src/transactions/organizations.ts';
import {
  primaryRecipient,
  recipientOf,
  saveItem,
  signDocument,
  submitRevision,
  type Signer,
} from '../../../src/transactions/recipients/actions.ts';
import { importTemplate } from '../../../src/transactions/templates/templates.ts';
import {
  applyEvent,
  lockTransaction,
  type LockedTransaction,
} from '../../../src/transactions/transitions.ts';
import { createDashboardPerson, type DashboardPerson } from './dashboard.ts';
import { createTestPortfolio, type TestPortfolio } from './portfolio.ts';
import { uniqueHandle } from './transactions.ts';
import { samplePdf } from './uploads.ts';
import { recordEsignAct } from '../../../src/transactions/esign/consent.ts';

/**
 * Stories: small functions that make exactly the data a test reads, through the domain functions the product
 * uses (an organization, its template, transactions taken through their lifecycle; an instance and its
 * portfolio through the import), and say what they made, so that a test derives its numbers from them instead
 * of knowing the demo's.
 */

/**
 * Where a story leaves a transaction of the example subscription template: `created` (not sent), `sent` (the
 * investor has filled in part of the first revision), `submitted` (every item answered, the agreement signed,
 * waiting for the sponsor) or `complete` (approved and countersigned).
 */
export type TransactionState = 'created' | 'sent' | 'submitted' | 'complete';

/** A transaction a story made, and what it holds. */
export interface TransactionStory {
  id: string;
  state: TransactionState;
  transmitToken: string;
  /** Its investor, the primary recipient. */
  investor: { name: string; email: string };
  /** The roles of its recipients, in the order they were added (the countersigner joins at approval). */
  recipients: string[];
  /** The revisions of its subscription process (a submitted or complete one: as many as `rounds`). */
  revisions: number;
  /** The items of each revision: one per item of the template. */
  itemsPerRevision: number;
  /** The files uploaded to it (the investor's W-9), by their names. */
  files: string[];
  /** The subscription amount it ends with, in cents. */
  amount: { currency: string; amount: number };
}

/** An organization a story made: its key and ids, and its transactions in the order made. */
export interface OrganizationStory {
  apiKey: string;
  organizationId: string;
  handle: string;
  name: string;
  templateId: string;
  senderEntityId: string;
  /** The sender entity, a fund, as made. */
  sender: { name: string; email: string; settings: Record<string, string> };
  transactions: TransactionStory[];
  /** The first transaction's id (the one most tests read). */
  transactionId: string;
}

/** What {@link organizationStory} makes besides the organization. */
export interface OrganizationStoryOptions {
  /** The environment of its key. @default 'staging' */
  environment?: Environment;
  /** One transaction per entry, in that state. @default ['complete'] */
  transactions?: TransactionState[];
  /**
   * How many times the investor submits a submitted or complete transaction: each round after the first
   * follows a request for changes and raises the amount. @default 1
   */
  rounds?: number;
  /** A change to the example template, e.g. an event that needs a second person. @default none */
  template?: (example: TemplateDefinition) => TemplateDefinition;
}

/** The example template's items: investor_details, tax_forms, accreditation, subscription_amount. */
const ITEMS_PER_REVISION = 4;
/** The first round's amount, in cents; each later round adds as much again. */
const FIRST_AMOUNT = 25_000_000;

/**
 * A new organization "Test Capital" with a key, a sender entity (a fund) and the example subscription template,
 * and a transaction in each state of `options.transactions`, each taken there through the real lifecycle
 * (create, send, save, sign, submit, request changes, approve, countersign).
 *
 * @example
 * const story = await organizationStory(db, files, { transactions: ['complete', 'sent'], rounds: 3 });
 * expect(revisionsOf(story.transactionId)).toHaveLength(story.transactions[0].revisions);
 */
export async function organizationStory(
  db: Database,
  files: FileStore,
  options: OrganizationStoryOptions = {},
): Promise<OrganizationStory> {
  const handle = uniqueHandle('story');
  const name = 'Test Capital';
  const organization = await createOrganization(db, { handle, name });
  const { key } = await createApiKey(db, {
    organizationId: organization.id,
    environment: options.environment ?? 'staging',
  });
  const sender = {
    name: 'Test Capital Fund I, L.P.',
    email: 'operations@test-capital.example',
    settings: { locale: 'en-US', timezone: 'America/New_York' },
  };
  const entity = await createEntity(db, { organizationId: organization.id, type: 'fund', ...sender });
  const template = await importTemplate(db, {
    organizationId: organization.id,
    definition: (options.template ?? ((example) => example))(await loadExampleTemplate()),
  });
  const made = {
    apiKey: key,
    organizationId: organization.id,
    handle,
    name,
    templateId: template.id,
    senderEntityId: entity.id,
    sender,
  };
  const transactions: TransactionStory[] = [];
  for (const [index, state] of (options.transactions ?? ['complete']).entries()) {
    transactions.push(await transactionStory(db, files, made, { state, rounds: options.rounds ?? 1, index }));
  }
  return { ...made, transactions, transactionId: transactions[0]?.id ?? '' };
}

/** The organization with what a transaction of the example template needs. */
type StoryOrganization = Pick<OrganizationStory, 'organizationId' | 'templateId' | 'senderEntityId'>;

/** Who acts for the sponsor in a story, and the signature context of every signature. */
const SYSTEM = { type: 'system' as const, id: null };
const CONTEXT = { ipAddress: '127.0.0.1', userAgent: 'Portico test story' };

/**
 * One transaction of the example template taken to `state` through the lifecycle, in a database transaction of
 * its own. Its investor is new (a unique address); `index` tells its name from the others'.
 */
export async function transactionStory(
  db: Database,
  files: FileStore,
  organization: StoryOrganization,
  options: { state: TransactionState; rounds?: number; index?: number },
): Promise<TransactionStory> {
  const { state } = options;
  const rounds = state === 'submitted' || state === 'complete' ? Math.max(1, options.rounds ?? 1) : 0;
  const investor = {
    name: `Investor ${String((options.index ?? 0) + 1)}`,
    email: `investor.${randomUUID().slice(0, 8)}@example.com`,
  };
  const { organizationId, templateId, senderEntityId } = organization;
  return db.transaction(async (tx) => {
    const created = await createTransaction(tx, {
      organizationId,
      actor: SYSTEM,
      input: {
        templateId,
        senderEntityId,
        noticeName: investor.name,
        noticeEmail: investor.email,
        inputData: { subscription_amount: { amount: { currency: 'USD', amount: FIRST_AMOUNT } } },
      },
    });
    const subject = await lockTransaction(tx, { id: created.transactionId, organizationId });
    if (!subject) throw new Error('the new transaction is gone');
    const made: TransactionStory = {
      id: created.transactionId,
      state,
      transmitToken: created.transmitToken,
      investor,
      recipients: ['investor'],
      revisions: 1,
      itemsPerRevision: ITEMS_PER_REVISION,
      files: [],
      amount: { currency: 'USD', amount: FIRST_AMOUNT },
    };
    if (state === 'created') return made;

    const signer = await primaryRecipient(tx, subject);
    const actor = { type: 'recipient' as const, id: signer.recipientId };
    const save = async (items: Record<string, unknown>) => {
      for (const [vulcanKey, data] of Object.entries(items)) await saveItem(tx, subject, { vulcanKey, data });
    };
    const sign = (by: Signer, signedName: string) =>
      signDocument(tx, subject, {
        signer: by,
        documentKey: 'subscription_agreement',
        signedName,
        consent: true,
        context: CONTEXT,
        files,
      });
    await applyEvent(tx, subject, 'send', SYSTEM);
    if (state === 'sent') {
      await save({ investor_details: { legalName: investor.name, email: investor.email } });
      return made;
    }

    made.files.push(await answerEveryItem(tx, files, subject, investor));
    for (let round = 1; round <= rounds; round += 1) {
      if (round > 1) {
        await applyEvent(tx, subject, 'request_changes', SYSTEM);
        made.amount = { currency: 'USD', amount: FIRST_AMOUNT * round };
        made.revisions += 1;
        await save({ subscription_amount: { amount: made.amount } });
      }
      if (round === 1) {
        await recordEsignAct(tx, subject, {
          recipientId: signer.recipientId,
          act: 'consented',
          context: CONTEXT,
        });
      }
      await sign(signer, investor.name);
      await submitRevision(tx, subject, { processKey: 'subscription', actor });
    }
    if (state === 'submitted') return made;

    await applyEvent(tx, subject, 'approve', SYSTEM);
    const countersigner = await recipientOf(tx, made.id, 'countersigner');
    if (!countersigner) throw new Error('approval added no countersigner');
    made.recipients.push('countersigner');
    await sign(countersigner, 'Alex Morgan for Test Capital Fund I, L.P.');
    await applyEvent(tx, subject, 'countersign', SYSTEM);
    return made;
  });
}

/**
 * Answers every item of the investor's open revision of a transaction of the example template, as the portal
 * would (the W-9 uploaded): only the agreement's signature is then left before it can be submitted. Returns the
 * W-9's file name.
 */
async function answerEveryItem(
  tx: Transaction,
  files: FileStore,
  subject: LockedTransaction,
  investor: { name: string; email: string },
): Promise<string> {
  const signer = await primaryRecipient(tx, subject);
  const w9 = `W-9 ${investor.name}.pdf`;
  const w9FileId = await storeUpload(tx, files, subject, signer, {
    filename: w9,
    vulcanKey: 'tax_forms.w9FileId',
    content: await samplePdf(`Form W-9: ${investor.name}`),
  });
  const items = {
    investor_details: {
      legalName: investor.name,
      email: investor.email,
      address: '12 Harbor Lane, Boston, MA 02110',
      dateOfBirth: '1979-04-18',
    },
    tax_forms: { taxResidency: 'US', usPerson: true, w9FileId },
    accreditation: { basis: ['net_worth'], confirmed: true },
  };
  for (const [vulcanKey, data] of Object.entries(items)) await saveItem(tx, subject, { vulcanKey, data });
  return w9;
}

/**
 * Makes the investor's open revision of a transaction of the example template ready to submit, as the investor
 * would in the portal: every item answered (the W-9 uploaded; the amount unless prefilled) and the agreement
 * signed, nothing submitted. The
 * revision then lacks nothing, so that the workflow's `submit` may happen.
 */
export async function readyToSubmit(
  db: Database,
  files: FileStore,
  transaction: { id: string; organizationId: string },
): Promise<void> {
  await db.transaction(async (tx) => {
    const subject = await lockTransaction(tx, transaction);
    if (!subject) throw new Error('no such transaction');
    const investor = { name: 'Ada Lovelace', email: 'ada@example.com' };
    await answerEveryItem(tx, files, subject, investor);
    // The amount, when the sender did not prefill it.
    const [amount] = await tx.query<{ complete: boolean }>(
      `select i.completion_percentage = 100 as complete from transaction_items i
       join transaction_process_revisions r on r.id = i.transaction_process_revision_id
       where r.transaction_id = $1 and i.vulcan_key = 'subscription_amount'
       order by r.number desc limit 1`,
      [subject.id],
    );
    if (amount?.complete !== true) {
      const data = { amount: { currency: 'USD', amount: FIRST_AMOUNT } };
      await saveItem(tx, subject, { vulcanKey: 'subscription_amount', data });
    }
    const signer = await primaryRecipient(tx, subject);
    await recordEsignAct(tx, subject, {
      recipientId: signer.recipientId,
      act: 'consented',
      context: CONTEXT,
    });
    await signDocument(tx, subject, {
      signer,
      documentKey: 'subscription_agreement',
      signedName: investor.name,
      consent: true,
      context: CONTEXT,
      files,
    });
  });
}

/**
 * A file the investor uploaded to an item's upload field, stored as the recipient portal's upload route stores
 * one (the file, then its TransactionFile); returns the file's id. (The route writes the rows itself: there is
 * no domain function to call.)
 */
async function storeUpload(
  tx: Queryable,
  files: FileStore,
  subject: LockedTransaction,
  signer: Signer,
  upload: { filename: string; vulcanKey: string; content: Uint8Array },
): Promise<string> {
  const storageKey = `${subject.organizationId}/${randomUUID()}.pdf`;
  await files.put(storageKey, upload.content);
  const [file] = await tx.query<{ id: string }>(
    `insert into files (organization_id, mime_type, extension, original_filename, storage_key, byte_size, uploaded_at)
     values ($1, 'application/pdf', 'pdf', $2, $3, $4, now()) returning id`,
    [subject.organizationId, upload.filename, storageKey, upload.content.byteLength],
  );
  if (!file) throw new Error('insert into files returned no row');
  await tx.query(
    `insert into transaction_files (organization_id, transaction_id, file_id, transaction_recipient_id, vulcan_key)
     values ($1, $2, $3, $4, $5)`,
    [subject.organizationId, subject.id, file.id, signer.recipientId, upload.vulcanKey],
  );
  return file.id;
}

/** A portfolio instance a story made: its portfolio, its name, and an admin who signs in to the dashboard. */
export interface PortfolioStory extends TestPortfolio {
  admin: DashboardPerson;
}

/**
 * A customer instance with a key, `companies` companies held by `funds` funds (see `createTestPortfolio`, whose
 * shape it has; `legalName` names company i), and an admin of the instance who signs in with a password.
 */
export async function portfolioStory(
  db: Database,
  options: { companies?: number; funds?: number; legalName?: (index: number) => string } = {},
): Promise<PortfolioStory> {
  const portfolio = await createTestPortfolio(db, options);
  const admin = await createDashboardPerson(db, { instanceId: portfolio.instanceId, role: 'admin' });
  return { ...portfolio, admin };
}
