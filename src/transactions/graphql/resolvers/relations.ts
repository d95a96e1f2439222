import { relatedKey, RELATIONS, type CreatedAtOrder, type Row } from '../read-model.ts';

/** Resolves one relation field from the row it was read with. */
type RelationResolver = (parent: Row, args: { orderBy?: CreatedAtOrder }) => unknown;

function ordered(rows: Row[], orderBy: CreatedAtOrder | undefined): Row[] {
  return orderBy === 'CREATED_AT_DESC' ? rows.toReversed() : rows;
}

/**
 * Resolvers for every relation field of {@link RELATIONS}, by type: they read what the root field loaded with
 * its row in one statement (see `selectionTree` and `findById`), so a query costs one SQL statement per root
 * field, whatever its depth.
 */
export const relationResolvers: Record<string, Record<string, RelationResolver>> = Object.fromEntries(
  Object.entries(RELATIONS).map(([type, relations]) => [
    type,
    Object.fromEntries(
      Object.entries(relations).map(([field, relation]): [string, RelationResolver] => {
        const key = relatedKey(field);
        return [
          field,
          (parent, args) => {
            const value = parent[key];
            // Every row handed to GraphQL comes from a read given the query's selection tree.
            if (value === undefined) throw new Error(`${type}.${field} was not read with its ${type}`);
            return relation.kind === 'many' ? ordered(value as Row[], args.orderBy) : value;
          },
        ];
      }),
    ),
  ]),
);
