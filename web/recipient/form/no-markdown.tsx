import type { ReactNode } from 'react';

/**
 * What react-jsonschema-form's descriptions and help render with in place of markdown-to-jsx (aliased in
 * web/vite.config.ts): rjsf reads a description as Markdown only under `ui:enableMarkdownInDescription`, an
 * option that a template's `ui` hints cannot set (src/transactions/templates/schema.ts), so the parser, a fifth of
 * the form's script, would never run. Text shows as text, as it does without the option.
 */
export function Markdown({ children }: { children?: ReactNode }): ReactNode {
  return children;
}
