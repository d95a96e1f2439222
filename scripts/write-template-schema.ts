/** Writes docs/template.schema.json from the TypeBox definition (`npm run schemas`). */
import { writeFile } from 'node:fs/promises';
import {
  templateSchemaDocument,
  TEMPLATE_SCHEMA_PATH,
} from '../src/transactions/template-schema-document.ts';

await writeFile(TEMPLATE_SCHEMA_PATH, templateSchemaDocument());
console.log(`wrote ${TEMPLATE_SCHEMA_PATH}`);
