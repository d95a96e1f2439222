/**
 * The client's typed Transactions operations: GraphQL Code Generator, run on docs/transactions.graphql and
 * src/transactions/operations.graphql, written by `npm run schemas`. An operation that selects what the schema
 * lacks is refused here, so a breaking change of the API fails the build instead of reaching an integrator.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { codegen } from '@graphql-codegen/core';
import * as typedDocumentNode from '@graphql-codegen/typed-document-node';
import * as typescriptOperations from '@graphql-codegen/typescript-operations';
import { parse } from 'graphql';
import { format, resolveConfig } from 'prettier';

export const TRANSACTIONS_TYPES_PATH = new URL('../src/generated/transactions.ts', import.meta.url);
export const TRANSACTIONS_SDL_FILE = new URL('../../../docs/transactions.graphql', import.meta.url);
export const TRANSACTIONS_OPERATIONS_FILE = new URL(
  '../src/transactions/operations.graphql',
  import.meta.url,
);

/** Every scalar of the schema, typed as the server answers it (docs/transactions.md, "Scalars"). */
const SCALARS = {
  uuid: 'string',
  UUID: 'string',
  datetime: 'string',
  DateTime: 'string',
  json: 'JsonValue',
  JSON: 'JsonValue',
};

// The generator writes its own TypedDocumentString class in every file; ours (the same shape, without `any`) is
// shared with integrators, so the generated one is swapped for an import of it.
const GENERATED_CLASS = /export class TypedDocumentString<TResult, TVariables>[\s\S]*?\n}\n/;
const GENERATED_IMPORT = "import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';\n";
const HEADER = [
  '// Written by `npm run schemas` from docs/transactions.graphql and src/transactions/operations.graphql',
  '// (codegen/transactions.ts); a test fails while it is stale.',
  "import type { JsonValue } from '../transactions/json-value.ts';",
  "import { TypedDocumentString } from '../transactions/typed-document-string.ts';",
  '',
].join('\n');

/**
 * The module of the operations' types and documents. `sources` replaces the schema's or the operations' text
 * (a test's broken operation); by default both are read from their files.
 *
 * @example
 * await writeFile(TRANSACTIONS_TYPES_PATH, await transactionsTypesModule());
 */
export async function transactionsTypesModule(
  sources: { sdl?: string; operations?: string } = {},
): Promise<string> {
  const sdl = sources.sdl ?? (await readFile(TRANSACTIONS_SDL_FILE, 'utf8'));
  const operations = sources.operations ?? (await readFile(TRANSACTIONS_OPERATIONS_FILE, 'utf8'));
  const generated = await codegen({
    filename: fileURLToPath(TRANSACTIONS_TYPES_PATH),
    schema: parse(sdl),
    documents: [{ location: 'operations.graphql', document: parse(operations) }],
    config: {
      documentMode: 'string',
      onlyOperationTypes: true,
      enumsAsTypes: true,
      useTypeImports: true,
      skipTypename: true,
      strictScalars: true,
      scalars: SCALARS,
      maybeValue: 'T | null',
      inputMaybeValue: 'T | null | undefined',
      dedupeFragments: true,
    },
    plugins: [{ typescriptOperations: {} }, { typedDocumentNode: {} }],
    pluginMap: { typescriptOperations, typedDocumentNode },
  });
  if (!GENERATED_CLASS.test(generated) || !generated.includes(GENERATED_IMPORT)) {
    throw new Error(
      'The typed-document-node plugin no longer writes the TypedDocumentString class this expects',
    );
  }
  const module = HEADER + generated.replace(GENERATED_CLASS, '').replace(GENERATED_IMPORT, '');
  const path = fileURLToPath(TRANSACTIONS_TYPES_PATH);
  return format(module, { ...(await resolveConfig(path)), filepath: path });
}
