import { request } from 'node:http';
import type { Config } from '../config.ts';
import { readLockOwner } from '../db/data-dir-lock.ts';
import { openDatabase } from '../db/open-database.ts';
import { AppError } from '../errors.ts';
import type { AdminLine } from './admin-server.ts';
import { operations, type OperationInput, type OperationName } from './operations.ts';

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

/**
 * Runs an operator's operation: inside the running `portico serve` when it holds the embedded database, else
 * on a database opened for the occasion. The result is plain JSON either way.
 */
export async function runOperation<Name extends OperationName>(
  config: Config,
  name: Name,
  input: OperationInput<Name>,
  onProgress: (progress: unknown) => void = () => undefined,
): Promise<unknown> {
  if (config.databaseUrl === undefined) {
    const owner = await readLockOwner(config.dataDir);
    if (owner?.adminSocket !== undefined) return callAdminSocket(owner.adminSocket, name, input, onProgress);
  }
  const opened = await openDatabase(config);
  try {
    const op = operations[name];
    const result = await op.run(opened.db, input as never, config, onProgress);
    return JSON.parse(JSON.stringify(result)) as unknown;
  } finally {
    await opened.close();
  }
}
