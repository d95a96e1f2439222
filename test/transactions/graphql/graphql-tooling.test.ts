import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildClientSchema, getIntrospectionQuery, isObjectType, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTlsMaterial } from '../../../src/http/tls.ts';
import { request } from '../../support/http-client.ts';
import { useTransactionsSuite, type EmptyTenant } from '../../support/data/transactions-suite.ts';

/**
 * What GraphQL tools do with the running service: introspect it over HTTPS (GraphiQL, Apollo, codegen all
 * start there) and generate TypeScript types from the live endpoint with gql.tada's CLI, trusting the
 * generated certificate through NODE_EXTRA_CA_CERTS as a developer would.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

/** Inside node_modules, so that the generated project resolves gql.tada and TypeScript from ours. */
let workDir: string;
let caPath: string;
let ca: string;
let endpoint: string;
/** The organization whose key the tools send; they only read the schema. */
let demo: EmptyTenant;

const suite = useTransactionsSuite(async () => {
  await mkdir(join(ROOT, 'node_modules/.cache'), { recursive: true });
  workDir = await mkdtemp(join(ROOT, 'node_modules/.cache/portico-tooling-'));
  const tls = await loadTlsMaterial({ dataDir: workDir, tlsCert: undefined, tlsKey: undefined });
  ca = tls.cert;
  caPath = tls.certPath;
  return { tls };
});

beforeAll(async () => {
  await suite.app.listen({ port: 0, host: '127.0.0.1' });
  endpoint = `https://localhost:${(suite.app.server.address() as AddressInfo).port}/beta`;
  demo = await suite.emptyTenant();
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

/** gql.tada's CLI in a child process (the service answers from this one, so nothing here may block). */
function gqlTada(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [join(ROOT, 'node_modules/gql.tada/bin/cli.js'), ...args], {
    cwd: workDir,
    env: { ...process.env, NODE_EXTRA_CA_CERTS: caPath },
    timeout: 30_000,
  });
}

describe('GraphQL tools against the running service', () => {
  it('introspects the schema over HTTPS with every option, and buildClientSchema accepts it', async () => {
    const answer = await request(endpoint, {
      ca,
      headers: { authorization: `Bearer ${demo.apiKey}` },
      json: {
        query: getIntrospectionQuery({
          descriptions: true,
          specifiedByUrl: true,
          directiveIsRepeatable: true,
          schemaDescription: true,
          inputValueDeprecation: true,
        }),
      },
    });
    expect(answer.status).toBe(200);
    const body = answer.json();
    expect(body.errors).toBeUndefined();
    const schema = buildClientSchema(body.data as IntrospectionQuery);
    const transaction = schema.getType('Transaction');
    if (!isObjectType(transaction)) throw new Error('Transaction is an object type');
    expect(Object.keys(transaction.getFields())).toEqual(
      expect.arrayContaining(['id', 'state', 'transactionRecipients', 'transactionProcessRevisions']),
    );
    expect(String(transaction.getFields().transactionRecipients?.type)).toBe('[TransactionRecipient!]!');
    expect(Object.keys(schema.getMutationType()?.getFields() ?? {})).toContain('createTransaction');
  });

  it('generates TypeScript types from the live endpoint with gql.tada, which type-check a query', async () => {
    await writeFile(
      join(workDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          types: [],
          plugins: [
            {
              name: '@0no-co/graphqlsp',
              schema: './schema.graphql',
              tadaOutputLocation: './graphql-env.d.ts',
            },
          ],
        },
        include: ['*.ts'],
      }),
    );
    await gqlTada([
      'generate-schema',
      endpoint,
      '--header',
      `Authorization: Bearer ${demo.apiKey}`,
      '--output',
      join(workDir, 'schema.graphql'),
    ]);
    const sdl = await readFile(join(workDir, 'schema.graphql'), 'utf8');
    expect(sdl).toMatch(/^type Transaction \{$/m);
    expect(sdl).toMatch(
      /^ {2}transactionRecipients\(orderBy: CreatedAtOrder = CREATED_AT_ASC\): \[TransactionRecipient!\]!$/m,
    );
    expect(sdl).toMatch(/^scalar uuid$/m);

    await gqlTada(['generate-output', '--tsconfig', join(workDir, 'tsconfig.json')]);
    const types = await readFile(join(workDir, 'graphql-env.d.ts'), 'utf8');
    expect(types).toContain("'Transaction': { kind: 'OBJECT'; name: 'Transaction';");
    expect(types).toMatch(
      /'transactionRecipients': \{ name: 'transactionRecipients'; type: \{ kind: 'NON_NULL'/,
    );
    expect(types).toContain(
      "'CreateTransactionInput': { kind: 'INPUT_OBJECT'; name: 'CreateTransactionInput';",
    );

    // The generated types in use: a query's result is typed from them, and a field the schema lacks is an error.
    await writeFile(
      join(workDir, 'reference.ts'),
      `import { initGraphQLTada, type ResultOf } from 'gql.tada';
import type { introspection } from './graphql-env.d.ts';

const graphql = initGraphQLTada<{ introspection: introspection; scalars: { uuid: string; UUID: string } }>();
const Reference = graphql(\`query ($id: uuid!) { transaction(id: $id) { id state transactionRecipients { vulcanKey } } }\`);
type Reference = ResultOf<typeof Reference>;
export const recipientRoles = (result: Reference): string[] =>
  result.transaction?.transactionRecipients.map((recipient) => recipient.vulcanKey) ?? [];
// @ts-expect-error -- Transaction has no field nope.
export const nope = (result: Reference): unknown => result.transaction?.nope;
`,
    );
    const typescript = await run(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '--project', join(workDir, 'tsconfig.json')],
      { cwd: workDir, timeout: 60_000 },
    ).catch((error: unknown) => error as { stdout?: string; stderr?: string });
    expect(`${typescript.stdout ?? ''}${typescript.stderr ?? ''}`).toBe('');
  }, 60_000);
});
