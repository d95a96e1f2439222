/** The client's Portfolio types: generated from docs/portfolio.openapi.json, written by `npm run schemas`. */
import { readFile } from 'node:fs/promises';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';

export const PORTFOLIO_TYPES_PATH = new URL('../src/generated/portfolio.ts', import.meta.url);
const DOCUMENT_PATH = new URL('../../../docs/portfolio.openapi.json', import.meta.url);

/**
 * The module `src/generated/portfolio.ts`: openapi-typescript's `paths`, `components` and `operations` for the
 * committed OpenAPI document, formatted like the rest of the repo, so a change to the API shows as a diff here
 * and a test fails until `npm run schemas` writes it.
 */
export async function portfolioTypesModule(): Promise<string> {
  const document = JSON.parse(await readFile(DOCUMENT_PATH, 'utf8')) as OpenAPI3;
  const ast = await openapiTS(document, { silent: true });
  const text = [
    '// Written by `npm run schemas` from docs/portfolio.openapi.json (openapi-typescript); a test fails while it',
    '// is stale.',
    '',
    astToString(ast),
  ].join('\n');
  const config = (await resolveConfig(PORTFOLIO_TYPES_PATH)) ?? {};
  return format(text, { ...config, parser: 'typescript' });
}
