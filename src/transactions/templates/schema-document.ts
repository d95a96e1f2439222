import { fileURLToPath } from 'node:url';
import { TemplateSchema } from './schema.ts';

/** Where the published template schema lives in the repository. */
export const TEMPLATE_SCHEMA_PATH = fileURLToPath(
  new URL('../../../docs/template.schema.json', import.meta.url),
);

/** The published JSON Schema of template files, as the text of `docs/template.schema.json`. */
export function templateSchemaDocument(): string {
  return `${JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...TemplateSchema }, null, 2)}\n`;
}
