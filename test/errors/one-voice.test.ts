import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.ts';

/** Every .ts file below `dir`. */
async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The text a message is written as: a template's substitutions as `${…}`, so that `${a}` and `${b}` read alike. */
function wordingOf(node: ts.Expression): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) {
    return node.head.text + node.templateSpans.map((span) => `\${…}${span.literal.text}`).join('');
  }
  return undefined;
}

/** Each message written at a `new AppError(code, message)` of src/, with where it is written. */
async function writtenMessages(): Promise<Map<string, string[]>> {
  const written = new Map<string, string[]>();
  for (const file of await sources(join(ROOT, 'src'))) {
    const source = ts.createSourceFile(file, await readFile(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && node.expression.getText() === 'AppError') {
        const message = node.arguments?.[1];
        const wording = message && wordingOf(message);
        // A wording is its words: `${…}: ${…}` alone says nothing twice.
        if (wording !== undefined && /\p{L}{3}/u.test(wording.replaceAll('${…}', ''))) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart());
          written.set(wording, [
            ...(written.get(wording) ?? []),
            `${relative(ROOT, file)}:${String(line + 1)}`,
          ]);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return written;
}

describe('errors in one voice', () => {
  it('writes each message wording once: one said at several places is a template of src/errors.ts', async () => {
    const written = await writtenMessages();
    expect(written.size).toBeGreaterThan(50);
    const twice = [...written].filter(([, places]) => places.length > 1);
    expect(twice, 'wordings written at more than one place').toEqual([]);
  });
});
