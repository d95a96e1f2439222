import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { DocExample } from './doc-examples.ts';

/** What a run printed and how it ended. */
export interface ExampleRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Bundles a TypeScript example as an integrator's program: `@portico/client` is the client's source (what
 * `npm install ./clients/typescript` gives, without its build), Node's modules stay Node's. Returns the file.
 */
export async function bundleExample(
  example: DocExample,
  clientSource: string,
  dir: string,
  needed?: DocExample,
): Promise<string> {
  const source = [needed?.code, example.code].filter(Boolean).join('\n');
  const result = await build({
    stdin: { contents: source, loader: 'ts', resolveDir: dir, sourcefile: `${example.file}:${example.line}` },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    write: false,
    logLevel: 'silent',
    alias: { '@portico/client': clientSource },
  });
  const file = join(dir, `example-${example.file.replace(/\W/g, '-')}-${example.line}.mjs`);
  await writeFile(file, result.outputFiles[0]?.text ?? '');
  return file;
}

/** Node.js's arguments before an example's file: the demo's ports sent to the test's services. */
const NODE_ARGS = ['--import', new URL('demo-ports.ts', import.meta.url).pathname];

/** Runs a bundled example with Node.js to its end (at most `timeoutMs`). */
export async function runNode(
  file: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs: number,
): Promise<ExampleRun> {
  const child = spawn(process.execPath, [...NODE_ARGS, file], { cwd, env, timeout: timeoutMs });
  const out = collect(child.stdout);
  const err = collect(child.stderr);
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout: out(), stderr: err() };
}

function collect(stream: NodeJS.ReadableStream): () => string {
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  return () => text;
}

/**
 * Starts a receiver example (it listens on `PORT=0` and prints "port <n>"), waits for its port, runs `use`
 * with it, then stops it: what `use` returned, and what the receiver printed.
 */
export async function withReceiver<T>(
  file: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  use: (port: number) => Promise<T>,
): Promise<{ result: T; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...NODE_ARGS, file], { cwd, env: { ...env, PORT: '0' } });
  const out = collect(child.stdout);
  const err = collect(child.stderr);
  const closed = once(child, 'close');
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', () => {
        const match = /port (\d+)/i.exec(out());
        if (match) resolve(Number(match[1]));
      });
      void closed.then(() => {
        reject(new Error(`the receiver ended before listening:\n${err()}`));
      });
    });
    const result = await use(port);
    return { result, stdout: out(), stderr: err() };
  } finally {
    child.kill();
    await closed;
  }
}
