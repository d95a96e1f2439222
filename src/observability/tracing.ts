import { TRACED_LOGGER, type TraceIds, type Tracing } from './tracing-interface.ts';

/**
 * Tracing with OpenTelemetry, exported over OTLP, when the standard variables ask for it
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; see `tracingWanted` in config.ts).
 * This file is all the rest of Portico sees of it, and it imports no OpenTelemetry module: the SDK is loaded by
 * {@link startTracing} only when tracing is on (otel-tracing.ts), so a process without the variables loads
 * none of it and pays nothing per request, statement or log line.
 */

/** What {@link startTracing} needs. */
export interface TracingStart {
  /** Whether the configuration asks for tracing (`Config['tracing']`). */
  enabled: boolean;
  /** `service.name` unless `OTEL_SERVICE_NAME` (or `OTEL_RESOURCE_ATTRIBUTES`) names it. */
  serviceName: string;
}

let active: Tracing | undefined;
/** How many starts share the tracing in force: it ends with the last `stop()`. */
let users = 0;

/**
 * Starts tracing for this process when `enabled`, loading the OpenTelemetry SDK then; otherwise does nothing
 * and loads nothing. Starts made while tracing runs share it. Resolves with how to stop it (after the
 * services closed: spans still buffered are exported then).
 *
 * @example
 * const tracing = await startTracing({ enabled: config.tracing, serviceName: 'portico' });
 * // … build the apps, serve …
 * await tracing.stop();
 */
export async function startTracing(options: TracingStart): Promise<{ stop(): Promise<void> }> {
  if (!options.enabled) return { stop: () => Promise.resolve() };
  if (active === undefined) {
    // The only import of the SDK: a process that does not trace never loads it.
    const { createOtelTracing } = await import('./otel-tracing.ts');
    active ??= createOtelTracing({ serviceName: options.serviceName });
  }
  users += 1;
  let stopped = false;
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      users -= 1;
      const ending = active;
      if (users > 0 || ending === undefined) return;
      active = undefined;
      await ending.shutdown();
    },
  };
}

/** The tracing in force, or undefined (the default, and always without the OTLP variables). */
export function activeTracing(): Tracing | undefined {
  return active;
}

/** What {@link traceLogFields} gives when there is no trace: one shared object, never written to (logger.ts). */
export const NO_TRACE: Partial<TraceIds> = Object.freeze({});

/**
 * The trace and span ids to add to a line `logger` writes (pino's `mixin`): those of the span in force, else
 * nothing. One comparison when tracing is off.
 */
export function traceLogFields(logger: object): Partial<TraceIds> {
  if (active === undefined || TRACED_LOGGER in logger) return NO_TRACE;
  return active.currentIds() ?? NO_TRACE;
}
