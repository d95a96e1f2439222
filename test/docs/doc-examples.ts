import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A shell or TypeScript code block of a guide: its fence's language and words
 * (```` ```sh example=walk needs=walk ````, ```` ```ts example receiver ````), the heading it is under, and the
 * ```` ```json ```` block right after it, if any (the answer it shows).
 */
export interface DocBlock {
  file: string;
  heading: string;
  /** The 1-based line of the opening fence. */
  line: number;
  language: string;
  words: string[];
  code: string;
  /** The reason of an `<!-- no-run: … -->` comment on the line before the fence. */
  noRun: string | undefined;
  /** The JSON block that follows this one, with only blank lines or prose of at most one line between. */
  answer: string | undefined;
}

/** An example a test runs: a block whose fence says `example`. */
export interface DocExample extends DocBlock {
  /** `example=<name>`: later examples of the same file may run after it with `needs=<name>`. */
  name: string | undefined;
  /** `needs=<name>`: the named example of the same file runs first, in the same shell (its functions). */
  needs: string | undefined;
  /** `http-errors`: the example shows refusals, so curl is not told to fail on an HTTP error. */
  httpErrors: boolean;
  /** `receiver` (TypeScript): the example is a webhook receiver, listening on `PORT`, that the test posts to. */
  receiver: boolean;
}

const SHELLS = new Set(['sh', 'bash', 'shell', 'console']);
const TYPESCRIPT = new Set(['ts', 'typescript']);

/** Whether a block is TypeScript (run with Node.js) rather than shell (run with bash). */
export const isTypeScript = (block: DocBlock): boolean => TYPESCRIPT.has(block.language);

/** The guides whose examples run: README.md and every docs/*.md. */
export function guideFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** Every shell and TypeScript block of a Markdown file. */
export function codeBlocksOf(root: string, file: string): DocBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  let heading = '';
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const heading_ = /^#{1,6} (.+)$/.exec(line);
    if (heading_?.[1]) heading = heading_[1].trim();
    const fence = /^```(\w+)(.*)$/.exec(line);
    if (!fence) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^```\s*$/.test(lines[index] ?? ''); index++)
      body.push(lines[index] ?? '');
    const language = fence[1] ?? '';
    if (!SHELLS.has(language) && !TYPESCRIPT.has(language)) continue;
    const noRun = /^<!-- no-run: (.+) -->$/.exec(lines[start - 1] ?? '')?.[1]?.trim();
    blocks.push({
      file,
      heading,
      line: start + 1,
      language,
      words: (fence[2] ?? '').trim().split(/\s+/).filter(Boolean),
      code: body.join('\n'),
      noRun,
      answer: answerAfter(lines, index + 1),
    });
  }
  return blocks;
}

/** The ```` ```json ```` block starting within two non-blank lines after line `from`, if any. */
function answerAfter(lines: string[], from: number): string | undefined {
  let prose = 0;
  for (let index = from; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (line.trim() === '') continue;
    if (line === '```json') {
      const body: string[] = [];
      for (index++; index < lines.length && lines[index] !== '```'; index++) body.push(lines[index] ?? '');
      return body.join('\n');
    }
    if (line.startsWith('```') || line.startsWith('#') || ++prose > 1) return undefined;
  }
  return undefined;
}

/** The examples among `blocks`. */
export function examplesOf(blocks: DocBlock[]): DocExample[] {
  return blocks
    .filter((block) => block.words.some((word) => word === 'example' || word.startsWith('example=')))
    .map((block) => ({
      ...block,
      name: block.words.find((word) => word.startsWith('example='))?.slice('example='.length),
      needs: block.words.find((word) => word.startsWith('needs='))?.slice('needs='.length),
      httpErrors: block.words.includes('http-errors'),
      receiver: block.words.includes('receiver'),
    }));
}

/** The shape of a JSON value: its keys, recursively, with an array as the shape of its first element. */
export function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, field]) => [key, shapeOf(field)]),
    );
  // A leaf is any value: a nullable field may be null in the guide and set in the answer.
  return 'value';
}
