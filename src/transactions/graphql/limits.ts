import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isObjectType,
  isInterfaceType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from 'graphql';
import { AppError, type ErrorCode } from '../../errors.ts';

/**
 * The limits every GraphQL operation is held to before it runs. Depth, aliases and directives are GraphQL
 * Armor's validation rules (cached with the parsed query); tokens are graphql-js' own parser limit; cost is
 * ours, because it needs to know which fields are lists (see {@link operationCost}). Introspection fields
 * (`__schema`, `__type`, `__typename`) count toward none of depth or cost, so every standard introspection
 * query passes.
 */
export interface GraphQLLimits {
  /** Nested fields, fragments flattened (they add no level of their own). @default 10 */
  depth: number;
  /** Aliased fields in an operation, through its fragments. @default 15 */
  aliases: number;
  /** Directives in an operation. @default 50 */
  directives: number;
  /** Lexical tokens in the query text: a bound on parsing and validation work. @default 1000 */
  tokens: number;
  /** Estimated objects the operation reads (see operationCost). @default 5000 */
  cost: number;
  /** Fields the operation holds once every fragment spread is written out (see expandedFieldCount). @default 5000 */
  fields: number;
}

export const DEFAULT_GRAPHQL_LIMITS: GraphQLLimits = {
  depth: 10,
  aliases: 15,
  directives: 50,
  tokens: 1000,
  cost: 5000,
  fields: 5000,
};

/** The largest page a `first` argument takes (`Organization.transactions`). */
export const MAX_PAGE = 100;
/** How many items a list without a `first` argument is assumed to hold when cost is estimated. */
export const LIST_ESTIMATE = 10;
/** Scalar fields that do work of their own (a count, a signature), by `Type.field`. Other scalars cost 0. */
const SCALAR_COSTS: Record<string, number> = {
  'TransactionConnection.totalCount': 10,
  'File.signedUrl': 1,
};

/** graphql-js' message when the token limit stops parsing, as Mercurius passes it on. */
export function isTokenLimitError(message: string): boolean {
  return message.startsWith('Syntax Error: Document contains more that');
}

function armorRejection(code: ErrorCode, wording: (message: string) => string) {
  return [
    (context: ValidationContext | null, error: GraphQLError) => {
      // Armor words its own errors as "Syntax Error: <limit message>"; ours carry a specific code.
      const message = wording(error.message.replace(/^Syntax Error: /, ''));
      context?.reportError(new GraphQLError(message, { extensions: { code } }));
    },
  ];
}

/**
 * How many fields an operation holds once every fragment spread is replaced by its fragment, spread by spread:
 * `...F ...F` counts F's fields twice, and fragments spreading each other ten ways on five levels count
 * 10^5 times their fields. graphql-jit expands fragments like this when it compiles a query, taking time in
 * proportion to this number, however few distinct fields the answer holds. Counted with each fragment's total
 * computed once, so counting is linear in the query's size.
 *
 * @example
 * expandedFieldCount(parse('{ viewer { ...F ...F } } fragment F on Organization { id name }')); // 5
 */
export function expandedFieldCount(document: DocumentNode, operationName?: string | null): number {
  const { operation, fragments } = operationOf(document, operationName);
  return operation ? countFields(operation.selectionSet, fragments, new Map()) : 0;
}

/** The operation a request runs (the one named, else the first) and the document's fragments by name. */
function operationOf(
  document: DocumentNode,
  operationName: string | null | undefined,
): { operation: OperationDefinitionNode | undefined; fragments: Map<string, FragmentDefinitionNode> } {
  const fragments = new Map<string, FragmentDefinitionNode>();
  let operation: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    else if (
      definition.kind === Kind.OPERATION_DEFINITION &&
      (operationName == null || definition.name?.value === operationName)
    ) {
      operation ??= definition;
    }
  }
  return { operation, fragments };
}

function countFields(
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  memo: Map<string, number>,
): number {
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      total += 1 + (selection.selectionSet ? countFields(selection.selectionSet, fragments, memo) : 0);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      total += countFields(selection.selectionSet, fragments, memo);
    } else {
      const name = selection.name.value;
      let count = memo.get(name);
      if (count === undefined) {
        // A cycle counts 0 here: validation refuses it (NoFragmentCyclesRule) in the same pass.
        memo.set(name, 0);
        const fragment = fragments.get(name);
        count = fragment ? countFields(fragment.selectionSet, fragments, memo) : 0;
        memo.set(name, count);
      }
      total += count;
    }
  }
  return total;
}

/** Refuses, as a validation rule, each operation whose fragments expand to more fields than `limit`. */
function maxExpandedFieldsRule(limit: number): ValidationRule {
  return (context) => {
    const { fragments } = operationOf(context.getDocument(), undefined);
    return {
      OperationDefinition(operation) {
        const fields = countFields(operation.selectionSet, fragments, new Map());
        if (fields <= limit) return;
        const found = Number.isSafeInteger(fields) ? String(fields) : `about ${fields.toExponential(1)}`;
        context.reportError(
          new GraphQLError(
            `Fields limit of ${limit} exceeded, found ${found} once fragments are spread out: spread each ` +
              'fragment in fewer places, or send several requests.',
            { nodes: operation, extensions: { code: 'QUERY_TOO_COMPLEX' } },
          ),
        );
      },
    };
  };
}

/**
 * Depth, alias and directive limits as graphql-js validation rules (GraphQL Armor), and the limit on fields
 * once fragments are expanded (ours).
 */
export function limitRules(limits: GraphQLLimits): ValidationRule[] {
  return [
    maxExpandedFieldsRule(limits.fields),
    maxDepthRule({
      n: limits.depth,
      flattenFragments: true,
      ignoreIntrospection: true,
      propagateOnRejection: false,
      onReject: armorRejection('QUERY_TOO_DEEP', (message) => `${message} Ask for less nested data.`),
    }),
    maxAliasesRule({
      n: limits.aliases,
      propagateOnRejection: false,
      onReject: armorRejection(
        'TOO_MANY_ALIASES',
        (message) => `${message} Send several requests, or page through a list instead of aliasing.`,
      ),
    }),
    maxDirectivesRule({
      n: limits.directives,
      propagateOnRejection: false,
      onReject: armorRejection('TOO_MANY_DIRECTIVES', (message) => message),
    }),
  ];
}

function intValue(node: ValueNode | undefined, variables: Record<string, unknown>): number | undefined {
  if (node?.kind === Kind.INT) return Number(node.value);
  if (node?.kind === Kind.VARIABLE && Object.hasOwn(variables, node.name.value)) {
    const value = variables[node.name.value];
    return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
  }
  return undefined;
}

/** The page size a field with a `first` argument asks for, bounded by what the API serves. */
function pageSize(
  field: GraphQLField<unknown, unknown>,
  node: { arguments?: readonly { name: { value: string }; value: ValueNode }[] | undefined },
  variables: Record<string, unknown>,
  onVariable: () => void,
): number | undefined {
  const definition = field.args.find((arg) => arg.name === 'first');
  if (!definition) return undefined;
  const given = node.arguments?.find((arg) => arg.name.value === 'first');
  if (given?.value.kind === Kind.VARIABLE) onVariable();
  const fallback = typeof definition.defaultValue === 'number' ? definition.defaultValue : MAX_PAGE;
  const value = given ? (intValue(given.value, variables) ?? fallback) : fallback;
  return Math.min(Math.max(value, 1), MAX_PAGE);
}

/**
 * The estimated cost of running an operation: each object the answer would hold counts 1; a list multiplies
 * what it holds by its `first` argument (a variable counts as its value, else as its default in the operation, else
 * as the argument's default),
 * or by {@link LIST_ESTIMATE} when it has none; a connection's `first` applies to its `nodes`. Aliases add up
 * and fragments expand as they would at execution, but each fragment is costed once per page size, so the
 * work stays linear in the query's size however fragments spread each other. Scalars are free but for
 * the few in `SCALAR_COSTS`; introspection is free.
 *
 * @example
 * operationCost(schema, parse('{ viewer { transactions(first: 50) { nodes { id } } } }'), {}); // 52
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  operationName?: string | null,
): number {
  return costOf(schema, document, variables, operationName).cost;
}

/**
 * The cost, and whether it may be kept for the document: not when it depends on the values of variables (a
 * `first` given as one), nor when no operation has the name asked for (names are the client's to invent).
 */
function costOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  operationName: string | null | undefined,
): { cost: number; cacheable: boolean } {
  let dependsOnVariables = false;
  const onVariable = () => {
    dependsOnVariables = true;
  };
  const { operation, fragments } = operationOf(document, operationName);
  if (!operation) return { cost: 0, cacheable: false };
  // A variable left out takes the default its operation declares (`$n: Int = 100`), as it will at execution.
  const values: Record<string, unknown> = { ...variables };
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (!Object.hasOwn(values, name) && definition.defaultValue?.kind === Kind.INT) {
      values[name] = Number(definition.defaultValue.value);
    }
  }
  const memo = new Map<string, number>();

  const selectionCost = (
    selectionSet: SelectionSetNode,
    parent: GraphQLCompositeType,
    page: number | undefined,
  ): number => {
    let total = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        const key = `${name}:${page ?? ''}`;
        let cost = memo.get(key);
        if (cost === undefined) {
          const fragment = fragments.get(name);
          const type = fragment && schema.getType(fragment.typeCondition.name.value);
          // Validation refused unknown fragments and cycles before this runs; 0 is for the impossible case.
          memo.set(key, 0);
          cost =
            fragment && type && isCompositeType(type) ? selectionCost(fragment.selectionSet, type, page) : 0;
          memo.set(key, cost);
        }
        total += cost;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (type && isCompositeType(type)) total += selectionCost(selection.selectionSet, type, page);
      } else {
        const name = selection.name.value;
        if (name.startsWith('__')) continue;
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
        if (!field) continue;
        const named = getNamedType(field.type);
        if (!selection.selectionSet || !isCompositeType(named)) {
          total += SCALAR_COSTS[`${parent.name}.${name}`] ?? 0;
          continue;
        }
        const ownPage = pageSize(field, selection, values, onVariable);
        const isList = isListType(getNullableType(field.type));
        // A list counts its items: the page its connection asked for, its own `first`, or the estimate.
        const items = isList ? (page ?? ownPage ?? LIST_ESTIMATE) : 1;
        const inner = selectionCost(selection.selectionSet, named, isList ? undefined : ownPage);
        total += items * (1 + inner);
      }
    }
    return total;
  };

  const root = schema.getRootType(operation.operation);
  const cost = root ? selectionCost(operation.selectionSet, root, undefined) : 0;
  return { cost, cacheable: !dependsOnVariables };
}

/**
 * Costs of parsed documents (Mercurius keeps one parsed document per query text) by operation name, for the
 * operations whose cost does not depend on variables: most queries are costed once, not on every request.
 */
const knownCosts = new WeakMap<DocumentNode, Map<string, number>>();

/** Refuses an operation whose estimated cost is above the limit, naming both. */
export function checkOperationCost(
  options: {
    schema: GraphQLSchema;
    document: DocumentNode;
    variables: Record<string, unknown> | undefined;
    operationName: string | null | undefined;
  },
  limit: number,
): void {
  const name = options.operationName ?? '';
  let cost = knownCosts.get(options.document)?.get(name);
  if (cost === undefined) {
    const costed = costOf(options.schema, options.document, options.variables ?? {}, options.operationName);
    cost = costed.cost;
    if (costed.cacheable) {
      const byName = knownCosts.get(options.document) ?? new Map<string, number>();
      byName.set(name, cost);
      knownCosts.set(options.document, byName);
    }
  }
  if (cost > limit) {
    throw new AppError(
      'QUERY_TOO_COMPLEX',
      `Query cost limit of ${limit} exceeded, found ${cost}. Each object counts 1 and a list counts its items ` +
        `(its \`first\`, or ${LIST_ESTIMATE} for lists without one): ask for fewer fields, or smaller pages.`,
      { limit, cost },
    );
  }
}
