// The `portico portfolio` commands, run in-process on a database no server holds: this file's own (a PGlite, or
// under TEST_DATABASE_URL a PostgreSQL schema). Through a running `portico serve`, see served.test.ts.
import { describe, expect, it } from 'vitest';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { cliOnTestDatabase } from '../support/cli.ts';
import * as output from './portfolio-output.ts';
import { UUID_IN_TEXT } from '../support/uuid.ts';

const { database, portico } = cliOnTestDatabase();

describe('portico portfolio on a database no server holds', () => {
  it('creates an instance, then a key for it that it prints once', async () => {
    const { slug, created, issued } = await output.newInstance(portico, 'direct-ventures');
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(
      new RegExp(`^Created instance ${slug} \\(${UUID_IN_TEXT.source}\\)\\.$`, 'm'),
    );
    expect(issued.stderr).toBe('');
    expect(issued.stdout).toContain('Store it now');
  });

  it('imports a JSON document and CSV files in one command, with progress on stderr and a summary on stdout', async () => {
    const { slug } = await output.newInstance(portico, output.uniqueSlug('direct'));
    const files = [output.fixture('portfolio.json'), ...output.CSV_FILES];
    const imported = await portico(['portfolio', 'import', '--instance', slug, ...files]);
    output.expectSuccess(imported);
    expect(imported.stderr.trimEnd().split('\n')).toEqual(output.progressLines(files, [5, 6, 4]));
    for (const line of output.summaryLines(slug, 1, [5, 6, 4], 2)) expect(imported.stdout).toMatch(line);
  });

  it('refuses a broken file, exiting non-zero with its file:line, and imports nothing of it', async () => {
    const { slug } = await output.newInstance(portico, output.uniqueSlug('direct'));
    const file = output.fixture('broken.json');
    const refused = await portico(['portfolio', 'import', '--instance', slug, file]);
    expect(refused.code).not.toBe(0);
    expect(refused.code).not.toBeNull();
    const line = await output.fixtureLine('broken.json', '"usd"');
    expect(refused.stderr).toMatch(/^portico: Nothing was imported: \d+ problems?\.$/m);
    expect(refused.stderr).toContain(`${file}:${line}: investments[0].amountCurrency: must match pattern`);
    expect(refused.stdout).toBe('');
  });

  it('leaves the key reading exactly the imported companies through the API', async () => {
    const { slug, key } = await output.newInstance(portico, output.uniqueSlug('direct'));
    output.expectSuccess(
      await portico([
        'portfolio',
        'import',
        '--instance',
        slug,
        output.fixture('portfolio.json'),
        ...output.CSV_FILES,
      ]),
    );
    const app = await buildPortfolioApp({ db: database(), apiKeyCacheMs: 0 });
    try {
      const answer = await app.inject({
        method: 'GET',
        url: '/v1/external/companies?limit=200',
        headers: { authorization: key },
      });
      expect(answer.statusCode).toBe(200);
      const body = answer.json<{ total: number; data: { id: string }[] }>();
      expect(body.total).toBe(5);
      expect(body.data.map((company) => company.id).sort()).toEqual(
        [
          output.IMPORTED_IDS.cedar,
          output.IMPORTED_IDS.fern,
          output.IMPORTED_IDS.orbit,
          output.IMPORTED_IDS.granite,
          output.IMPORTED_IDS.kite,
        ].sort(),
      );
    } finally {
      await app.close();
    }
  });
});
