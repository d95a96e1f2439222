import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../src/db/database.ts';
import { loadExampleTemplate, type TransactionsDemo } from '../src/demo/seed.ts';
import { createEntity } from '../src/transactions/entities.ts';
import { createOrganization } from '../src/transactions/organizations.ts';
import { importTemplate } from '../src/transactions/templates/templates.ts';
import { createPerson } from '../test/support/data/dashboard.ts';

async function insertReturningId(db: Queryable, sql: string, params: unknown[]): Promise<string> {
  const [row] = await db.query<{ id: string }>(`${sql} returning id`, params);
  if (!row) throw new Error('insert returned no row');
  return row.id;
}

/**
 * A bigger transaction in the demo organization, for `BENCH_SHAPES=large`: two recipients (an investor and the
 * sender countersigning) and one process with `revisions` revisions of `items` items each.
 */
export async function seedLargeTransaction(
  db: Database,
  demo: TransactionsDemo,
  shape: { revisions: number; items: number },
): Promise<string> {
  const org = demo.organizationId;
  return db.transaction(async (tx) => {
    const investor = await insertReturningId(
      tx,
      `insert into entities (organization_id, name, email, type, settings) values ($1, $2, $3, 'individual', $4)`,
      [org, 'Bench Investor', 'bench.investor@example.com', { locale: 'en-GB' }],
    );
    const transactionId = await insertReturningId(
      tx,
      `insert into transactions (organization_id, template_id, sender_entity_id, state, notice_name, notice_email)
       values ($1, $2, $3, 'in_review', 'Bench Investor', 'bench.investor@example.com')`,
      [org, demo.templateId, demo.senderEntityId],
    );
    for (const [entityId, role] of [
      [investor, 'investor'],
      [demo.senderEntityId, 'countersigner'],
    ] as const) {
      await tx.query(
        `insert into transaction_recipients (organization_id, transaction_id, entity_id, vulcan_key)
         values ($1, $2, $3, $4)`,
        [org, transactionId, entityId, role],
      );
    }
    const processId = await insertReturningId(
      tx,
      `insert into transaction_processes (organization_id, transaction_id, key) values ($1, $2, 'subscription')`,
      [org, transactionId],
    );
    for (let number = 1; number <= shape.revisions; number += 1) {
      const revisionId = await insertReturningId(
        tx,
        `insert into transaction_process_revisions
           (organization_id, transaction_process_id, transaction_id, number, context, committed_at)
         values ($1, $2, $3, $4, $5, case when $6::boolean then clock_timestamp() end)`,
        [
          org,
          processId,
          transactionId,
          number,
          { reason: number === 1 ? 'initial' : 'changes_requested' },
          // Every revision but the latest was submitted.
          number < shape.revisions,
        ],
      );
      for (let index = 1; index <= shape.items; index += 1) {
        await tx.query(
          `insert into transaction_items
             (organization_id, transaction_process_revision_id, transaction_id, vulcan_key, data, completion_percentage)
           values ($1, $2, $3, $4, $5, $6)`,
          [
            org,
            revisionId,
            transactionId,
            `item_${String(index).padStart(2, '0')}`,
            {
              answer: `revision ${number}, item ${index}`,
              amountCents: String(index * 100_000),
              checked: index % 2 === 0,
            },
            Math.min(100, number * 25),
          ],
        );
      }
    }
    return transactionId;
  });
}

/** An organization with the example template, a sender and an operator. */
export async function seedConsoleOrganization(db: Database) {
  const organization = await createOrganization(db, {
    handle: `bench-${randomUUID().slice(0, 8)}`,
    name: 'Bench Capital',
  });
  const sender = await createEntity(db, {
    organizationId: organization.id,
    type: 'fund',
    name: 'Bench Capital Fund I, L.P.',
    email: 'operations@bench-capital.example',
  });
  const template = await importTemplate(db, {
    organizationId: organization.id,
    definition: await loadExampleTemplate(),
  });
  const operator = await createPerson(db, {
    tenant: { kind: 'organization', id: organization.id },
    role: 'operator',
  });
  return {
    organizationId: organization.id,
    senderEntityId: sender.id,
    templateId: template.id,
    userId: operator.id,
  };
}
