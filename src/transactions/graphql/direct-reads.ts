// Kept as one file: reads by id that bypass GraphQL's execution must write byte for byte what it would; the plan,
// the coercion of variables and the assembly of rows are one algorithm, held to graphql-js by one test.
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  OperationTypeNode,
  parse,
  specifiedRules,
  validate,
  type FieldNode,
  type GraphQLEnumType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLScalarType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import type { Database } from '../../db/database.ts';
import { checkOperationCost } from './limits.ts';
import {
  RELATIONS,
  RESOURCES,
  relationSubquery,
  sameTenant,
  tenantColumn,
  type ResourceName,
} from './read-model.ts';

/**
 * Direct reads: the GraphQL queries that only read rows and their columns by id, answered by one prepared statement
 * whose positional arrays are given their keys in Node, without GraphQL's execution. A query of root fields by
 * id (`transaction(id:)`, `entity(id:)`, …) whose every field is a column of its row, a relation of RELATIONS
 * (with at most `orderBy`) or `__typename`, with no directives, is *plannable*; every other request (mutations,
 * connections, computed fields, persisted queries, GET, anything invalid) goes on to Mercurius as before. The
 * answer is the same, byte for byte, as Mercurius and graphql-jit give (a test holds them to it): the same
 * fields in the same order, the same orders of lists, dates as `toISOString` writes them. A row that GraphQL
 * would refuse to show (a null in a non-null field, a value outside an enum) and any failure of the statement
 * also go on to Mercurius, which reads again and reports as always.
 */

/** What a field of a planned object shows, by its place in the row's array. */
type FieldPlan =
  | { kind: 'typename'; key: string; typename: string }
  | { kind: 'leaf'; key: string; nonNull: boolean; int: boolean; values?: ReadonlySet<string> }
  | { kind: 'one'; key: string; nonNull: boolean; object: ObjectPlan }
  | { kind: 'many'; key: string; object: ObjectPlan; orderBy: ValueNode | undefined };

/** An object of the answer: its table's expressions in the statement, and how its array becomes an object. */
interface ObjectPlan {
  fields: FieldPlan[];
  /** The positions of `fields` in the row's array; `typename` fields take none. */
  positions: number[];
}

/** A plannable operation: its statement, its parameters, and how the row becomes the answer. */
interface Plan {
  sql: string;
  /** The root fields, in order: their response key, their `id` argument, what they show. */
  roots: { key: string; id: ValueNode; object: ObjectPlan }[];
  variableDefinitions: readonly VariableDefinitionNode[];
  /** When every variable is a required scalar or enum without a default: each with its type. */
  leafVariables: { name: string; type: GraphQLScalarType | GraphQLEnumType }[] | undefined;
}

/** The root fields that read one row by id, by name: the resource they read. */
const BY_ID: Readonly<Record<string, ResourceName>> = {
  entity: 'Entity',
  organization: 'Organization',
  template: 'Template',
  transaction: 'Transaction',
  transactionItem: 'TransactionItem',
  transactionFile: 'TransactionFile',
  transactionSignatureFile: 'TransactionSignatureFile',
  transactionRecipient: 'TransactionRecipient',
  webhookEndpoint: 'WebhookEndpoint',
  webhookDelivery: 'WebhookDelivery',
};

/** Leaf types whose values PostgreSQL's JSON writes as GraphQL serializes them (strings, integers, booleans, JSON). */
const PLAIN_SCALARS = new Set(['ID', 'String', 'Int', 'Boolean', 'uuid', 'UUID', 'json', 'JSON']);
const DATE_TIME_SCALARS = new Set(['DateTime', 'datetime']);

/** Not plannable: the request goes on to Mercurius. */
class Unplannable extends Error {}

/** A date-time as `Date.prototype.toISOString` writes it (years 1 to 9999, milliseconds truncated as `Date` does). */
const isoText = (expression: string) =>
  `to_char((${expression}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The fields of a selection in order, through fragments on the same type; each response key once. */
function fieldsOf(
  selectionSet: SelectionSetNode,
  type: GraphQLObjectType,
  fragments: ReadonlyMap<string, { typeCondition: string; selectionSet: SelectionSetNode }>,
): FieldNode[] {
  const fields: FieldNode[] = [];
  const keys = new Set<string>();
  const visit = (set: SelectionSetNode, seen: ReadonlySet<string>): void => {
    for (const selection of set.selections) {
      if (selection.directives !== undefined && selection.directives.length > 0) throw new Unplannable();
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        // GraphQL merges a key asked twice; not worth planning.
        if (keys.has(key)) throw new Unplannable();
        keys.add(key);
        fields.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition?.name.value;
        if (condition !== undefined && condition !== type.name) throw new Unplannable();
        visit(selection.selectionSet, seen);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment || fragment.typeCondition !== type.name || seen.has(name)) throw new Unplannable();
        visit(fragment.selectionSet, new Set([...seen, name]));
      }
    }
  };
  visit(selectionSet, new Set());
  return fields;
}

/** Compiles operations to plans; SQL parameters are numbered from `$2` on (`$1` is the organization). */
class Planner {
  private depth = 0;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: ReadonlyMap<
      string,
      { typeCondition: string; selectionSet: SelectionSetNode }
    >,
  ) {}

  plan(operation: OperationDefinitionNode): Plan {
    if (operation.operation !== OperationTypeNode.QUERY || (operation.directives?.length ?? 0) > 0)
      throw new Unplannable();
    const queryType = this.schema.getQueryType();
    if (!queryType) throw new Unplannable();
    const roots: Plan['roots'] = [];
    const columns: string[] = [];
    for (const field of fieldsOf(operation.selectionSet, queryType, this.fragments)) {
      const resource = BY_ID[field.name.value];
      const id = field.arguments?.find((argument) => argument.name.value === 'id')?.value;
      if (
        resource === undefined ||
        id === undefined ||
        field.arguments?.length !== 1 ||
        !field.selectionSet
      ) {
        throw new Unplannable();
      }
      const type = this.schema.getType(resource);
      if (!isObjectType(type)) throw new Unplannable();
      const idParam = roots.length + 2;
      const { select, object } = this.object(resource, type, field.selectionSet, 't0');
      const table = RESOURCES[resource].table;
      columns.push(
        `(select ${select} from ${table} t0 where t0.id = $${idParam} and ${sameTenant(`t0.${tenantColumn(resource)}`, '$1')}) as r${roots.length}`,
      );
      roots.push({ key: field.alias?.value ?? field.name.value, id, object });
    }
    const variableDefinitions = operation.variableDefinitions ?? [];
    return {
      sql: `select ${columns.join(', ')}`,
      roots,
      variableDefinitions,
      leafVariables: this.leafVariables(variableDefinitions),
    };
  }

  private leafVariables(definitions: readonly VariableDefinitionNode[]): Plan['leafVariables'] {
    const leaves: NonNullable<Plan['leafVariables']> = [];
    for (const definition of definitions) {
      if (definition.type.kind !== Kind.NON_NULL_TYPE || definition.defaultValue !== undefined)
        return undefined;
      if (definition.type.type.kind !== Kind.NAMED_TYPE) return undefined;
      const type = this.schema.getType(definition.type.type.name.value);
      if (!isScalarType(type) && !isEnumType(type)) return undefined;
      leaves.push({ name: definition.variable.name.value, type });
    }
    return leaves;
  }

  /** `json_build_array(…)` of an object's expressions over the table aliased `alias`, and how to read it back. */
  private object(
    resource: ResourceName,
    type: GraphQLObjectType,
    selectionSet: SelectionSetNode,
    alias: string,
  ): { select: string; object: ObjectPlan } {
    const expressions: string[] = [];
    const fields: FieldPlan[] = [];
    const positions: number[] = [];
    const columns: Readonly<Record<string, string>> = RESOURCES[resource].columns;
    for (const node of fieldsOf(selectionSet, type, this.fragments)) {
      const name = node.name.value;
      const key = node.alias?.value ?? name;
      if (name === '__typename') {
        fields.push({ kind: 'typename', key, typename: type.name });
        positions.push(-1);
        continue;
      }
      const definition = type.getFields()[name];
      if (!definition) throw new Unplannable();
      const relation = RELATIONS[resource]?.[name];
      positions.push(expressions.length);
      if (relation) {
        const orderBy = node.arguments?.find((argument) => argument.name.value === 'orderBy')?.value;
        if ((node.arguments?.length ?? 0) > (orderBy ? 1 : 0) || !node.selectionSet) throw new Unplannable();
        const childType = getNamedType(definition.type);
        if (!isObjectType(childType)) throw new Unplannable();
        this.depth += 1;
        const childAlias = `t${this.depth}`;
        const inner = this.object(relation.resource, childType, node.selectionSet, childAlias);
        expressions.push(relationSubquery({ alias, resource }, relation, childAlias, inner.select));
        fields.push(
          relation.kind === 'many'
            ? { kind: 'many', key, object: inner.object, orderBy }
            : { kind: 'one', key, nonNull: isNonNullType(definition.type), object: inner.object },
        );
        continue;
      }
      const expression = columns[name];
      if (expression === undefined || (node.arguments?.length ?? 0) > 0 || node.selectionSet) {
        throw new Unplannable();
      }
      expressions.push(this.leaf(expression, definition.type));
      const named = getNamedType(definition.type);
      fields.push({
        kind: 'leaf',
        key,
        nonNull: isNonNullType(definition.type),
        int: named.name === 'Int',
        ...(isEnumType(named) ? { values: enumValues(named) } : {}),
      });
    }
    return { select: `json_build_array(${expressions.join(', ')})`, object: { fields, positions } };
  }

  /** A column's expression as GraphQL shows it, or Unplannable for types PostgreSQL would write otherwise. */
  private leaf(expression: string, type: GraphQLOutputType): string {
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      const item = getNullableType(nullable.ofType);
      if (isEnumType(item) || PLAIN_SCALARS.has(getNamedType(item).name)) return expression;
      throw new Unplannable();
    }
    const named = getNamedType(type);
    if (isEnumType(named) || PLAIN_SCALARS.has(named.name)) return expression;
    if (DATE_TIME_SCALARS.has(named.name)) return isoText(expression);
    throw new Unplannable();
  }
}

const enumValueSets = new WeakMap<GraphQLEnumType, ReadonlySet<string>>();

function enumValues(type: GraphQLEnumType): ReadonlySet<string> {
  let values = enumValueSets.get(type);
  if (values === undefined) {
    values = new Set(type.getValues().map((value) => String(value.value)));
    enumValueSets.set(type, values);
  }
  return values;
}

/** GraphQL's Int is 32 bits: a larger value is an error there. */
const MAX_INT = 2 ** 31 - 1;

/** A value GraphQL would not show as it is: Mercurius reads again and reports it. */
class Unshowable extends Error {}

/** An array of the statement's row as the object the plan describes, keys in the query's order. */
function assemble(plan: ObjectPlan, row: readonly unknown[], variables: Record<string, unknown>): unknown {
  const result: Record<string, unknown> = {};
  const { fields, positions } = plan;
  for (let index = 0; index < fields.length; index += 1) {
    const field = fields[index] as FieldPlan;
    if (field.kind === 'typename') {
      result[field.key] = field.typename;
      continue;
    }
    const value = row[positions[index] as number] ?? null;
    if (field.kind === 'leaf') {
      if (value === null) {
        if (field.nonNull) throw new Unshowable();
      } else if (
        (field.values !== undefined && !shows(field.values, value)) ||
        (field.int && !Number.isInteger(value)) ||
        (field.int && Math.abs(value as number) > MAX_INT)
      ) {
        throw new Unshowable();
      }
      result[field.key] = value;
    } else if (field.kind === 'one') {
      if (value === null && field.nonNull) throw new Unshowable();
      result[field.key] = value === null ? null : assemble(field.object, value as unknown[], variables);
    } else {
      const items = (value as unknown[][]).map((item) => assemble(field.object, item, variables));
      result[field.key] = orderOf(field.orderBy, variables) === 'CREATED_AT_DESC' ? items.reverse() : items;
    }
  }
  return result;
}

/** Whether an enum field's value (or each of a list's) is a value of the enum. */
function shows(values: ReadonlySet<string>, value: unknown): boolean {
  return Array.isArray(value)
    ? value.every((item) => values.has(item as string))
    : values.has(value as string);
}

function valueOf(node: ValueNode, variables: Record<string, unknown>): unknown {
  if (node.kind === Kind.VARIABLE) return variables[node.name.value];
  if (node.kind === Kind.STRING || node.kind === Kind.ENUM) return node.value;
  throw new Unplannable();
}

function orderOf(node: ValueNode | undefined, variables: Record<string, unknown>): unknown {
  return node === undefined ? undefined : valueOf(node, variables);
}

/**
 * The operation's variables as GraphQL coerces them, or undefined when it would refuse them (Mercurius then says
 * why). Variables that are all required scalars or enums without defaults, the common case, are coerced by their
 * type's own `parseValue` directly; any other definition goes through GraphQL's `getVariableValues`.
 */
function coerceVariables(
  schema: GraphQLSchema,
  plan: Plan,
  given: unknown,
): Record<string, unknown> | undefined {
  if (given !== undefined && given !== null && (typeof given !== 'object' || Array.isArray(given))) {
    return undefined;
  }
  const inputs = (given ?? {}) as Record<string, unknown>;
  if (plan.leafVariables) {
    const coerced: Record<string, unknown> = {};
    try {
      for (const { name, type } of plan.leafVariables) {
        const value = inputs[name];
        if (value === undefined || value === null) return undefined;
        const parsed: unknown = type.parseValue(value);
        if (parsed === undefined) return undefined;
        coerced[name] = parsed;
      }
    } catch {
      return undefined;
    }
    return coerced;
  }
  const coerced = getVariableValues(schema, plan.variableDefinitions, inputs);
  return coerced.errors ? undefined : coerced.coerced;
}

/** The most distinct query texts whose plan (or unplannability) is kept; past it, the oldest is forgotten. */
const PLAN_CACHE_SIZE = 1000;

interface Envelope {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
  extensions?: unknown;
}

/**
 * The direct reads of the GraphQL endpoint: `preHandler` answers a plannable POST itself and lets every other
 * request through. `useSchema` gives it Mercurius' executable schema (with the scalars' rules) once built; until
 * then every request goes through.
 */
export function createDirectReads(options: {
  db: Database;
  /** The validation rules Mercurius adds to GraphQL's own (operation limits, storable strings). */
  validationRules: readonly ValidationRule[];
  maxTokens: number;
  /** The operation cost limit: a plan is made only for an operation within it. */
  costLimit: number;
}): {
  useSchema(schema: GraphQLSchema): void;
  preHandler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
} {
  let schema: GraphQLSchema | undefined;
  // By query text, then by operation name: a text's hash is computed once per request, and never for a key
  // built from it.
  const plans = new Map<string, Map<string | undefined, Plan | null>>();

  const planFor = (query: string, operationName: string | undefined): Plan | null => {
    let byName = plans.get(query);
    const known = byName?.get(operationName);
    if (known !== undefined) return known;
    let plan: Plan | null;
    try {
      plan = makePlan(query, operationName);
    } catch {
      // Unplannable, or refused by the parser or the cost limit: Mercurius says why.
      plan = null;
    }
    if (byName === undefined) {
      if (plans.size >= PLAN_CACHE_SIZE) plans.delete(plans.keys().next().value as string);
      byName = new Map();
      plans.set(query, byName);
    }
    byName.set(operationName, plan);
    return plan;
  };

  const makePlan = (query: string, operationName: string | undefined): Plan | null => {
    if (!schema) return null;
    const document = parse(query, { maxTokens: options.maxTokens });
    if (validate(schema, document, [...specifiedRules, ...options.validationRules]).length > 0) return null;
    const operation = getOperationAST(document, operationName);
    if (!operation) return null;
    // Within the cost limit whatever the variables: a plannable operation has no page sizes.
    checkOperationCost({ schema, document, variables: {}, operationName }, options.costLimit);
    const fragments = new Map<string, { typeCondition: string; selectionSet: SelectionSetNode }>();
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) {
        fragments.set(definition.name.value, {
          typeCondition: definition.typeCondition.name.value,
          selectionSet: definition.selectionSet,
        });
      }
    }
    return new Planner(schema, fragments).plan(operation);
  };

  return {
    useSchema(executable) {
      schema = executable;
      plans.clear();
    },
    async preHandler(request, reply) {
      const caller = request.caller;
      const envelope = request.body as Envelope | undefined;
      if (request.method !== 'POST' || !caller || !schema || !envelope || envelope.extensions !== undefined) {
        return undefined;
      }
      const { query, operationName } = envelope;
      if (typeof query !== 'string' || (operationName !== undefined && typeof operationName !== 'string')) {
        return undefined;
      }
      const plan = planFor(query, operationName);
      if (!plan) return undefined;
      const variables = coerceVariables(schema, plan, envelope.variables);
      if (!variables) return undefined;
      let answer: string;
      try {
        const params = [caller.organizationId, ...plan.roots.map((root) => valueOf(root.id, variables))];
        const [row] = await options.db.query<Record<string, unknown[] | null>>(plan.sql, params);
        const data: Record<string, unknown> = {};
        plan.roots.forEach((root, index) => {
          const value = row?.[`r${index}`] ?? null;
          data[root.key] = value === null ? null : assemble(root.object, value, variables);
        });
        answer = JSON.stringify({ data });
      } catch {
        // A failed read or a row GraphQL would not show: Mercurius reads again and reports as always.
        return undefined;
      }
      return reply.type('application/json; charset=utf-8').send(answer);
    },
  };
}
