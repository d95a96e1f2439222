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
  visit,
  type FieldNode,
  type GraphQLEnumType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLScalarType,
  type GraphQLSchema,
  type DocumentNode,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import type { Database } from '../../db/database.ts';
import { checkOperationCost } from './limits.ts';
import { operationCache, postedOperation, validDocument, type DocumentRules } from './posted-operations.ts';
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
 * (with at most `orderBy`) or `__typename` is *plannable*, however the query spells its selection: fragments and
 * inline fragments on the same type, `@include` and `@skip` (on literals, or on variables: one plan per
 * combination of their values), a response key asked more than once (merged as GraphQL merges it). Every other
 * request (mutations, connections, computed fields, persisted queries, GET, anything invalid) goes on to
 * Mercurius as before. The answer is the same, byte for byte, as Mercurius gives (a test holds them to it): the
 * same fields in the order GraphQL's CollectFields gives them, the same orders of lists, dates as `toISOString`
 * writes them. (graphql-jit, with which Mercurius answers a query text from its second time on, places a key
 * where it first appears in the document even when a variable's `@include` or `@skip` left that place out.) A
 * row that GraphQL would refuse to show (a null in a non-null field, a value outside an enum) and any failure of
 * the statement also go on to Mercurius, which reads again and reports as always.
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

/** A plan of an operation: its statement, its parameters, and how the row becomes the answer. */
interface Plan {
  sql: string;
  /** The root fields, in order: their response key, their `id` argument, what they show. */
  roots: { key: string; id: ValueNode; object: ObjectPlan }[];
}

/**
 * A plannable operation: its variables, and its plans by the values of the variables its `@include` and `@skip`
 * read (`plan`), each made on its first use (null when that selection is not plannable).
 */
interface Operation {
  variableDefinitions: readonly VariableDefinitionNode[];
  /** When every variable is a required scalar or enum without a default: each with its type. */
  leafVariables: { name: string; type: GraphQLScalarType | GraphQLEnumType }[] | undefined;
  plan(variables: Record<string, unknown>): Plan | null;
}

/** The most variables an operation's `@include` and `@skip` may read and be planned: one plan per combination. */
const MOST_CONDITIONS = 4;

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

type Fragments = ReadonlyMap<string, { typeCondition: string; selectionSet: SelectionSetNode }>;

/** The value of an `if:` argument: a literal, or a variable's value in the plan being made. */
type Condition = (value: ValueNode) => boolean;

/** Whether `@skip` and `@include` let a selection in; any other directive is not planned. */
function included(selection: SelectionNode, condition: Condition): boolean {
  let shown = true;
  for (const directive of selection.directives ?? []) {
    const name = directive.name.value;
    const value = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
    if ((name !== 'include' && name !== 'skip') || value === undefined) throw new Unplannable();
    if (condition(value) === (name === 'skip')) shown = false;
  }
  return shown;
}

/** A response key of an object: its first field, and every selection set asked under the key, merged. */
interface Collected {
  key: string;
  node: FieldNode;
  selectionSets: SelectionSetNode[];
}

/**
 * The response keys of an object as GraphQL collects them (its `collectFields`): in the order of their first
 * field, through fragments on the same type (each fragment once), past what `@skip` and `@include` leave out,
 * every field asked under a key merged into it (validation has made sure they are the same field with the same
 * arguments).
 */
function collectFields(
  selectionSets: readonly SelectionSetNode[],
  type: GraphQLObjectType,
  fragments: Fragments,
  condition: Condition,
): Collected[] {
  const collected = new Map<string, Collected>();
  const visited = new Set<string>();
  const visit = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (!included(selection, condition)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        let field = collected.get(key);
        if (field === undefined) {
          field = { key, node: selection, selectionSets: [] };
          collected.set(key, field);
        }
        if (selection.selectionSet) field.selectionSets.push(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const typeCondition = selection.typeCondition?.name.value;
        if (typeCondition !== undefined && typeCondition !== type.name) throw new Unplannable();
        visit(selection.selectionSet);
      } else {
        const name = selection.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const fragment = fragments.get(name);
        if (!fragment || fragment.typeCondition !== type.name) throw new Unplannable();
        visit(fragment.selectionSet);
      }
    }
  };
  for (const set of selectionSets) visit(set);
  return [...collected.values()];
}

/** Compiles operations to plans; SQL parameters are numbered from `$2` on (`$1` is the organization). */
class Planner {
  private depth = 0;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Fragments,
    private readonly condition: Condition,
  ) {}

  plan(operation: OperationDefinitionNode): Plan {
    if (operation.operation !== OperationTypeNode.QUERY || (operation.directives?.length ?? 0) > 0)
      throw new Unplannable();
    const queryType = this.schema.getQueryType();
    if (!queryType) throw new Unplannable();
    const roots: Plan['roots'] = [];
    const columns: string[] = [];
    const collected = collectFields([operation.selectionSet], queryType, this.fragments, this.condition);
    for (const { key, node, selectionSets } of collected) {
      const resource = BY_ID[node.name.value];
      const id = node.arguments?.find((argument) => argument.name.value === 'id')?.value;
      if (resource === undefined || id === undefined || node.arguments?.length !== 1) throw new Unplannable();
      const type = this.schema.getType(resource);
      if (!isObjectType(type)) throw new Unplannable();
      const idParam = roots.length + 2;
      const { select, object } = this.object(resource, type, selectionSets, 't0');
      const table = RESOURCES[resource].table;
      columns.push(
        `(select ${select} from ${table} t0 where t0.id = $${idParam} and ${sameTenant(`t0.${tenantColumn(resource)}`, '$1')}) as r${roots.length}`,
      );
      roots.push({ key, id, object });
    }
    // Everything left out: GraphQL answers `{"data":{}}`, which is not worth a statement.
    if (roots.length === 0) throw new Unplannable();
    return { sql: `select ${columns.join(', ')}`, roots };
  }

  /** `json_build_array(…)` of an object's expressions over the table aliased `alias`, and how to read it back. */
  private object(
    resource: ResourceName,
    type: GraphQLObjectType,
    selectionSets: readonly SelectionSetNode[],
    alias: string,
  ): { select: string; object: ObjectPlan } {
    if (selectionSets.length === 0) throw new Unplannable();
    const expressions: string[] = [];
    const fields: FieldPlan[] = [];
    const positions: number[] = [];
    const columns: Readonly<Record<string, string>> = RESOURCES[resource].columns;
    for (const { key, node, selectionSets: below } of collectFields(
      selectionSets,
      type,
      this.fragments,
      this.condition,
    )) {
      const name = node.name.value;
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
        if ((node.arguments?.length ?? 0) > (orderBy ? 1 : 0)) throw new Unplannable();
        const childType = getNamedType(definition.type);
        if (!isObjectType(childType)) throw new Unplannable();
        this.depth += 1;
        const childAlias = `t${this.depth}`;
        const inner = this.object(relation.resource, childType, below, childAlias);
        expressions.push(relationSubquery({ alias, resource }, relation, childAlias, inner.select));
        fields.push(
          relation.kind === 'many'
            ? { kind: 'many', key, object: inner.object, orderBy }
            : { kind: 'one', key, nonNull: isNonNullType(definition.type), object: inner.object },
        );
        continue;
      }
      const expression = columns[name];
      if (expression === undefined || (node.arguments?.length ?? 0) > 0 || below.length > 0) {
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

/** The variables' types, when every one is a required scalar or enum without a default. */
function leafVariables(
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
): Operation['leafVariables'] {
  const leaves: NonNullable<Operation['leafVariables']> = [];
  for (const definition of definitions) {
    if (definition.type.kind !== Kind.NON_NULL_TYPE || definition.defaultValue !== undefined)
      return undefined;
    if (definition.type.type.kind !== Kind.NAMED_TYPE) return undefined;
    const type = schema.getType(definition.type.type.name.value);
    if (!isScalarType(type) && !isEnumType(type)) return undefined;
    leaves.push({ name: definition.variable.name.value, type });
  }
  return leaves;
}

/**
 * The variables that the `if:` of `@include` and `@skip` read in a document, each once, in the order of their
 * first use.
 */
function conditionsOf(document: DocumentNode): string[] {
  const names = new Set<string>();
  visit(document, {
    Directive(directive) {
      for (const argument of directive.arguments ?? []) {
        if (argument.value.kind === Kind.VARIABLE) names.add(argument.value.name.value);
      }
    },
  });
  return [...names];
}

/**
 * The operation's variables as GraphQL coerces them, or undefined when it would refuse them (Mercurius then says
 * why). Variables that are all required scalars or enums without defaults, the common case, are coerced by their
 * type's own `parseValue` directly; any other definition goes through GraphQL's `getVariableValues`.
 */
function coerceVariables(
  schema: GraphQLSchema,
  operation: Operation,
  given: unknown,
): Record<string, unknown> | undefined {
  if (given !== undefined && given !== null && (typeof given !== 'object' || Array.isArray(given))) {
    return undefined;
  }
  const inputs = (given ?? {}) as Record<string, unknown>;
  if (operation.leafVariables) {
    const coerced: Record<string, unknown> = {};
    try {
      for (const { name, type } of operation.leafVariables) {
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
  const coerced = getVariableValues(schema, operation.variableDefinitions, inputs);
  return coerced.errors ? undefined : coerced.coerced;
}

/**
 * The direct reads of the GraphQL endpoint: `preHandler` answers a plannable POST itself and lets every other
 * request through. `useSchema` gives it Mercurius' executable schema (with the scalars' rules) once built; until
 * then every request goes through.
 */
export function createDirectReads(
  options: DocumentRules & {
    db: Database;
    /** The operation cost limit: a plan is made only for an operation within it. */
    costLimit: number;
    /** Counts each request answered (the metric's series). */
    answered?: { inc(): void } | undefined;
  },
): {
  useSchema(schema: GraphQLSchema): void;
  preHandler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
} {
  let schema: GraphQLSchema | undefined;
  const operations = operationCache((query, operationName) => makeOperation(query, operationName));

  const makeOperation = (query: string, operationName: string | undefined): Operation | null => {
    if (!schema) return null;
    const executable = schema;
    const document = validDocument(executable, query, options);
    if (!document) return null;
    const definition = getOperationAST(document, operationName);
    if (!definition) return null;
    // Within the cost limit whatever the variables: a plannable operation has no page sizes.
    checkOperationCost({ schema: executable, document, variables: {}, operationName }, options.costLimit);
    const fragments = new Map<string, { typeCondition: string; selectionSet: SelectionSetNode }>();
    for (const fragment of document.definitions) {
      if (fragment.kind === Kind.FRAGMENT_DEFINITION) {
        if ((fragment.directives?.length ?? 0) > 0) return null;
        fragments.set(fragment.name.value, {
          typeCondition: fragment.typeCondition.name.value,
          selectionSet: fragment.selectionSet,
        });
      }
    }
    const conditions = conditionsOf(document);
    if (conditions.length > MOST_CONDITIONS) return null;
    /** The plan for these variables, whose conditions' values are booleans. */
    const plan = (variables: Record<string, unknown>): Plan | null => {
      const condition: Condition = (value) => {
        if (value.kind === Kind.BOOLEAN) return value.value;
        const known = value.kind === Kind.VARIABLE ? variables[value.name.value] : undefined;
        if (typeof known !== 'boolean') throw new Unplannable();
        return known;
      };
      try {
        return new Planner(executable, fragments, condition).plan(definition);
      } catch (error) {
        if (error instanceof Unplannable) return null;
        throw error;
      }
    };
    const variableDefinitions = definition.variableDefinitions ?? [];
    const plans = new Map<string, Plan | null>();
    const operation: Operation = {
      variableDefinitions,
      leafVariables: leafVariables(executable, variableDefinitions),
      plan(variables) {
        // The conditions' values, as a key: `t` or `f` for each; anything else is GraphQL's to refuse.
        let key = '';
        for (const name of conditions) {
          const value = variables[name];
          if (typeof value !== 'boolean') return null;
          key += value ? 't' : 'f';
        }
        let made = plans.get(key);
        if (made === undefined) {
          made = plan(variables);
          plans.set(key, made);
        }
        return made;
      },
    };
    // An operation none of whose combinations is plannable is known at once.
    if (conditions.length === 0 && operation.plan({}) === null) return null;
    return operation;
  };

  return {
    useSchema(executable) {
      schema = executable;
      operations.clear();
    },
    async preHandler(request, reply) {
      const posted = postedOperation(request);
      const caller = request.caller;
      if (!posted || !caller || !schema) return undefined;
      const operation = operations.get(posted.query, posted.operationName);
      if (!operation) return undefined;
      const variables = coerceVariables(schema, operation, posted.variables);
      if (!variables) return undefined;
      const plan = operation.plan(variables);
      if (!plan) return undefined;
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
      options.answered?.inc();
      return reply.type('application/json; charset=utf-8').send(answer);
    },
  };
}
