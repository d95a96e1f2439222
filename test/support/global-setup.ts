import { DIALECT } from './database.ts';
import { ensurePGliteTemplate } from './pglite-template.ts';

/**
 * Vitest's global setup, run once before any test file: builds the migrated PGlite template that every test
 * file's database copies, so the workers do not each build it at once.
 */
export default async function setup(): Promise<void> {
  if (DIALECT === 'pglite') {
    await ensurePGliteTemplate('migrated');
    await ensurePGliteTemplate('empty');
  }
}
