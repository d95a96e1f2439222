import {
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';
import { RELATIONS, RESOURCES, type ResourceName, type Tree } from './read-model.ts';

type Fragments = Record<string, FragmentDefinitionNode>;

/**
 * The field nodes of a selection, by field name, through inline fragments and fragment spreads. As GraphQL's own
 * field collection does, each fragment is visited once per call however often it is spread, so a query whose
 * fragments spread each other many ways costs work in proportion to its size, not to its expansion.
 */
function fieldsByName(nodes: readonly FieldNode[], fragments: Fragments): Map<string, FieldNode[]> {
  const fields = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const visit = (selectionSet: SelectionSetNode | undefined): void => {
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        const same = fields.get(name);
        if (same === undefined) fields.set(name, [selection]);
        else same.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet);
      } else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        visit(fragments[selection.name.value]?.selectionSet);
      }
    }
  };
  for (const node of nodes) visit(node.selectionSet);
  return fields;
}

/**
 * The columns every read shows whatever the query selects: the id, which resolvers read (a file's link, a
 * transaction's available events, a connection's cursor). Lists are ordered in the statement itself.
 */
const ALWAYS_READ = ['id'];

/** A read of a resource's columns that every read shows, these columns, and no relation. */
function readOf(resource: ResourceName, ...columns: string[]): Tree {
  const own = RESOURCES[resource].columns;
  return {
    columns: [...ALWAYS_READ.filter((field) => Object.hasOwn(own, field)), ...columns],
    relations: {},
  };
}

/** Fields computed from columns and relations of their row, which must then be read with it. */
const FIELD_NEEDS: Partial<Record<ResourceName, Record<string, Tree>>> = {
  Template: { workflow: readOf('Template', 'definition') },
  Transaction: {
    availableEvents: {
      columns: ['state'],
      relations: {
        template: readOf('Template', 'definition'),
        transactionProcesses: readOf('TransactionProcess', 'key', 'isComplete'),
      },
    },
  },
};

function merge(into: Tree, from: Tree): Tree {
  const relations: Record<string, Tree> = { ...into.relations };
  for (const [field, subtree] of Object.entries(from.relations)) {
    const there = relations[field];
    relations[field] = there === undefined ? subtree : merge(there, subtree);
  }
  const columns =
    into.columns === undefined || from.columns === undefined
      ? undefined
      : [...new Set([...into.columns, ...from.columns])];
  return columns === undefined ? { relations } : { columns, relations };
}

/**
 * What a query reads under a field of type `resource`: the columns it selects and the relations, as a tree for the
 * reads to load in one statement. Aliases of one field share one entry (their `orderBy` applies when resolving);
 * `@skip` and `@include` are not evaluated, so at worst a column or relation is read and not shown.
 */
function selectionTree(resource: ResourceName, nodes: readonly FieldNode[], fragments: Fragments): Tree {
  const own = RESOURCES[resource].columns;
  let tree = readOf(resource);
  const relations = RELATIONS[resource] ?? {};
  const columns = new Set<string>();
  for (const [name, fieldNodes] of fieldsByName(nodes, fragments)) {
    if (Object.hasOwn(own, name)) columns.add(name);
    const relation = relations[name];
    if (relation) {
      const subtree = selectionTree(relation.resource, fieldNodes, fragments);
      tree = merge(tree, { columns: [], relations: { [name]: subtree } });
    }
    const needs = FIELD_NEEDS[resource]?.[name];
    if (needs) tree = merge(tree, needs);
  }
  return merge(tree, { columns: [...columns], relations: {} });
}

/** The field nodes of the sub-field `name` under `nodes`, e.g. the `nodes` of a connection. */
function subfieldNodes(nodes: readonly FieldNode[], name: string, fragments: Fragments): FieldNode[] {
  return fieldsByName(nodes, fragments).get(name) ?? [];
}

/**
 * Trees already made, by the field node they were made for. The server keeps each query's parsed document and
 * runs it again and again with the same nodes, so a field's tree (and the statement made from it, see
 * `findById`) is made once per query text rather than once per request. Made trees are never changed.
 */
const madeTrees = new WeakMap<FieldNode, Map<string, Tree>>();

/**
 * What the field being resolved selects below it, when it is of type `resource`; or, with `under`, below its
 * sub-field of that name (the `nodes` of a connection).
 */
export function treeOf(
  resource: ResourceName,
  info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>,
  under?: string,
): Tree {
  const make = () => {
    const nodes =
      under === undefined ? info.fieldNodes : subfieldNodes(info.fieldNodes, under, info.fragments);
    return selectionTree(resource, nodes, info.fragments);
  };
  const [node, ...others] = info.fieldNodes;
  // A field asked several times in one selection has several nodes: rare, and made each time.
  if (node === undefined || others.length > 0) return make();
  let made = madeTrees.get(node);
  if (made === undefined) {
    made = new Map();
    madeTrees.set(node, made);
  }
  const key = under === undefined ? resource : `${under}.${resource}`;
  let tree = made.get(key);
  if (tree === undefined) {
    tree = make();
    made.set(key, tree);
  }
  return tree;
}
