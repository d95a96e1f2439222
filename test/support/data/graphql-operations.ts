/**
 * GraphQL operations of a chosen shape for the tests of operation limits: nested as deep as asked, or fragments
 * spreading each other many ways.
 */

/**
 * `{ viewer { transactions(first: 1) { nodes { organization { … { __typename } } } } } }`: exactly `depth` fields
 * deep, counting the leaf, and cheap at any depth (every page holds one transaction).
 */
export function chainQuery(depth: number): string {
  const cycle = ['transactions(first: 1)', 'nodes', 'organization'];
  const fields = ['viewer', ...Array.from({ length: depth - 2 }, (_, index) => cycle[index % 3] ?? '')];
  return `{ ${fields.map((field) => `${field} { `).join('')}__typename${' }'.repeat(depth - 1)} }`;
}

/** The scalar field each middle level of a fan-out selects, so that every level shows in the answer. */
const LEVEL_FIELDS = ['state', 'createdAt', 'noticeName', 'updatedAt'];

/**
 * Fragments on Transaction spreading each other `ways` times on `levels` levels, under a page of 3 transactions:
 * `...L2` ten times in L1, `...L3` ten times in L2, and so on, each level adding a field of its own. Returns the
 * query, the same fields written out without fragments (`flat`), and how many fields the query holds once every
 * spread is written out (`fields`).
 */
export function fanOutQuery(options: { ways: number; levels: number; leaf?: string }): {
  query: string;
  flat: string;
  fields: number;
} {
  const { ways, levels } = options;
  if (levels < 2 || levels > LEVEL_FIELDS.length + 2)
    throw new Error(`levels must be 2 to ${LEVEL_FIELDS.length + 2}`);
  const leaf = options.leaf ?? '';
  const spreads = (level: number) => ` ...L${level}`.repeat(ways);
  const middle = LEVEL_FIELDS.slice(0, levels - 2);
  const last = `noticeEmail isComplete ${leaf}`.trim();
  const fragments = [
    `fragment L1 on Transaction { id template { name }${spreads(2)} }`,
    ...middle.map(
      (field, index) => `fragment L${index + 2} on Transaction { ${field}${spreads(index + 3)} }`,
    ),
    `fragment L${levels} on Transaction { ${last} }`,
  ];
  const page = (selection: string) => `{ viewer { transactions(first: 3) { nodes { ${selection} } } } }`;
  const leafFields = (leaf.match(/\w+/g) ?? []).length;
  let fields = 2 + leafFields;
  for (let level = levels - 1; level >= 2; level -= 1) fields = 1 + ways * fields;
  fields = 3 + ways * fields;
  return {
    query: `${page('...L1')}\n${fragments.join('\n')}`,
    flat: page(`id template { name } ${middle.join(' ')} ${last}`),
    fields: 3 + fields,
  };
}
