import type { FastifyRequest } from 'fastify';
import {
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';

/**
 * What the ways of answering before Mercurius (direct-reads.ts, compiled-reads.ts) share: the operation a request
 * posts, and what they keep of each query text.
 */

/** A GraphQL operation posted with an API key: its text, the operation it names, and its variables as sent. */
export interface PostedOperation {
  query: string;
  operationName: string | undefined;
  variables: unknown;
}

interface Envelope {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
  extensions?: unknown;
}

/**
 * The operation of a POST whose key was accepted, when it is a text (not a persisted query, which only Mercurius
 * knows) with a name or none; undefined for every other request, which goes on to Mercurius.
 */
export function postedOperation(request: FastifyRequest): PostedOperation | undefined {
  const envelope = request.body as Envelope | undefined;
  if (request.method !== 'POST' || !request.caller || !envelope || envelope.extensions !== undefined) {
    return undefined;
  }
  const { query, operationName, variables } = envelope;
  if (typeof query !== 'string' || (operationName !== undefined && typeof operationName !== 'string')) {
    return undefined;
  }
  return { query, operationName, variables };
}

/** What GraphQL's checks need to pass a text: the validation rules Mercurius adds, and the parser's token limit. */
export interface DocumentRules {
  validationRules: readonly ValidationRule[];
  maxTokens: number;
}

/** A text's document when it parses and passes GraphQL's validation and `rules`; null otherwise. */
export function validDocument(
  schema: GraphQLSchema,
  query: string,
  rules: DocumentRules,
): DocumentNode | null {
  const document = parse(query, { maxTokens: rules.maxTokens });
  return validate(schema, document, [...specifiedRules, ...rules.validationRules]).length > 0
    ? null
    : document;
}

/** The most distinct query texts an {@link OperationCache} keeps; past it, the oldest is forgotten. */
const MOST_TEXTS = 1000;

/** What is known of the operations of query texts, each made once: by text, then by operation name. */
export interface OperationCache<T> {
  get(query: string, operationName: string | undefined): T | null;
  clear(): void;
}

/**
 * A cache of what `make` knows of an operation of a text (null: nothing to do with it, nor when `make` throws,
 * e.g. a text the parser refuses). A text's hash is computed once per request, and never for a key built from it.
 */
export function operationCache<T>(
  make: (query: string, operationName: string | undefined) => T | null,
): OperationCache<T> {
  const texts = new Map<string, Map<string | undefined, T | null>>();
  return {
    get(query, operationName) {
      let byName = texts.get(query);
      const known = byName?.get(operationName);
      if (known !== undefined) return known;
      let made: T | null;
      try {
        made = make(query, operationName);
      } catch {
        made = null;
      }
      if (byName === undefined) {
        if (texts.size >= MOST_TEXTS) texts.delete(texts.keys().next().value as string);
        byName = new Map();
        texts.set(query, byName);
      }
      byName.set(operationName, made);
      return made;
    },
    clear() {
      texts.clear();
    },
  };
}
