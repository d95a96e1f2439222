import { GraphQLError, type ValidationContext, type ASTVisitor } from 'graphql';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, quote } from '../../errors.ts';
import { unstorableText } from '../../validation/json-input.ts';

/** The largest answer the GraphQL endpoint sends, in bytes of JSON; a larger one is refused. */
export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

/** The media type of the GraphQL-over-HTTP specification, sent when the client's Accept asks for it. */
const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function badRequest(message: string, field: string): AppError {
  return new AppError('BAD_USER_INPUT', message, { field });
}

/**
 * The request envelope, checked before Mercurius reads it, so that every mistake in it gets a 400
 * `BAD_USER_INPUT` that says what to send: one operation per request (no batches), `query` a string (or an
 * automatic persisted query's hash in `extensions`), `variables` and `extensions` objects, `operationName`
 * a string.
 */
export function checkGraphQLEnvelope(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  try {
    checkEnvelope(request);
  } catch (error) {
    done(error as Error);
    return;
  }
  done();
}

function checkEnvelope(request: FastifyRequest): void {
  const envelope: unknown = request.method === 'GET' ? request.query : request.body;
  if (Array.isArray(envelope)) {
    throw badRequest('Batched operations are not supported: send one operation per request.', 'body');
  }
  if (!isPlainObject(envelope)) {
    throw badRequest(
      'The body must be a JSON object: {"query": "…", "variables": {…}, "operationName": "…"}.',
      'body',
    );
  }
  const { query, variables, operationName, extensions } = envelope;
  const persisted = isPlainObject(extensions) && extensions.persistedQuery !== undefined;
  if (query === undefined || query === null) {
    if (!persisted) {
      throw badRequest(
        'The request has no "query": send {"query": "…", "variables": {…}} (or a persisted query hash in "extensions").',
        'query',
      );
    }
  } else if (typeof query !== 'string') {
    throw badRequest(`"query" must be a string, not ${quote(query)}.`, 'query');
  }
  const isObjectOrJsonText = (value: unknown) =>
    isPlainObject(value) || (request.method === 'GET' && typeof value === 'string');
  if (variables !== undefined && variables !== null && !isObjectOrJsonText(variables)) {
    throw badRequest(
      `"variables" must be an object of variable values, not ${quote(variables)}.`,
      'variables',
    );
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw badRequest(`"operationName" must be a string, not ${quote(operationName)}.`, 'operationName');
  }
  if (extensions !== undefined && extensions !== null && !isObjectOrJsonText(extensions)) {
    throw badRequest(`"extensions" must be an object, not ${quote(extensions)}.`, 'extensions');
  }
}

/**
 * String literals in the query that text columns cannot hold (NUL, unpaired surrogates) are refused as
 * `BAD_USER_INPUT` at their location; variables get the same check with every JSON input (base-app).
 */
export function storableStringsRule(context: ValidationContext): ASTVisitor {
  return {
    StringValue(node) {
      const problem = unstorableText(node.value);
      if (problem) {
        context.reportError(
          new GraphQLError(`This string ${problem}.`, {
            nodes: node,
            extensions: { code: 'BAD_USER_INPUT' },
          }),
        );
      }
    },
  };
}

/** The operation name a request names, for the hooks that run after Mercurius parsed it. */
export function operationNameOf(request: FastifyRequest): string | undefined {
  const envelope: unknown = request.method === 'GET' ? request.query : request.body;
  const name = isPlainObject(envelope) ? envelope.operationName : undefined;
  return typeof name === 'string' ? name : undefined;
}

/**
 * The answer's last checks: the GraphQL-over-HTTP media type when the client asks for it, and no answer
 * larger than {@link MAX_RESPONSE_BYTES}: such a request is told to ask for less, instead of getting it.
 */
export function finishGraphQLAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  const accept = request.headers.accept ?? '';
  if (accept.includes(GRAPHQL_RESPONSE_TYPE)) {
    void reply.header('content-type', `${GRAPHQL_RESPONSE_TYPE}; charset=utf-8`);
  }
  // A UTF-16 unit is at most 3 bytes of UTF-8: count bytes only where the limit can be passed.
  if (typeof payload === 'string' && payload.length * 3 > MAX_RESPONSE_BYTES) {
    const bytes = Buffer.byteLength(payload);
    if (bytes > MAX_RESPONSE_BYTES) {
      void reply.code(400);
      return JSON.stringify({
        data: null,
        errors: [
          {
            message: `The answer would be ${bytes} bytes, over the limit of ${MAX_RESPONSE_BYTES}: ask for fewer fields, or page through lists with smaller pages.`,
            extensions: {
              code: 'RESPONSE_TOO_LARGE',
              requestId: request.id,
              limit: MAX_RESPONSE_BYTES,
              size: bytes,
            },
          },
        ],
      });
    }
  }
  return payload;
}
