import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSchema, GraphQLScalarType, printSchema, type GraphQLSchema } from 'graphql';
import { scalars } from './scalars.ts';

/**
 * The GraphQL schema of the Transactions API as SDL: the source Mercurius is built from, and its printed form,
 * which `GET /beta/schema.graphql` answers and `docs/transactions.graphql` holds (`npm run schemas`).
 */

/** Where the published SDL of the Transactions API lives in the repository. */
export const TRANSACTIONS_SDL_PATH = fileURLToPath(
  new URL('../../../docs/transactions.graphql', import.meta.url),
);

/** The schema's source, as written in schema.graphql (with its descriptions). */
export const TRANSACTIONS_SCHEMA_SOURCE = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

/** The printed SDL of `schema`, ending with a newline, as it is served and committed. */
export function printedSdl(schema: GraphQLSchema): string {
  return `${printSchema(schema)}\n`;
}

/**
 * The printed SDL of the Transactions API, built from its source and its scalars alone (no app, no database):
 * Mercurius gives each scalar of the source the fields of the resolver's scalar of that name, description
 * included, so the served SDL and introspection describe the scalars as scalars.ts does; this does the same.
 */
export function transactionsSdl(): string {
  const schema = buildSchema(TRANSACTIONS_SCHEMA_SOURCE);
  for (const [name, scalar] of Object.entries(scalars)) {
    const type = schema.getType(name);
    if (!(type instanceof GraphQLScalarType)) throw new Error(`schema.graphql declares no scalar ${name}`);
    Object.assign(type, scalar);
  }
  return printedSdl(schema);
}

/** The strong ETag of an SDL text: the first 32 hex digits of its SHA-256, quoted. */
export function sdlEtag(sdl: string): string {
  return `"${createHash('sha256').update(sdl).digest('hex').slice(0, 32)}"`;
}
