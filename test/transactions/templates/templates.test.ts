import { readFile } from 'node:fs/promises';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadExampleTemplate } from '../../../src/demo/seed.ts';
import type { TemplateDefinition } from '../../../src/transactions/templates/schema.ts';
import {
  TEMPLATE_SCHEMA_PATH,
  templateSchemaDocument,
} from '../../../src/transactions/templates/schema-document.ts';
import { checkTemplate, MAX_LISTED_PROBLEMS } from '../../../src/transactions/templates/validation.ts';
import { boundedSchema } from '../../../src/transactions/templates/answer-bounds.ts';
import { describeProblems } from '../../../src/validation/problems.ts';
import { importTemplate, importTemplateSource } from '../../../src/transactions/templates/templates.ts';
import { createOrganization } from '../../../src/transactions/organizations.ts';
import { AppError } from '../../../src/errors.ts';
import { uniqueHandle } from '../../support/data/transactions.ts';
import { useTransactionsSuite } from '../../support/data/transactions-suite.ts';

const EXAMPLE = new URL('../../../templates/examples/subscription.yaml', import.meta.url);
let example: string;

beforeAll(async () => {
  example = await readFile(EXAMPLE, 'utf8');
});

/** The example with one textual change, checked; the problems as `line: path: message` lines. */
function problemsAfter(from: string | RegExp, to: string): string[] {
  const changed = example.replace(from, to);
  expect(changed).not.toBe(example);
  const checked = checkTemplate(changed);
  if (checked.ok) throw new Error('the changed template passed');
  return describeProblems('t.yaml', checked.problems).split('\n');
}

describe('template files', () => {
  it('accepts the example subscription template', () => {
    const checked = checkTemplate(example);
    expect(checked.ok).toBe(true);
  });

  it('reads JSON templates as well as YAML', async () => {
    const definition = await loadExampleTemplate();
    expect(checkTemplate(JSON.stringify(definition)).ok).toBe(true);
  });

  it('publishes the JSON Schema it checks with, and the published copy is current', async () => {
    expect(await readFile(TEMPLATE_SCHEMA_PATH, 'utf8')).toBe(templateSchemaDocument());
  });

  it('lists the first 100 problems of a file wrong throughout, each with its line, and says how many more there are', () => {
    const keys = Array.from({ length: 250 }, (_, index) => `unknown_${String(index)}: x`).join('\n');
    const checked = checkTemplate(`${example}\n${keys}\n`);
    if (checked.ok) throw new Error('a file with 250 unknown keys was accepted');
    expect(checked.problems).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(checked.problems[0]).toMatchObject({ path: 'unknown_0', message: 'is not a known field' });
    expect(checked.problems[0]?.line).toBe(example.split('\n').length + 1);
    expect(checked.problems.at(-1)).toEqual({ path: '', message: 'and 150 more problems: fix these first' });
  });

  it('names the line of a syntax error', () => {
    const [problem] = problemsAfter('name: Fund subscription', 'name: [Fund subscription');
    expect(problem).toMatch(/^t\.yaml:\d+: /);
  });

  it('reports an event into an unknown state with its path and line', () => {
    const lines = problemsAfter('    to: countersigning', '    to: aproved');
    const line = example.split('\n').findIndex((text) => text.trim() === 'to: countersigning') + 1;
    expect(lines).toEqual([`t.yaml:${line}: workflow.events[3].to: unknown state "aproved"`]);
  });

  it.each([
    [
      'an unknown field',
      'primary: true',
      'primry: true',
      /recipientRoles\[0\]\.primry: is not a known field/,
    ],
    ['a missing field', /\nname: Fund subscription\n/, '\n', /^t\.yaml:\d+: name: is required$/],
    [
      'a key of the wrong form',
      'key: subscription\nname',
      'key: Subscription!\nname',
      /key: must match pattern/,
    ],
    [
      'an event from an unknown state',
      'from: [draft]',
      'from: [draft, nowhere]',
      /workflow\.events\[0\]\.from\[1\]: unknown state "nowhere"/,
    ],
    [
      'an unknown initial state',
      'initialState: draft',
      'initialState: start',
      /workflow\.initialState: unknown state "start"/,
    ],
    [
      'a state defined twice',
      '    - key: in_review\n',
      '    - key: in_progress\n',
      /workflow\.states\[2\]\.key: state "in_progress" is defined twice/,
    ],
    [
      'an unknown role that signs',
      'signedBy: [investor, countersigner]',
      'signedBy: [investor, notary]',
      /documents\[0\]\.signedBy\[1\]: unknown role "notary"/,
    ],
    [
      'an action on an unknown process',
      'openRevision: subscription',
      'openRevision: kyc',
      /onEnter\[0\]\.openRevision: unknown process "kyc"/,
    ],
    [
      'an action of an unknown kind',
      'addRecipient: countersigner',
      'addSigner: countersigner',
      /onEnter\[0\]: is not a valid choice/,
    ],
    [
      'an item schema that is not JSON Schema',
      'required: [legalName, email, address]',
      'required: 12',
      /items\[0\]\.schema: is not a valid JSON Schema/,
    ],
    ['no primary role', '    primary: true\n', '', /recipientRoles: exactly one role must be primary/],
    [
      'an unknown submit event',
      'submitEvent: submit',
      'submitEvent: send_in',
      /processes\[0\]\.submitEvent: unknown event "send_in"/,
    ],
    [
      'an event leaving a final state',
      'from: [countersigning]',
      'from: [countersigning, completed]',
      /"completed" is final: no event leaves it/,
    ],
    ['no final state', '      final: true\n', '', /workflow\.states: no state is final/],
    [
      'adding a recipient of a role that is not the sender',
      '        - addRecipient: countersigner',
      '        - addRecipient: investor',
      /onEnter\[0\]\.addRecipient: role "investor" is not a sender role/,
    ],
  ])('refuses %s, saying where', (_, from, to, expected) => {
    const lines = problemsAfter(from, to);
    expect(lines.some((line) => expected.test(line))).toBe(true);
    for (const line of lines) expect(line).toMatch(/^t\.yaml(:\d+)?: /);
  });

  it('refuses a widget that does not fit its property: a country is a string', () => {
    const lines = problemsAfter('taxResidency: { widget: country }', 'usPerson: { widget: country }');
    expect(lines).toEqual([
      expect.stringMatching(
        /^t\.yaml:\d+: processes\[0\]\.items\[1\]\.ui\.fields\.usPerson\.widget: the country widget needs a string property \(an ISO 3166-1 code\)$/,
      ),
    ]);
  });

  it("refuses an entity type's default that the field does not take, or on a field declared under a condition", () => {
    expect(problemsAfter('                company: entity', '                company: company')).toEqual([
      expect.stringMatching(
        /^t\.yaml:\d+: processes\[0\]\.items\[0\]\.ui\.fields\.investorType\.defaultByEntityType\.company: "company" is not an answer "investorType" takes$/,
      ),
    ]);
    expect(
      problemsAfter(
        'dateOfBirth: { autocomplete: bday }',
        'dateOfBirth: { defaultByEntityType: { trust: "2000-01-01" } }',
      ),
    ).toEqual([
      expect.stringMatching(
        /ui\.fields\.dateOfBirth\.defaultByEntityType: "dateOfBirth" must be a top-level property of the schema's own `properties`$/,
      ),
    ]);
    expect(problemsAfter('                fund: entity', '                hedge_fund: entity')).toEqual([
      expect.stringMatching(/defaultByEntityType\.hedge_fund: is not a known field$/),
    ]);
  });

  it('reads a field declared under a condition (`if`/`then`) as a field of the item, for hints and order', () => {
    const checked = checkTemplate(example);
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    const about = checked.definition.processes[0]?.items[0];
    expect(about?.ui?.fields?.dateOfBirth).toEqual({ autocomplete: 'bday' });
    expect(problemsAfter('dateOfBirth: { autocomplete: bday }', 'dateOfBirth: { widget: checkbox }')).toEqual(
      [
        expect.stringMatching(
          /ui\.fields\.dateOfBirth\.widget: the checkbox widget needs a boolean property$/,
        ),
      ],
    );
  });

  it("refuses a field's maxLength above 20,000 characters wherever the field is declared, saying where", () => {
    const address = '              title: Residential or registered address\n              minLength: 1\n';
    const line = example.split('\n').indexOf('              title: Residential or registered address') + 3;
    expect(problemsAfter(address, `${address}              maxLength: 20001\n`)).toEqual([
      `t.yaml:${String(line)}: processes[0].items[0].schema.properties.address.maxLength: must be at most 20,000, the longest answer Portico takes (a string field without maxLength takes 2,000 characters)`,
    ]);
    expect(
      problemsAfter('format: date }', 'format: date, maxLength: 50000 }').map((text) => text.split(': ')[1]),
    ).toEqual(['processes[0].items[0].schema.then.properties.dateOfBirth.maxLength']);
    expect(checkTemplate(example.replace(address, `${address}              maxLength: 20000\n`)).ok).toBe(
      true,
    );
  });

  it('bounds every string field of an item schema, nested ones too, keeping a lower maxLength and leaving conditions alone', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        code: { type: 'string', maxLength: 10 },
        essay: { type: 'string', maxLength: 50_000 },
        nickname: { type: ['string', 'null'] },
        tags: { type: 'array', items: { type: 'string' } },
        count: { type: 'integer' },
      },
      if: { properties: { name: { type: 'string' } } },
      then: { properties: { reason: { type: 'string' } } },
      $defs: { city: { type: 'string' } },
    };
    const copy = structuredClone(schema);
    expect(boundedSchema(schema)).toEqual({
      ...schema,
      properties: {
        name: { type: 'string', maxLength: 2_000 },
        code: { type: 'string', maxLength: 10 },
        // Above the ceiling (a template imported before it): the ceiling.
        essay: { type: 'string', maxLength: 20_000 },
        nickname: { type: ['string', 'null'], maxLength: 2_000 },
        tags: { type: 'array', items: { type: 'string', maxLength: 2_000 } },
        count: { type: 'integer' },
      },
      then: { properties: { reason: { type: 'string', maxLength: 2_000 } } },
      $defs: { city: { type: 'string', maxLength: 2_000 } },
    });
    expect(schema).toEqual(copy);
  });

  it("takes an item's maxDataBytes up to 64 KiB, and no more", () => {
    const item = '      - vulcanKey: investor_details\n';
    expect(checkTemplate(example.replace(item, `${item}        maxDataBytes: 65536\n`)).ok).toBe(true);
    expect(problemsAfter(item, `${item}        maxDataBytes: 65537\n`)).toEqual([
      expect.stringMatching(/^t\.yaml:\d+: processes\[0\]\.items\[0\]\.maxDataBytes: must be <= 65536$/),
    ]);
  });

  it('takes the answers the sender may prefill and the commitment, keeping them in the definition', () => {
    const checked = checkTemplate(
      example.replace(
        'prefill: [subscription_amount.amount]',
        'prefill: [subscription_amount.amount, investor_details.legalName, tax_forms.taxResidency]',
      ),
    );
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    expect(checked.definition.prefill).toEqual([
      'subscription_amount.amount',
      'investor_details.legalName',
      'tax_forms.taxResidency',
    ]);
    expect(checked.definition.commitment).toBe('subscription_amount.amount');
  });

  it.each([
    [
      'an unknown item',
      'prefill: [subscription_amount.amount, investor.legalName]',
      'prefill[1]: no item "investor" in the template (its items: investor_details, tax_forms, accreditation, subscription_amount)',
    ],
    [
      'an unknown field',
      'prefill: [investor_details.fullName]',
      'prefill[0]: item "investor_details" has no field "fullName" (its fields: investorType, legalName, email, phone, address)',
    ],
    [
      'a field declared under a condition',
      'prefill: [investor_details.dateOfBirth]',
      'prefill[0]: "dateOfBirth" of item "investor_details" is declared under a condition: only a field of the schema\'s own `properties` can be prefilled',
    ],
    [
      'a nested field',
      'prefill: [subscription_amount.amount.currency]',
      'prefill[0]: "subscription_amount.amount.currency" names a nested field: only a top-level field of an item can be prefilled, as <item vulcanKey>.<field>',
    ],
    [
      'an upload field',
      'prefill: [tax_forms.w9FileId]',
      'prefill[0]: "tax_forms.w9FileId" is an upload field: only the recipient uploads its file, so it cannot be prefilled',
    ],
    [
      'a consent',
      'prefill: [accreditation.confirmed]',
      'prefill[0]: "accreditation.confirmed" is a consent: only the recipient gives it, so it cannot be prefilled',
    ],
    [
      'a commitment that is not a money field',
      'commitment: investor_details.legalName',
      'commitment: "investor_details.legalName" is not a money field: the commitment must be one declared in its item\'s `money`',
    ],
    [
      'a commitment naming a nested field',
      'commitment: subscription_amount.amount.amount',
      'commitment: "subscription_amount.amount.amount" names a nested field: only a top-level field of an item can be the commitment, as <item vulcanKey>.<field>',
    ],
    [
      'a commitment naming an unknown field',
      'commitment: subscription_amount.total',
      'commitment: item "subscription_amount" has no field "total" (its fields: amount)',
    ],
  ])('refuses %s among the prefilled answers or as the commitment, saying where', (_, line, expected) => {
    const key = line.split(':')[0] ?? '';
    const original = example.split('\n').find((text) => text.startsWith(`${key}:`)) ?? '';
    const lineNumber = example.split('\n').indexOf(original) + 1;
    expect(problemsAfter(original, line)).toEqual([`t.yaml:${String(lineNumber)}: ${expected}`]);
  });

  it('refuses a prefilled answer or commitment whose item is in two processes, since it could name either', () => {
    const item = `      - vulcanKey: subscription_amount
        title: Subscription amount
        schema:
          type: object
          properties:
            amount: { title: Amount }
        money:
          amount: { currency: USD }
`;
    const lines = problemsAfter(
      '\n# The answers the sender',
      `  - key: top_up\n    items:\n${item}\n# The answers the sender`,
    );
    expect(lines).toEqual([
      expect.stringMatching(
        /^t\.yaml:\d+: prefill\[0\]: "subscription_amount" is an item of 2 processes, so "subscription_amount\.amount" could name either: give the items different vulcanKeys$/,
      ),
      expect.stringMatching(/^t\.yaml:\d+: commitment: "subscription_amount" is an item of 2 processes/),
    ]);
  });

  it('refuses a state that cannot be reached, and one from which the workflow cannot complete', () => {
    const unreachable = problemsAfter('    - key: completed\n', '    - key: limbo\n    - key: completed\n');
    expect(unreachable).toEqual([
      expect.stringMatching(
        /workflow\.states\[5\]: state "limbo" cannot be reached from the initial state "draft"/,
      ),
    ]);
    const stuck = problemsAfter(
      / {4}- key: request_changes\n {6}from: \[in_review\]\n {6}to: changes_requested\n/,
      '',
    );
    expect(stuck).toEqual([expect.stringMatching(/state "changes_requested" cannot be reached/)]);
    const trapped = problemsAfter(
      'from: [draft, in_progress, changes_requested]',
      'from: [draft, in_progress]',
    );
    expect(trapped).toEqual([
      expect.stringMatching(/from state "changes_requested" no sequence of events reaches a final state/),
    ]);
  });
});

describe('importing templates', () => {
  const suite = useTransactionsSuite();
  /** The running test's organization: a fresh one each test, so the versions it counts are its own imports. */
  let organizationId: string;
  let definition: TemplateDefinition;

  beforeAll(async () => {
    definition = await loadExampleTemplate();
  });

  beforeEach(async () => {
    organizationId = (await createOrganization(suite.db, { handle: uniqueHandle(), name: 'Templates Ltd' }))
      .id;
  });

  it('creates version 1, changes an unused template in place, and makes a new version of one in use', async () => {
    const created = await importTemplate(suite.db, { organizationId, definition });
    expect(created).toMatchObject({ key: 'subscription', version: 1, outcome: 'created' });
    expect(await importTemplate(suite.db, { organizationId, definition })).toEqual({
      ...created,
      outcome: 'unchanged',
    });

    const renamed = { ...definition, name: 'Fund subscription (2027)' };
    const updated = await importTemplate(suite.db, { organizationId, definition: renamed });
    expect(updated).toEqual({ ...created, outcome: 'updated' });

    const [entity] = await suite.db.query<{ id: string }>(
      `insert into entities (organization_id, name, type) values ($1, 'Fund', 'fund') returning id`,
      [organizationId],
    );
    const [transaction] = await suite.db.query<{ id: string }>(
      `insert into transactions (organization_id, template_id, sender_entity_id, state, notice_name, notice_email)
       values ($1, $2, $3, 'draft', 'A', 'a@example.com') returning id`,
      [organizationId, created.id, entity?.id],
    );
    const changed = { ...renamed, description: 'Now with a new description.' };
    const versioned = await importTemplate(suite.db, { organizationId, definition: changed });
    expect(versioned).toMatchObject({ key: 'subscription', version: 2, outcome: 'versioned' });
    expect(versioned.id).not.toBe(created.id);

    const rows = await suite.db.query<{ version: number; name: string; description: string | null }>(
      'select version, name, description from templates where organization_id = $1 order by version',
      [organizationId],
    );
    expect(rows).toEqual([
      { version: 1, name: 'Fund subscription (2027)', description: definition.description },
      { version: 2, name: 'Fund subscription (2027)', description: 'Now with a new description.' },
    ]);
    const [kept] = await suite.db.query<{ templateId: string }>(
      'select template_id as "templateId" from transactions where id = $1',
      [transaction?.id],
    );
    expect(kept?.templateId).toBe(created.id);
  });

  it('stores the answers the sender may prefill and the commitment, and refuses a commitment that is no money field with BAD_USER_INPUT', async () => {
    const source = example.replace(
      'prefill: [subscription_amount.amount]',
      'prefill: [subscription_amount.amount, investor_details.legalName]',
    );
    const imported = await importTemplateSource(suite.db, { organizationId, source, filename: 'fund.yaml' });
    const [stored] = await suite.db.query<{ prefill: string[]; commitment: string }>(
      `select definition->'prefill' as prefill, definition->>'commitment' as commitment from templates where id = $1`,
      [imported.id],
    );
    expect(stored).toEqual({
      prefill: ['subscription_amount.amount', 'investor_details.legalName'],
      commitment: 'subscription_amount.amount',
    });

    const wrong = example.replace(
      'commitment: subscription_amount.amount',
      'commitment: investor_details.email',
    );
    const attempt = importTemplateSource(suite.db, { organizationId, source: wrong, filename: 'wrong.yaml' });
    await expect(attempt).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await expect(attempt).rejects.toThrow(
      /^wrong\.yaml:\d+: commitment: "investor_details\.email" is not a money field/,
    );
  });

  it('refuses a file with mistakes, listing each with its place, and stores nothing', async () => {
    const source = example.replace('    to: countersigning', '    to: aproved');
    const attempt = importTemplateSource(suite.db, { organizationId, source, filename: 'broken.yaml' });
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toThrow(
      /^broken\.yaml:\d+: workflow\.events\[3\]\.to: unknown state "aproved"$/,
    );
    const [count] = await suite.db.query<{ count: string }>(
      `select count(*) as count from templates where organization_id = $1 and definition #>> '{workflow,events,3,to}' = 'aproved'`,
      [organizationId],
    );
    expect(count?.count).toBe('0');
  });
});
