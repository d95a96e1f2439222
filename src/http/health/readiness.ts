import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/database.ts';

/** Resolves when a dependency answers; rejects (or never settles) when it does not. */
export type ReadinessCheck = () => Promise<void>;

/** What `GET /readyz` asks besides the database. */
export interface ReadinessChecks {
  /**
   * Dependencies without which this node cannot serve (S3 storage: `files`): one failing makes the node
   * unavailable (503), so that a load balancer sends its traffic elsewhere.
   */
  required?: Record<string, ReadinessCheck>;
  /**
   * Dependencies the node serves without (Redis: rate limits let requests through while it is down): one failing
   * reads `degraded`, still 200, so that a shared outage does not take every node out of the load balancer.
   */
  optional?: Record<string, ReadinessCheck>;
  /**
   * Whether the process is stopping (SIGTERM): `GET /readyz` then answers `503 {"status":"draining"}` at once
   * while every other route still serves, so that a load balancer stops sending before the listener closes.
   * @default never
   */
  draining?: (() => boolean) | undefined;
}

/** The longest a check may take before it counts as failed: readiness never hangs on a silent dependency. */
export const CHECK_TIMEOUT_MS = 1000;
/** How long the answer of a check other than the database's is reused, so a storm of probes asks S3 once. */
export const CHECK_REUSE_MS = 1000;

type Outcome = 'ok' | 'unavailable';

async function withinTimeout(check: ReadinessCheck): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => {
      resolve('unavailable');
    }, CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().then((): Outcome => 'ok'), timeout]);
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

/** A check whose answer is reused for {@link CHECK_REUSE_MS}; probes that come while it runs share it. */
function reused(check: ReadinessCheck): () => Promise<Outcome> {
  let last: { at: number; outcome: Promise<Outcome> } | undefined;
  return () => {
    const now = Date.now();
    if (last === undefined || now - last.at >= CHECK_REUSE_MS) {
      const outcome = withinTimeout(check);
      last = { at: now, outcome };
      // Counted from when the answer came, so a slow check is not asked again at once.
      void outcome.then(() => {
        if (last?.outcome === outcome) last.at = Date.now();
      });
    }
    return last.outcome;
  };
}

/**
 * `GET /healthz` (the process answers) and `GET /readyz` (it can serve): `{"status", "checks"}` where status is
 * `ok`, `degraded` (an optional dependency is down; 200) or `unavailable` (the database or a required one is
 * down; 503), and `checks` names each dependency's `ok` or `unavailable`.
 *
 * @example
 * registerHealthRoutes(app, db, { optional: { redis: () => redis.ping().then(() => undefined) } });
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  db: Queryable,
  checks: ReadinessChecks = {},
): void {
  const required = Object.entries(checks.required ?? {}).map(
    ([name, check]) => [name, reused(check)] as const,
  );
  const optional = Object.entries(checks.optional ?? {}).map(
    ([name, check]) => [name, reused(check)] as const,
  );
  app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    if (checks.draining?.() === true) return reply.code(503).send({ status: 'draining' });
    let databaseError: unknown;
    const database = withinTimeout(() =>
      db.query('select 1').then(
        () => undefined,
        (error: unknown) => {
          databaseError = error;
          throw error;
        },
      ),
    );
    const [databaseOutcome, requiredOutcomes, optionalOutcomes] = await Promise.all([
      database,
      Promise.all(required.map(async ([name, check]) => [name, await check()] as const)),
      Promise.all(optional.map(async ([name, check]) => [name, await check()] as const)),
    ]);
    const answers: Record<string, Outcome> = { database: databaseOutcome };
    for (const [name, outcome] of [...requiredOutcomes, ...optionalOutcomes]) answers[name] = outcome;
    const unavailable = databaseOutcome !== 'ok' || requiredOutcomes.some(([, outcome]) => outcome !== 'ok');
    const degraded = optionalOutcomes.some(([, outcome]) => outcome !== 'ok');
    if (unavailable) {
      // A degraded dependency is not logged here: its own client warns once when it goes (rate-limit.ts).
      const down = Object.keys(answers).filter((name) => answers[name] !== 'ok');
      request.log.warn({ err: databaseError, unavailable: down }, 'not ready');
      return reply.code(503).send({ status: 'unavailable', checks: answers });
    }
    return { status: degraded ? 'degraded' : 'ok', checks: answers };
  });
}
