import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.ts';

const run = promisify(execFile);
const CLIENT = join(ROOT, 'clients/typescript');

// The package as an integrator installs it: built by its own script into dist/ (JavaScript and declarations),
// imported by plain Node.js from an app's node_modules, and bundled for a browser.
let app: string;

beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), 'portico-client-package-'));
  const installed = join(app, 'node_modules/@portico/client');
  await mkdir(installed, { recursive: true });
  await cp(join(CLIENT, 'package.json'), join(installed, 'package.json'));
  await run(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript-native/bin/tsc'),
      '-p',
      join(CLIENT, 'tsconfig.build.json'),
      '--outDir',
      join(installed, 'dist'),
    ],
    { cwd: CLIENT, timeout: 60_000 },
  );
  // Its dependencies, as npm would have installed them beside it.
  for (const dependency of [
    'openapi-fetch',
    'openapi-typescript-helpers',
    'standardwebhooks',
    '@stablelib',
    'fast-sha256',
  ])
    await symlink(join(ROOT, 'node_modules', dependency), join(app, 'node_modules', dependency));
}, 60_000);

afterAll(async () => {
  await rm(app, { recursive: true, force: true });
});

describe('the @portico/client package', () => {
  it('builds JavaScript and declarations that plain Node.js imports from node_modules', async () => {
    expect(await readdir(join(app, 'node_modules/@portico/client/dist'))).toEqual(
      expect.arrayContaining(['index.js', 'index.d.ts']),
    );
    await writeFile(
      join(app, 'main.mjs'),
      `import * as client from '@portico/client';
try { new client.TransactionsClient({ baseUrl: 'https://localhost/beta', apiKey: 'pfk_x' }); } catch (error) {
  console.log(error.name, error instanceof client.PorticoError);
}
console.log(Object.keys(client).sort().join(','));`,
    );
    const { stdout } = await run(process.execPath, ['main.mjs'], { cwd: app });
    const [refusal, names] = stdout.trim().split('\n');
    expect(refusal).toBe('PorticoKeyError true');
    expect(names?.split(',')).toEqual(
      expect.arrayContaining(['TransactionsClient', 'PortfolioClient', 'verifyWebhook', 'PorticoError']),
    );
  });

  it('bundles for a browser without any Node.js module', async () => {
    const result = await build({
      entryPoints: [join(app, 'node_modules/@portico/client/dist/index.js')],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    const text = result.outputFiles[0]?.text ?? '';
    expect(text).toContain('TransactionsClient');
    expect(text).not.toMatch(/from ["']node:|require\(["'](node:)?(crypto|http|https|fs|buffer)["']\)/);
  });

  it('depends at run time only on the small packages it names', async () => {
    const manifest = (await import('../../clients/typescript/package.json', { with: { type: 'json' } }))
      .default;
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['openapi-fetch', 'standardwebhooks']);
    expect(manifest.version).toBe(
      (await import('../../package.json', { with: { type: 'json' } })).default.version,
    );
  });
});
