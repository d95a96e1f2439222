// What the `portico portfolio` tests share: the fixtures and what the commands print of them.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ROOT, type Ran } from '../support/cli.ts';
import { UUID_IN_TEXT } from '../support/uuid.ts';

/** The Portfolio import fixtures. */
export const FIXTURES = join(ROOT, 'test/fixtures/portfolio');
/** The path of a fixture. */
export const fixture = (name: string) => join(FIXTURES, name);
/** A Portfolio key, anywhere in a text. */
export const PORTFOLIO_KEY = /pfk_[0-9A-Za-z]{38}/g;

/** Fails with the run's output when it did not succeed, so a failure says why. */
export function expectSuccess(ran: Ran): void {
  expect({ code: ran.code, stderr: ran.stderr }, ran.stdout).toMatchObject({ code: 0 });
}

/** The one Portfolio key a `portfolio keys create` printed. */
export function printedKey(ran: Ran): string {
  const keys = ran.stdout.match(PORTFOLIO_KEY) ?? [];
  expect(keys, ran.stdout).toHaveLength(1);
  return keys[0] ?? '';
}

/** The summary lines `portfolio import` prints: created and updated of each type, funds created and renamed. */
export function summaryLines(
  slug: string,
  revision: number,
  created: [number, number, number],
  funds: number,
): RegExp[] {
  return [
    new RegExp(`^Imported into ${slug} \\(revision ${revision}\\):$`, 'm'),
    new RegExp(`^ {2}companies +${created[0]} created, 0 updated$`, 'm'),
    new RegExp(`^ {2}updates +${created[1]} created, 0 updated$`, 'm'),
    new RegExp(`^ {2}investments +${created[2]} created, 0 updated$`, 'm'),
    new RegExp(`^ {2}funds +${funds} created, 0 renamed$`, 'm'),
  ];
}

/** The progress lines of an import: each file read, then each phase up to its total. */
export function progressLines(files: string[], totals: [number, number, number]): string[] {
  const all = totals.reduce((sum, value) => sum + value, 0);
  return [
    ...files.map((file) => `reading ${file}`),
    `checking: ${all}/${all} (100%)`,
    `companies: ${totals[0]}/${totals[0]} (100%)`,
    `updates: ${totals[1]}/${totals[1]} (100%)`,
    `investments: ${totals[2]}/${totals[2]} (100%)`,
  ];
}

/** The line number of the first line of a fixture that contains `text`. */
export async function fixtureLine(name: string, text: string): Promise<number> {
  const lines = (await readFile(fixture(name), 'utf8')).split('\n');
  const index = lines.findIndex((line) => line.includes(text));
  expect(index).toBeGreaterThanOrEqual(0);
  return index + 1;
}

/** Ids of companies in the fixtures. */
export const IMPORTED_IDS = {
  cedar: '812af24a-ddd8-48a7-be26-2910461ab3ab',
  fern: '9a0c6d8a-5744-4116-97d1-633d576ad46c',
  orbit: '24effa2f-47ad-441d-b744-9cf89f8f5717',
  granite: '0f489c6b-5a47-4d70-9312-a4ef02e77872',
  kite: '7a5ffe2f-17dc-4b2c-a2aa-93cf8bb5c107',
  broken: '58bf7757-4aa7-400a-a025-d7e033662742',
};
/** The CSV fixtures, one of each record type. */
export const CSV_FILES = ['companies.csv', 'updates.csv', 'investments.csv'].map(fixture);

/** A customer instance made with the CLI, with a key for it: what both commands printed, the key and its id. */
export async function newInstance(
  portico: (args: string[]) => Promise<Ran>,
  slug: string,
): Promise<{ slug: string; created: Ran; issued: Ran; key: string; keyId: string }> {
  const created = await portico([
    'portfolio',
    'instances',
    'create',
    '--slug',
    slug,
    '--name',
    `${slug} (test)`,
  ]);
  expectSuccess(created);
  const issued = await portico(['portfolio', 'keys', 'create', '--instance', slug, '--name', 'warehouse']);
  expectSuccess(issued);
  return {
    slug,
    created,
    issued,
    key: printedKey(issued),
    keyId: UUID_IN_TEXT.exec(issued.stdout)?.[0] ?? '',
  };
}

let made = 0;
/** A slug no other test uses. */
export function uniqueSlug(prefix: string): string {
  made += 1;
  return `${prefix}-${made}-${Date.now().toString(36)}`;
}

/** `portico portfolio users invite` of `email` to the instance `slug`, with `extra` flags. */
export function inviteArgs(slug: string, email: string, ...extra: string[]): string[] {
  return ['portfolio', 'users', 'invite', '--instance', slug, '--email', email, ...extra];
}
