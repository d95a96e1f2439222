import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Database } from '../db/database.ts';

// What tracing.ts and the SDK behind it (otel-tracing.ts) agree on, apart from both: tracing.ts loads the SDK
// side only when tracing is on, and nothing here names an OpenTelemetry type.

/** The trace and span ids of the span in force, as log lines carry them (lower-case hex). */
export interface TraceIds {
  traceId: string;
  spanId: string;
}

/** What the SDK-backed side (otel-tracing.ts) provides; nothing here names an OpenTelemetry type. */
export interface Tracing {
  /**
   * Fastify options of an app: each request's server span starts with the request's logger, continuing the
   * caller's `traceparent`, so that every line the request logs carries its trace id.
   */
  serverOptions(): Pick<FastifyServerOptions, 'childLoggerFactory'>;
  /** The hooks that keep a request's span in force while it runs, name it and end it (see otel-tracing.ts). */
  register(app: FastifyInstance): void;
  /** `db` whose statements are child spans of the span in force (none outside a request). */
  traceDatabase(db: Database): Database;
  /** The ids of the span in force, if any. */
  currentIds(): TraceIds | undefined;
  /** Ends tracing: spans not yet exported are sent first. */
  shutdown(): Promise<void>;
}

/** Marks a request's logger, whose lines carry their trace ids as bindings already. */
export const TRACED_LOGGER = Symbol('portico.tracedLogger');
