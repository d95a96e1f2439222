import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES_PATH, errorCodesModule } from '../../clients/typescript/codegen/error-codes.ts';

describe("the client's generated files", () => {
  it('name every code of the error catalogue (run `npm run schemas` after adding one)', async () => {
    expect(await readFile(ERROR_CODES_PATH, 'utf8')).toBe(errorCodesModule());
  });
});
