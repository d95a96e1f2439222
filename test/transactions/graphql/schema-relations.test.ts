import { readFileSync } from 'node:fs';
import {
  buildSchema,
  getNamedType,
  getNullableType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLSchema,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { RELATIONS, RESOURCES, type Relation } from '../../../src/transactions/graphql/read-model.ts';

/**
 * The guard between the GraphQL schema and the SQL compiler's relation map: a field that shows related rows
 * resolves from what `findById` read with its parent only when RELATIONS names it, so a field added to the
 * schema without a relation (or a relation renamed without its field) would fail at query time only.
 */

const schema = buildSchema(
  readFileSync(new URL('../../../src/transactions/graphql/schema.graphql', import.meta.url), 'utf8'),
);

/** Object types the read model does not read as rows: each resolves otherwise, said why. */
const TYPES_NOT_READ_FROM_SQL: Record<string, string> = {
  Query: 'root fields have resolvers of their own that read by id',
  Mutation: 'root fields have resolvers of their own that write',
  TransactionConnection: 'a page built by the Organization.transactions resolver (listTransactions)',
  PageInfo: 'computed with the page by the Organization.transactions resolver',
  Workflow: "the template's definition, parsed by the Template.workflow resolver",
  WorkflowState: 'part of the parsed workflow definition',
  WorkflowEvent: 'part of the parsed workflow definition',
  AvailableEvent: "an event of the parsed workflow, explained by the engine for the transaction's state",
  EventPreview: "a dry run's preview, built by the mutation's resolver",
  PreviewedMail: "part of a dry run's preview",
  CreateTransactionPayload: 'the result of a mutation, built by its resolver',
  TriggerTransactionEventPayload: 'the result of a mutation, built by its resolver',
  SignTransactionDocumentPayload: 'the result of a mutation, built by its resolver',
  GenTransactionFileLinkPayload: 'the result of a mutation, built by its resolver',
  GenEvidenceBundleLinkPayload: 'the result of a mutation, built by its resolver',
  WebhookEndpointPayload: 'the result of a mutation, built by its resolver',
  EntityPayload: 'the result of a mutation, built by its resolver',
  WebhookEndpointSecretPayload: 'the result of a mutation, built by its resolver',
  DeleteWebhookEndpointPayload: 'the result of a mutation, built by its resolver',
  ResendWebhookDeliveriesPayload: 'the result of a mutation, built by its resolver',
};

/** Fields of row types whose type is an object type, resolved by a dedicated resolver instead of a relation. */
const FIELDS_RESOLVED_OTHERWISE: Record<string, string> = {
  'Organization.transactions': 'a connection paged by its own resolver (first, after, orderBy)',
  'Transaction.availableEvents': "computed from the workflow and the transaction's state",
  'Template.workflow': "parsed from the template's definition",
};

/** What kind of relation each relation kind must show as in the schema. */
function expectedShape(relation: Relation): { list: boolean; nullable: boolean | 'either' } {
  if (relation.kind === 'many') return { list: true, nullable: false };
  // The oldest child row, or null when there is none.
  if (relation.kind === 'first') return { list: false, nullable: true };
  // A foreign key that may be null (TransactionFile.transactionRecipient) shows as a nullable field.
  return { list: false, nullable: 'either' };
}

/** Every disagreement between the schema and a relation map, as sentences in sorted order; none when they agree. */
function disagreements(
  graphqlSchema: GraphQLSchema,
  relations: Partial<Record<string, Record<string, Relation>>>,
): string[] {
  const problems: string[] = [];
  const resources = new Set(Object.keys(RESOURCES));
  for (const type of Object.values(graphqlSchema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    if (!resources.has(type.name)) {
      if (TYPES_NOT_READ_FROM_SQL[type.name] === undefined) {
        problems.push(`${type.name} is neither a resource of the read model nor listed as read otherwise`);
      }
      continue;
    }
    for (const field of Object.values(type.getFields())) {
      if (!isObjectType(getNamedType(field.type))) continue;
      const name = `${type.name}.${field.name}`;
      if (relations[type.name]?.[field.name] === undefined && FIELDS_RESOLVED_OTHERWISE[name] === undefined) {
        problems.push(`${name} shows ${String(field.type)} but RELATIONS has no entry for it`);
      }
    }
  }
  for (const [typeName, fields] of Object.entries(relations)) {
    const type = graphqlSchema.getType(typeName);
    if (!isObjectType(type)) {
      problems.push(`RELATIONS names ${typeName}, which is no object type of the schema`);
      continue;
    }
    for (const [fieldName, relation] of Object.entries(fields ?? {})) {
      const name = `${typeName}.${fieldName}`;
      const field = type.getFields()[fieldName];
      if (field === undefined) {
        problems.push(`RELATIONS names ${name}, which the schema does not have`);
        continue;
      }
      const target = getNamedType(field.type).name;
      if (target !== relation.resource) {
        problems.push(`${name} is ${target} in the schema but ${relation.resource} in RELATIONS`);
      }
      const shape = expectedShape(relation);
      const list = isListType(getNullableType(field.type));
      if (list !== shape.list) {
        problems.push(
          `${name} is ${list ? 'a list' : 'a single value'} in the schema but kind '${relation.kind}' in RELATIONS`,
        );
      }
      if (shape.nullable !== 'either' && shape.nullable === isNonNullType(field.type)) {
        problems.push(
          `${name} is ${isNonNullType(field.type) ? 'non-null' : 'nullable'} in the schema but kind '${relation.kind}' in RELATIONS`,
        );
      }
    }
  }
  return problems.toSorted();
}

/** RELATIONS with `change` applied to a copy, for the tests that show the guard notices a disagreement. */
function changedRelations(
  change: (copy: Record<string, Record<string, Relation>>) => void,
): Record<string, Record<string, Relation>> {
  const copy = structuredClone(RELATIONS) as Record<string, Record<string, Relation>>;
  change(copy);
  return copy;
}

describe('the GraphQL schema and the relation map of the SQL compiler', () => {
  it('agree: every related field of a row type has a relation, and every relation a field of its shape', () => {
    expect(disagreements(schema, RELATIONS)).toEqual([]);
  });

  it('list only exceptions that the schema still has', () => {
    for (const typeName of Object.keys(TYPES_NOT_READ_FROM_SQL)) {
      expect(isObjectType(schema.getType(typeName)), typeName).toBe(true);
    }
    for (const name of Object.keys(FIELDS_RESOLVED_OTHERWISE)) {
      const [typeName = '', fieldName = ''] = name.split('.');
      const type = schema.getType(typeName);
      expect(isObjectType(type) && type.getFields()[fieldName] !== undefined, name).toBe(true);
    }
  });

  it('disagree when a relation the schema shows is missing from the map', () => {
    const relations = changedRelations((copy) => {
      delete copy.Transaction?.transactionRecipients;
    });
    expect(disagreements(schema, relations)).toEqual([
      'Transaction.transactionRecipients shows [TransactionRecipient!]! but RELATIONS has no entry for it',
    ]);
  });

  it('disagree when a relation names a field the schema does not have, or another target or cardinality', () => {
    const relations = changedRelations((copy) => {
      copy.Transaction = {
        ...copy.Transaction,
        recipients: { kind: 'many', resource: 'TransactionRecipient', column: 'transaction_id' },
        senderEntity: { kind: 'one', resource: 'Organization', foreignKey: 'sender_entity_id' },
        template: { kind: 'many', resource: 'Template', column: 'template_id' },
      };
      copy.TransactionRecipient = {
        ...copy.TransactionRecipient,
        entity: { kind: 'first', resource: 'Entity', column: 'entity_id' },
      };
    });
    expect(disagreements(schema, relations)).toEqual([
      'RELATIONS names Transaction.recipients, which the schema does not have',
      'Transaction.senderEntity is Entity in the schema but Organization in RELATIONS',
      "Transaction.template is a single value in the schema but kind 'many' in RELATIONS",
      "TransactionRecipient.entity is non-null in the schema but kind 'first' in RELATIONS",
    ]);
  });

  it('disagree when the schema gains an object type that is neither a resource nor listed', () => {
    const grown = buildSchema(
      `${readFileSync(new URL('../../../src/transactions/graphql/schema.graphql', import.meta.url), 'utf8')}
       type Signer { name: String }
       extend type Transaction { signer: Signer }`,
    );
    expect(disagreements(grown, RELATIONS)).toEqual([
      'Signer is neither a resource of the read model nor listed as read otherwise',
      'Transaction.signer shows Signer but RELATIONS has no entry for it',
    ]);
  });
});
