/** The client's `ErrorCode`: every code of Portico's error catalogue, written by `npm run schemas`. */
import { ERROR_STATUS } from '../../../src/errors.ts';

export const ERROR_CODES_PATH = new URL('../src/generated/error-codes.ts', import.meta.url);

export function errorCodesModule(): string {
  const codes = Object.keys(ERROR_STATUS).sort();
  return [
    '// Written by `npm run schemas` from the error catalogue (docs/errors.md); a test fails while it is stale.',
    '',
    '/** A code Portico answers in `extensions.code` (GraphQL) or `error.code` (REST); docs/errors.md says each. */',
    'export type ErrorCode =',
    ...codes.map((code, index) => `  | '${code}'${index === codes.length - 1 ? ';' : ''}`),
    '',
  ].join('\n');
}
