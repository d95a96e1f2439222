import { request } from 'node:http';
import type { Config } from '../config.ts';
import { readLockOwner } from '../db/data-dir-lock.ts';
import type { OpenDatabaseOptions, OpenedDatabase } from '../db/open-database.ts';
import { AppError } from '../errors.ts';
import { createCliLogger } from '../logger.ts';
import { createMailer } from '../mail/mailer.ts';
import type { AdminLine } from './admin-server.ts';
import type { OperationInput, OperationName, OperationOutput, OperationProgress } from './operations.ts';

function callAdminSocket(
  socketPath: string,
  name: string,
  input: unknown,
  onProgress: (progress: unknown) => void,
): Promise<unknown> {
  const body = JSON.stringify(input);
  return new Promise((resolve, reject) => {
    const call = request(
      {
        socketPath,
        path: `/operations/${name}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let pending = '';
        let answered = false;
        const handle = (text: string) => {
          if (text.trim() === '') return;
          const line = JSON.parse(text) as AdminLine;
          if ('progress' in line) onProgress(line.progress);
          else {
            answered = true;
            if ('error' in line)
              reject(new AppError(line.error.code, line.error.message, line.error.details));
            else resolve(line.result);
          }
        };
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          pending += chunk;
          const lines = pending.split('\n');
          pending = lines.pop() ?? '';
          try {
            for (const line of lines) handle(line);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
        response.on('end', () => {
          try {
            handle(pending);
            if (!answered)
              reject(new Error('the serving process closed the admin connection without an answer'));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}

/** How to run an operation: whom to tell of its progress, and how to open the database it runs on. */
export interface RunOperationOptions<Name extends OperationName> {
  onProgress?: ((progress: OperationProgress<Name>) => void) | undefined;
  /** Opens the configured database when no server holds it (tests hand in one they made). @default openDatabase */
  openDatabase?: ((config: Config, options?: OpenDatabaseOptions) => Promise<OpenedDatabase>) | undefined;
  /** Told which database the operation runs on (see `OpenedDatabase.description`), before it runs. */
  onDatabase?: ((description: string) => void) | undefined;
}

/**
 * Runs an operator's operation: inside the running `portico serve` when it holds the embedded database, else
 * on a database opened for the occasion. The result is plain JSON either way, typed as it arrives.
 */
export async function runOperation<Name extends OperationName>(
  config: Config,
  name: Name,
  input: OperationInput<Name>,
  options: RunOperationOptions<Name> = {},
): Promise<OperationOutput<Name>> {
  const onProgress = options.onProgress ?? (() => undefined);
  if (config.databaseUrl === undefined) {
    const owner = await readLockOwner(config.dataDir);
    if (owner?.adminSocket !== undefined) {
      options.onDatabase?.(
        `the embedded database in ${config.dataDir}, through portico serve (process ${String(owner.pid)})`,
      );
      // The serving process ran the same operation and sent its result as JSON: it has this type.
      return (await callAdminSocket(owner.adminSocket, name, input, (progress) => {
        onProgress(progress as OperationProgress<Name>);
      })) as OperationOutput<Name>;
    }
  }
  // The database and the operations are loaded only on this path: a command that a running server carries out
  // starts without them. An operation never makes a new embedded database: one in the wrong folder would hide
  // the real one behind "not found".
  const opened = await (options.openDatabase ?? (await import('../db/open-database.ts')).openDatabase)(
    config,
    { create: false },
  );
  if (opened.description !== undefined) options.onDatabase?.(opened.description);
  // Mail goes out from this process.
  const mailer = createMailer(config, createCliLogger(config.logLevel));
  try {
    const op = (await import('./operations.ts')).operations[name];
    const result: unknown = await op.run(opened.db, input as never, config, onProgress, {
      mailer,
      portfolioUrl: config.portfolioUrl ?? `https://localhost:${String(config.portfolioPort)}`,
      transactionsUrl: config.transactionsUrl ?? `https://localhost:${String(config.transactionsPort)}`,
    });
    // Serialized as the admin socket would, so the caller gets the same JSON on both paths.
    return JSON.parse(JSON.stringify(result)) as OperationOutput<Name>;
  } finally {
    mailer.close();
    await opened.close();
  }
}
