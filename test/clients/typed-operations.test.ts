import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TRANSACTIONS_OPERATIONS_FILE,
  TRANSACTIONS_SDL_FILE,
  TRANSACTIONS_TYPES_PATH,
  transactionsTypesModule,
} from '../../clients/typescript/codegen/transactions.ts';
import { ROOT } from '../support/cli.ts';

/**
 * The client's operations are typed from the schema: an integrator's program that reads a field its operation
 * does not select, or the schema lacks, does not compile; and an operation that selects what the schema lacks is
 * refused when the types are generated, so a breaking change of the API fails the build.
 */

const run = promisify(execFile);
const TSC = join(ROOT, 'node_modules/typescript-native/bin/tsc');

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portico-typed-operations-'));
  // An ES module project, as the package is.
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An integrator's program: reads `field` of the transaction the client's `transaction()` returns. */
function integratorProgram(field: string): string {
  return `import { TransactionsClient, TypedDocumentString } from '@portico/client';

const client = new TransactionsClient({ baseUrl: 'https://api.example.com/beta', apiKey: 'sk_test_x' });

export async function stateOf(id: string): Promise<unknown> {
  const transaction = await client.transaction(id);
  return transaction?.${field};
}

const States = new TypedDocumentString<{ transaction: { state: string } | null }, { id: string }>(
  'query ($id: uuid!) { transaction(id: $id) { state } }',
);

export async function customStateOf(id: string): Promise<string | undefined> {
  const { transaction } = await client.request(States, { id });
  return transaction?.state;
}
`;
}

/** Type-checks `program` as an integrator's project that maps `@portico/client` to the package's source. */
async function typecheck(name: string, program: string): Promise<{ code: number; output: string }> {
  const project = join(dir, name);
  await writeFile(`${project}.ts`, program);
  await writeFile(
    `${project}.tsconfig.json`,
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noUncheckedIndexedAccess: true,
        verbatimModuleSyntax: true,
        allowImportingTsExtensions: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
        paths: { '@portico/client': [join(ROOT, 'clients/typescript/src/index.ts')] },
      },
      files: [`${project}.ts`],
    }),
  );
  try {
    const { stdout } = await run(process.execPath, [TSC, '-p', `${project}.tsconfig.json`], {
      timeout: 30_000,
    });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('typed operations', () => {
  it('are generated fresh: src/generated/transactions.ts is what `npm run schemas` writes', async () => {
    expect(await readFile(TRANSACTIONS_TYPES_PATH, 'utf8')).toBe(await transactionsTypesModule());
  });

  it('refuse to compile a program reading a field the schema lacks or the operation does not select', async () => {
    const [misspelt, unselected, right] = await Promise.all([
      typecheck('misspelt', integratorProgram('nmae')),
      typecheck('unselected', integratorProgram('events')),
      typecheck('right', integratorProgram('state')),
    ]);
    expect(misspelt.code).not.toBe(0);
    expect(misspelt.output).toMatch(/misspelt\.ts\(\d+,\d+\): error TS2339: Property 'nmae' does not exist/);
    expect(misspelt.output.match(/error TS\d+/g)).toEqual(['error TS2339']);
    expect(unselected.code).not.toBe(0);
    expect(unselected.output).toMatch(
      /unselected\.ts\(\d+,\d+\): error TS2339: Property 'events' does not exist/,
    );
    expect(unselected.output.match(/error TS\d+/g)).toEqual(['error TS2339']);
    expect(right).toEqual({ code: 0, output: '' });
  });

  it('are refused by the generator when an operation selects a field the schema lacks', async () => {
    const operations = await readFile(TRANSACTIONS_OPERATIONS_FILE, 'utf8');
    const misspelt = operations.replace('fragment Transaction on Transaction {\n  id\n', '$&  nmae\n');
    expect(misspelt).not.toBe(operations);
    await expect(transactionsTypesModule({ operations: misspelt })).rejects.toThrow(
      /Cannot query field "nmae" on type "Transaction"/,
    );
  });

  it('are refused by the generator when the schema drops a field an operation selects', async () => {
    const sdl = await readFile(TRANSACTIONS_SDL_FILE, 'utf8');
    const dropped = sdl.replace(/\n {2}"""\n {2}The SHA-256[\s\S]*?\n {2}historyHead: String\n/, '\n');
    expect(dropped).not.toBe(sdl);
    await expect(transactionsTypesModule({ sdl: dropped })).rejects.toThrow(
      /Cannot query field "historyHead" on type "Transaction"/,
    );
  });
});
