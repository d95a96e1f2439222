import { request } from 'node:http';
import type { Config } from '../config.ts';
import { readLockOwner } from '../db/data-dir-lock.ts';
import { openDatabase } from '../db/open-database.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import { operations, type OperationInput, type OperationName } from './operations.ts';

function callAdminSocket(socketPath: string, name: string, input: unknown): Promise<unknown> {
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
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          try {
            const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
              result?: unknown;
              error?: { code: ErrorCode; message: string };
            };
            if (answer.error) reject(new AppError(answer.error.code, answer.error.message));
            else resolve(answer.result);
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
): Promise<unknown> {
  if (config.databaseUrl === undefined) {
    const owner = await readLockOwner(config.dataDir);
    if (owner?.adminSocket !== undefined) return callAdminSocket(owner.adminSocket, name, input);
  }
  const opened = await openDatabase(config);
  try {
    const op = operations[name];
    const result = await op.run(opened.db, input as never, config);
    return JSON.parse(JSON.stringify(result)) as unknown;
  } finally {
    await opened.close();
  }
}
