import { Callout, Code, Flex, Heading, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';
import type { ApiError } from '../../../shared/api-error.ts';

/** A problem of a refused import, as the server lists it (`details.problems`, the CLI's LocatedProblem). */
export interface LocatedProblem {
  path: string;
  line?: number;
  message: string;
}

/** The problems of a refusal, when it has them (BAD_USER_INPUT or AGREEMENT_INVALID of an import). */
export function problemsOf(error: ApiError | undefined): LocatedProblem[] | undefined {
  const problems = error?.details.problems;
  if (!Array.isArray(problems)) return undefined;
  return problems.flatMap((problem: unknown): LocatedProblem[] => {
    if (typeof problem !== 'object' || problem === null) return [];
    const { path, line, message } = problem as Record<string, unknown>;
    if (typeof message !== 'string') return [];
    return [
      {
        path: typeof path === 'string' ? path : '',
        message,
        ...(typeof line === 'number' ? { line } : {}),
      },
    ];
  });
}

/** A file too long to show whole shows this many lines around each problem. */
const AROUND = 3;
/** The most lines shown whole. */
const WHOLE = 600;

/** What a problem says, with the hint a missing PDF needs: attach it here. */
function ProblemText({ problem }: { problem: LocatedProblem }): ReactNode {
  return (
    <>
      {problem.path === '' ? null : <Code variant="ghost">{problem.path}</Code>}
      {problem.path === '' ? '' : ': '}
      {problem.message}
      {/not found beside the template/.test(problem.message)
        ? ' Attach the PDF with the template, under “Fund PDFs”, and import again.'
        : ''}
    </>
  );
}

/**
 * A refused import: its code (as the CLI gives it), then the file's source with its lines numbered and each
 * problem marked at its line, with its path and message; the problems without a line above it. A long file shows
 * only the lines around its problems.
 */
export function SourceProblems({
  error,
  problems,
  source,
  filename,
}: {
  error: ApiError;
  problems: LocatedProblem[];
  source: string;
  filename: string;
}) {
  const lines = source.split(/\r?\n/);
  const byLine = new Map<number, LocatedProblem[]>();
  const unplaced: LocatedProblem[] = [];
  for (const problem of problems) {
    if (problem.line === undefined || problem.line < 1 || problem.line > lines.length) unplaced.push(problem);
    else byLine.set(problem.line, [...(byLine.get(problem.line) ?? []), problem]);
  }
  const shown = (line: number) =>
    lines.length <= WHOLE || [...byLine.keys()].some((at) => Math.abs(at - line) <= AROUND);
  const items: ReactNode[] = [];
  let skipped = false;
  lines.forEach((text, index) => {
    const line = index + 1;
    if (!shown(line)) {
      if (!skipped)
        items.push(
          <li key={`gap-${String(line)}`} className="gap" aria-hidden="true">
            <span className="line-number">…</span>
            <span />
          </li>,
        );
      skipped = true;
      return;
    }
    skipped = false;
    const here = byLine.get(line);
    items.push(
      <li
        key={line}
        data-problem={here !== undefined}
        id={here === undefined ? undefined : `problem-line-${String(line)}`}
      >
        <span className="line-number">{line}</span>
        <span className="line-text">{text === '' ? ' ' : text}</span>
        {here?.map((problem, at) => (
          <span key={at} className="line-problem" role="note">
            <span className="visually-hidden">Problem at line {line}: </span>
            <ProblemText problem={problem} />
          </span>
        ))}
      </li>,
    );
  });
  return (
    <Flex direction="column" gap="3">
      <Callout.Root color="red" role="alert">
        <Callout.Text>
          <Text weight="bold">
            Not imported: {problems.length} {problems.length === 1 ? 'problem' : 'problems'} in {filename}
          </Text>{' '}
          (<Code>{error.code}</Code>
          {error.code === 'AGREEMENT_INVALID' ? ', in its agreements' : ''}). Fix{' '}
          {problems.length === 1 ? 'it' : 'them'} and import the file again; nothing was stored.
        </Callout.Text>
      </Callout.Root>
      <ul className="closing-problems">
        {[...unplaced, ...problems.filter((problem) => !unplaced.includes(problem))].map((problem, index) => (
          <li key={index}>
            <Text size="2" color="red">
              {problem.line === undefined || unplaced.includes(problem) ? null : (
                <>
                  <a href={`#problem-line-${String(problem.line)}`}>Line {problem.line}</a>:{' '}
                </>
              )}
              <ProblemText problem={problem} />
            </Text>
          </li>
        ))}
      </ul>
      <Heading as="h3" size="3">
        {filename}, with each problem at its line
      </Heading>
      <div
        className="template-source-scroll"
        role="region"
        tabIndex={0}
        aria-label={`${filename}, with its problems`}
      >
        <ol className="template-source">{items}</ol>
      </div>
    </Flex>
  );
}
