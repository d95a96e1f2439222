import { createHash } from 'node:crypto';
import { chmod, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Value } from '@sinclair/typebox/value';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { AppError, type ErrorCode, notFound } from '../errors.ts';
import { describeError } from '../errors.ts';
import { operations, type OperationName, type OperationServices } from './operations.ts';

/** One line of an admin socket answer. */
export type AdminLine =
  | { progress: unknown }
  | { result: unknown }
  | { error: { code: ErrorCode; message: string; details?: Record<string, unknown> } };

/** A Unix socket path for the data dir, short enough for the 107-byte limit of socket paths. */
export function adminSocketPath(dataDir: string): string {
  const inDataDir = join(dataDir, 'admin.sock');
  if (Buffer.byteLength(inDataDir) < 100) return inDataDir;
  return join(tmpdir(), `portico-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.sock`);
}

/**
 * Serves CLI operations on a Unix socket (mode 0600, owner only) while `portico serve` holds the embedded
 * database, which only one process may open: `POST /operations/<name>` with the operation's input as JSON;
 * the answer is JSON lines (progress, then the result or the error).
 */
export async function startAdminServer(options: {
  db: Database;
  config: Pick<Config, 'environment' | 'dataDir' | 'webhooksAllowInsecure'> & { s3?: Config['s3'] };
  /** The serving process's mailer and public addresses, for operations that send mail. */
  services: OperationServices;
  logger?: FastifyBaseLogger;
}): Promise<{ path: string; app: FastifyInstance }> {
  const path = adminSocketPath(options.config.dataDir);
  // The owner's own socket: a template's fund PDFs (up to 10 MB each, as base64) cross it.
  const bodyLimit = 64 * 1024 * 1024;
  const app = Fastify(
    options.logger ? { loggerInstance: options.logger, bodyLimit } : { logger: false, bodyLimit },
  );
  app.post<{ Params: { name: string }; Body: unknown }>('/operations/:name', async (request, reply) => {
    // The answer is a stream of JSON lines: progress reports as the operation makes them, then the result.
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const send = (line: AdminLine) => reply.raw.write(`${JSON.stringify(line)}\n`);
    try {
      const name = request.params.name;
      if (!Object.hasOwn(operations, name)) throw notFound('operation', name);
      const op = operations[name as OperationName];
      if (!Value.Check(op.input, request.body)) {
        const problems = [...Value.Errors(op.input, request.body)].map(
          (e) => `${e.path || '/'}: ${e.message}`,
        );
        throw new AppError('BAD_USER_INPUT', problems.join('; '));
      }
      const result = await op.run(
        options.db,
        request.body as never,
        options.config,
        (progress) => send({ progress }),
        options.services,
      );
      send({ result });
    } catch (error) {
      const described = describeError(error);
      if (!described.expected) request.log.error({ err: error }, 'admin operation failed');
      send({
        error: {
          code: described.code,
          message: described.message,
          ...(described.details ? { details: described.details } : {}),
        },
      });
    }
    reply.raw.end();
  });
  await rm(path, { force: true });
  await app.listen({ path });
  await chmod(path, 0o600);
  return { path, app };
}
