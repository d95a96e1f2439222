import type { GraphQLResolveInfo } from 'graphql';
import { AppError, outOfRange } from '../../../errors.ts';
import { isUuid } from '../../../validation/uuid.ts';
import type { Context } from '../context.ts';
import { MAX_PAGE } from '../limits.ts';
import { countTransactions, listTransactions, type CreatedAtOrder, type Row } from '../read-model.ts';
import { treeOf } from '../selection.ts';

/** A cursor is the base64url of the last row's id: opaque to clients, checked on the way back. */
function encodeCursor(id: string): string {
  return Buffer.from(id).toString('base64url');
}

function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  // Lower case only, as encodeCursor writes the ids PostgreSQL prints.
  if (!isUuid(id) || id !== id.toLowerCase()) {
    throw new AppError('BAD_USER_INPUT', 'after: not a cursor this API returned (use pageInfo.endCursor)');
  }
  return id;
}

/** Paged lists (`Organization.transactions`): a page of rows, its `pageInfo`, and the list's `totalCount`. */
export const connectionResolvers = {
  Organization: {
    transactions: async (
      organization: Row,
      args: { first: number; after?: string | null; orderBy: CreatedAtOrder },
      { db }: Context,
      info: GraphQLResolveInfo,
    ) => {
      if (!Number.isInteger(args.first) || args.first < 1 || args.first > MAX_PAGE) {
        throw outOfRange('first', 1, MAX_PAGE, { field: 'first' });
      }
      const page = await listTransactions(
        db,
        {
          organizationId: organization.id,
          first: args.first,
          after: args.after == null ? undefined : decodeCursor(args.after),
          orderBy: args.orderBy,
        },
        treeOf('Transaction', info, 'nodes'),
      );
      const last = page.rows.at(-1);
      return {
        nodes: page.rows,
        pageInfo: { hasNextPage: page.hasNextPage, endCursor: last ? encodeCursor(last.id) : null },
        organizationId: organization.id,
      };
    },
  },
  TransactionConnection: {
    totalCount: (connection: { organizationId: string }, _: unknown, { db }: Context) =>
      countTransactions(db, connection.organizationId),
  },
};
