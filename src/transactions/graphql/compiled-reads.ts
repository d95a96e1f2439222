import type { FastifyReply, FastifyRequest } from 'fastify';
import { getOperationAST, OperationTypeNode, type DocumentNode, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { TransactionsContext } from './context.ts';
import { checkOperationCost } from './limits.ts';
import { operationCache, postedOperation, validDocument, type DocumentRules } from './posted-operations.ts';

/**
 * Compiled reads: a query posted again (any query: computed fields, connections, files' links) runs its query
 * compiled by graphql-jit, as Mercurius would run it, with the same context and cost limit, and its answer is
 * written with `JSON.stringify`, without Mercurius' own round of hooks, variable checks and serializer. What is
 * left to Mercurius, which answers as always:
 * - a text the first time it comes: one sent once is not worth compiling (Mercurius waits for a second time too);
 * - mutations, GET, persisted queries, and anything GraphQL refuses;
 * - an answer with errors (a bad variable, a field that failed, a cost over the limit): Mercurius runs the query
 *   again and words its errors. A query changes nothing, so running it twice only costs its reads twice.
 * Direct reads (direct-reads.ts) come first: a read they answer never gets here.
 */

/** A query text that passed GraphQL's checks: its document, and its compiled query from its second time on. */
interface Known {
  document: DocumentNode;
  /** Until its second time, `undefined`; then its compiled query, or null when graphql-jit cannot compile it. */
  compiled: CompiledQuery | null | undefined;
  /** Whether it came once already. */
  seen: boolean;
}

export function createCompiledReads(
  options: DocumentRules & {
    /** The operation cost limit, checked with each request's variables as Mercurius' hook does. */
    costLimit: number;
    /** The resolvers' context of a request, as Mercurius is given it. */
    context: (request: FastifyRequest) => TransactionsContext;
    /** Counts each request answered (the metric's series). */
    answered?: { inc(): void } | undefined;
  },
): {
  useSchema(schema: GraphQLSchema): void;
  preHandler: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
} {
  let schema: GraphQLSchema | undefined;
  const queries = operationCache((query, operationName): Known | null => {
    if (!schema) return null;
    const document = validDocument(schema, query, options);
    if (!document || getOperationAST(document, operationName)?.operation !== OperationTypeNode.QUERY)
      return null;
    return { document, compiled: undefined, seen: false };
  });

  /** The compiled query of a text from its second time on. */
  const compiledOf = (
    known: Known,
    executable: GraphQLSchema,
    operationName: string | undefined,
  ): CompiledQuery | null => {
    if (known.compiled !== undefined) return known.compiled;
    if (!known.seen) {
      known.seen = true;
      return null;
    }
    try {
      const compiled = compileQuery(executable, known.document, operationName);
      known.compiled = isCompiledQuery(compiled) ? compiled : null;
    } catch {
      // Whatever graphql-jit cannot compile, Mercurius runs as always.
      known.compiled = null;
    }
    return known.compiled;
  };

  return {
    useSchema(executable) {
      schema = executable;
      queries.clear();
    },
    async preHandler(request, reply) {
      const posted = postedOperation(request);
      if (!posted || !schema) return undefined;
      const known = queries.get(posted.query, posted.operationName);
      const compiled = known && compiledOf(known, schema, posted.operationName);
      if (!known || !compiled) return undefined;
      const given = posted.variables;
      if (given !== undefined && given !== null && (typeof given !== 'object' || Array.isArray(given))) {
        return undefined;
      }
      const variables = (given ?? {}) as Record<string, unknown>;
      try {
        checkOperationCost(
          { schema, document: known.document, variables, operationName: posted.operationName },
          options.costLimit,
        );
      } catch {
        return undefined;
      }
      let result: Awaited<ReturnType<CompiledQuery['query']>>;
      try {
        result = await compiled.query({}, options.context(request), variables);
      } catch {
        return undefined;
      }
      if (result.errors !== undefined || result.data === undefined) return undefined;
      options.answered?.inc();
      return reply.type('application/json; charset=utf-8').send(JSON.stringify({ data: result.data }));
    },
  };
}
