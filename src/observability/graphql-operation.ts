import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route is a GraphQL endpoint: its requests are named by their operation (traces, metrics). */
    graphql?: boolean;
  }
}

/** The GraphQL operation a request runs, as traces and metrics name it. */
export interface GraphQLOperation {
  type: 'query' | 'mutation' | 'subscription';
  /** Undefined for an anonymous operation. */
  name: string | undefined;
}

const KEYWORDS = new Set(['query', 'mutation', 'subscription']);
/** An operation's name, right after its keyword (comments aside). */
const NAME_AFTER = /(?:\s|#[^\n\r]*)*([_A-Za-z]\w*)/y;

/**
 * The operation of a request to a GraphQL route (one whose config says `graphql: true`): the one its
 * `operationName` chooses, else the document's first. Read from the text by a scan of its top level, without
 * parsing it (the direct reads answer some requests without a parse); undefined for any other route or an
 * envelope without a query. A refused request is still named by what it asked for.
 *
 * @example
 * graphqlOperationOf(request); // { type: 'mutation', name: 'CreateTransaction' }
 */
export function graphqlOperationOf(request: FastifyRequest): GraphQLOperation | undefined {
  if (request.routeOptions.config.graphql !== true) return undefined;
  const envelope: unknown = request.method === 'GET' ? request.query : request.body;
  if (typeof envelope !== 'object' || envelope === null) return undefined;
  const { query, operationName } = envelope as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string') return undefined;
  const chosen = typeof operationName === 'string' && operationName !== '' ? operationName : undefined;
  return operationIn(query, chosen);
}

/** The top-level operations of `text` scanned in order until the one named `chosen` (else the first). */
function operationIn(text: string, chosen: string | undefined): GraphQLOperation | undefined {
  let depth = 0;
  let first: GraphQLOperation | undefined;
  /** A fragment definition opens the next top-level `{`, not the shorthand query. */
  let fragment = false;
  // A variable (`$query`) is one token, never a keyword.
  const token = /#[^\n\r]*|"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|[{}]|\$?[_A-Za-z]\w*/g;
  for (let match = token.exec(text); match !== null; match = token.exec(text)) {
    const word = match[0];
    if (word === '{') {
      // A `{` at the top level that no keyword opened is the shorthand query.
      if (depth === 0 && !fragment && chosen === undefined) return { type: 'query', name: undefined };
      fragment = false;
      depth += 1;
    } else if (word === '}') depth = Math.max(0, depth - 1);
    else if (depth === 0 && word === 'fragment') fragment = true;
    else if (depth === 0 && KEYWORDS.has(word)) {
      // The name, if any, comes right after the keyword (`query ($id: ID!)` has none: `id` is a variable's).
      NAME_AFTER.lastIndex = token.lastIndex;
      const name = NAME_AFTER.exec(text)?.[1];
      if (name !== undefined) token.lastIndex = NAME_AFTER.lastIndex;
      const operation = { type: word as GraphQLOperation['type'], name };
      if (chosen === undefined || name === chosen) return operation;
      first ??= operation;
    }
  }
  return chosen === undefined ? first : { type: first?.type ?? 'query', name: chosen };
}
