import type { IncomingMessage } from 'node:http';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database, Queryable, Transaction } from '../db/database.ts';
import { graphqlOperationOf } from './graphql-operation.ts';
import { TRACED_LOGGER, type TraceIds, type Tracing } from './tracing-interface.ts';

/**
 * The OpenTelemetry SDK behind tracing.ts, loaded only when tracing is on. Manual instrumentation, on purpose:
 * the statements of both databases (PGlite has no instrumentation of its own) and the bundled start are
 * traced alike, and only what Portico wants is made:
 *
 * - one SERVER span per request, named by method and route template (`POST /beta`, `GET /r/:token`: never the
 *   path as sent, which may carry a recipient's token), with the GraphQL operation after it
 *   (`POST /beta CreateTransaction`, also as `graphql.operation.name` and `graphql.operation.type`), continuing
 *   the caller's W3C `traceparent`;
 * - a CLIENT span per database statement made while a request's span records, its text without the values
 *   (`db.query.text`; every statement is parameterized), and one per database transaction around its statements.
 *
 * The exporter, the sampler, the batch processor and the resource read the standard `OTEL_*` variables
 * themselves (`OTEL_EXPORTER_OTLP_*`, `OTEL_TRACES_SAMPLER(_ARG)`, `OTEL_BSP_*`, `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`). Spans go as OTLP/HTTP JSON to `<endpoint>/v1/traces`.
 */
export function createOtelTracing(options: { serviceName: string }): Tracing {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // The variables win over the default name (a merged resource's later attributes win).
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer('portico');

  /** The span of each request in flight, from its first moment (the logger) to its answer. */
  const requests = new WeakMap<IncomingMessage, { span: Span; context: Context; error?: Error }>();

  /** Runs `run` in a child span of the span in force, if one records; else just runs it. */
  const inSpan = <T>(name: string, attributes: Record<string, string>, run: () => Promise<T>): Promise<T> => {
    const parent = context.active();
    if (trace.getSpan(parent)?.isRecording() !== true) return run();
    const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
    return context.with(trace.setSpan(parent, span), run).then(
      (result) => {
        span.end();
        return result;
      },
      (error: unknown) => {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        throw error;
      },
    );
  };
  const statement = <T>(text: string, run: () => Promise<T>) =>
    inSpan(operationOf(text), { [ATTR_DB_SYSTEM_NAME]: 'postgresql', [ATTR_DB_QUERY_TEXT]: text }, run);
  const tracedQuery =
    (queryable: Queryable): Queryable['query'] =>
    (text, params) =>
      statement(text, () => queryable.query(text, params));

  return {
    serverOptions: () => ({
      // Fastify makes each request's logger first: the span starts there, so that every line carries its ids.
      childLoggerFactory(logger, bindings, childOptions, request) {
        const parent = propagation.extract(ROOT_CONTEXT, request.headers);
        const method = request.method ?? 'GET';
        const span = tracer.startSpan(
          method,
          { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method } },
          parent,
        );
        requests.set(request, { span, context: trace.setSpan(parent, span) });
        const { traceId, spanId } = span.spanContext();
        const child = logger.child({ ...bindings, traceId, spanId }, childOptions);
        // Its lines carry the ids already: pino's mixin (logger.ts) adds none.
        return Object.assign(child, { [TRACED_LOGGER]: true });
      },
    }),

    register(app: FastifyInstance) {
      // The span is in force for the hooks and the handler. Reading the body leaves the async context of the
      // request's start, so it is put in force again once the body is read.
      const enter = (request: FastifyRequest, _reply: unknown, done: () => void) => {
        const state = requests.get(request.raw);
        if (state) context.with(state.context, done);
        else done();
      };
      app.addHook('onRequest', enter);
      app.addHook('preValidation', enter);
      app.addHook('onError', (request, _reply, error, done) => {
        const state = requests.get(request.raw);
        if (state) state.error = error;
        done();
      });
      app.addHook('onResponse', (request, reply, done) => {
        const state = requests.get(request.raw);
        if (!state) {
          done();
          return;
        }
        requests.delete(request.raw);
        const { span } = state;
        // The route as registered; a request no route took (404) keeps the method alone.
        const route = request.routeOptions.url;
        const operation = graphqlOperationOf(request);
        const named = operation ? ` ${operation.name ?? operation.type}` : '';
        span.updateName(route === undefined ? request.method : `${request.method} ${route}${named}`);
        if (route !== undefined) span.setAttribute(ATTR_HTTP_ROUTE, route);
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, reply.statusCode);
        if (operation) {
          span.setAttribute('graphql.operation.type', operation.type);
          if (operation.name !== undefined) span.setAttribute('graphql.operation.name', operation.name);
        }
        if (reply.statusCode >= 500) {
          if (state.error) span.recordException(state.error);
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
        done();
      });
    },

    traceDatabase(db: Database): Database {
      const traced: Partial<Database> = {
        query: tracedQuery(db),
        exec: (script) => statement(script, () => db.exec(script)),
        transaction: (work) =>
          inSpan('transaction', { [ATTR_DB_SYSTEM_NAME]: 'postgresql' }, () =>
            db.transaction((tx) => {
              const tracedTx: Transaction = {
                query: tracedQuery(tx),
                exec: (script) => statement(script, () => tx.exec(script)),
              };
              return work(tracedTx);
            }),
          ),
      };
      // Everything else (listen, close, what one kind of database adds) is the database's own.
      return Object.assign(Object.create(db) as Database, traced);
    },

    currentIds(): TraceIds | undefined {
      const span = trace.getSpan(context.active());
      if (span === undefined) return undefined;
      const { traceId, spanId } = span.spanContext();
      return { traceId, spanId };
    },

    async shutdown() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** A statement's span name: its first word (`SELECT`, `INSERT`, `WITH`…), as OpenTelemetry's `db.operation.name`. */
function operationOf(text: string): string {
  return /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
}
