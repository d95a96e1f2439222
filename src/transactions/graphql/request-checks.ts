import {
  GraphQLError,
  Kind,
  getOperationAST,
  parse,
  type ASTVisitor,
  type DocumentNode,
  type ValidationContext,
} from 'graphql';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, quote } from '../../errors.ts';
import { checkJsonInput, unstorableText } from '../../validation/json-input.ts';

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
 * The request envelope, checked before Mercurius reads it, so that every mistake in it gets a 400 with a code
 * that says what to send: one operation per request (no batches), `query` GraphQL text (or an automatic
 * persisted query's hash in `extensions`), `variables` and `extensions` objects (JSON text in a GET's query
 * string), `operationName` a string naming an operation of a GET's query.
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
  const isGet = request.method === 'GET';
  const envelope: unknown = isGet ? request.query : request.body;
  if (Array.isArray(envelope)) {
    throw badRequest('Batched operations are not supported: send one operation per request.', 'body');
  }
  if (!isPlainObject(envelope)) {
    throw badRequest(
      'The body must be a JSON object: {"query": "…", "variables": {…}, "operationName": "…"}.',
      'body',
    );
  }
  const { query, operationName } = envelope;
  const variables = isGet ? jsonParameter(envelope.variables, 'variables') : envelope.variables;
  const extensions = isGet ? jsonParameter(envelope.extensions, 'extensions') : envelope.extensions;
  const persisted = isPlainObject(extensions) && isPlainObject(extensions.persistedQuery);
  if (query === undefined || query === null) {
    if (!persisted) {
      throw badRequest(
        'The request has no "query": send {"query": "…", "variables": {…}} (or a persisted query hash in "extensions").',
        'query',
      );
    }
  } else if (typeof query !== 'string') {
    throw badRequest(`"query" must be a string, not ${quote(query)}.`, 'query');
  } else if (JSON_START.test(query)) {
    throw new AppError(
      'GRAPHQL_PARSE_FAILED',
      '"query" starts like JSON, not GraphQL: send the text of the operation, e.g. "{ viewer { id } }".',
      { field: 'query' },
    );
  }
  if (variables !== undefined && variables !== null && !isPlainObject(variables)) {
    throw badRequest(
      `"variables" must be an object of variable values, not ${quote(variables)}.`,
      'variables',
    );
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    throw badRequest(`"operationName" must be a string, not ${quote(operationName)}.`, 'operationName');
  }
  if (extensions !== undefined && extensions !== null && !isPlainObject(extensions)) {
    throw badRequest(`"extensions" must be an object, not ${quote(extensions)}.`, 'extensions');
  }
  if (isGet) {
    // The body check (base-app) saw these as text.
    checkJsonInput(variables, 'query.variables');
    checkJsonInput(extensions, 'query.extensions');
  }
}

/** A GET request's `variables` or `extensions`: JSON text in the query string, as Mercurius reads it. */
function jsonParameter(value: unknown, name: string): unknown {
  // Mercurius takes an empty parameter for an absent one.
  if (value === '') return undefined;
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw badRequest(`"${name}" must be a JSON object, not ${quote(value)}.`, name);
  }
}

/**
 * How every JSON text starts, and no GraphQL document can: `[`, a string, a number, `true`/`false`/`null`, or
 * `{` followed by a key or `}` (GraphQL's `{` takes a field). Mercurius reads a query that does not parse as
 * GraphQL as a syntax tree in JSON, which would skip the parser and its token limit (and crash on a tree that
 * is not one); this refuses that at once, without parsing the text (a million `[` take JSON.parse 50 ms).
 */
const JSON_START = /^[ \t\n\r]*(?:[["\d-]|\{[ \t\n\r]*["}]|(?:true|false|null)(?!\w))/;

/**
 * For a GET request, whose query Mercurius checks for mutations before anything else: the operation to run
 * must be one the query holds (Mercurius fails on a name it does not hold, or on several unnamed). Run before
 * Mercurius parses the query (its `preParsing` hook), so that it also sees the text of a persisted query sent
 * by hash. The text was bounded when it arrived (the 16 KB request line, or the body limit of the request that
 * persisted it), so parsing it once more is cheap; a query that does not parse is left to Mercurius to refuse.
 */
export function checkOperationChosen(query: string, operationName: string | undefined): void {
  let document: DocumentNode;
  try {
    document = parse(query, { noLocation: true });
  } catch {
    return;
  }
  const operations = document.definitions.filter(
    (definition) => definition.kind === Kind.OPERATION_DEFINITION,
  );
  if (operations.length === 0 || getOperationAST(document, operationName)) return;
  throw new AppError(
    'GRAPHQL_VALIDATION_FAILED',
    operationName === undefined
      ? 'Must provide operation name if query contains multiple operations.'
      : `Unknown operation named ${quote(operationName)}.`,
    { field: 'operationName' },
  );
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
