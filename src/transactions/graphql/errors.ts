import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import type { FastifyBaseLogger } from 'fastify';
import { describeError, type ErrorCode } from '../../errors.ts';

interface WithNestedErrors {
  errors?: unknown;
  statusCode?: unknown;
}

function nestedErrors(error: GraphQLError): GraphQLError[] {
  // Mercurius wraps validation errors in one MER_ERR_GQL_VALIDATION error that holds them.
  const nested = (error.originalError as WithNestedErrors | undefined)?.errors;
  return Array.isArray(nested) ? nested.map((inner) => asGraphQLError(inner)) : [error];
}

function asGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  const cause = error instanceof Error ? error : new Error(String(error));
  return new GraphQLError(cause.message, { originalError: cause });
}

function codeOfRequestError(error: GraphQLError): ErrorCode {
  if (error.message.startsWith('Syntax Error')) return 'GRAPHQL_PARSE_FAILED';
  if (error.message.startsWith('Variable "')) return 'BAD_USER_INPUT';
  return 'GRAPHQL_VALIDATION_FAILED';
}

function format(error: GraphQLError, requestId: string, log: FastifyBaseLogger): GraphQLFormattedError {
  const { message, locations, path } = error;
  // Errors of queries compiled by graphql-jit can come without extensions.
  const extensions = error.extensions as GraphQLError['extensions'] | undefined;
  const given = extensions?.code;
  const original = error.originalError;
  let code: string;
  let shownMessage = message;
  let details: Record<string, unknown> | undefined;
  if (typeof given === 'string') {
    code = given;
  } else if (original === undefined || original instanceof GraphQLError) {
    code = codeOfRequestError(error);
  } else {
    const described = describeError(original);
    code = described.code;
    details = described.details;
    shownMessage = described.message;
    if (!described.expected) log.error({ err: original, path }, 'unexpected error in a resolver');
  }
  return {
    message: shownMessage,
    ...(locations ? { locations } : {}),
    ...(path ? { path } : {}),
    extensions: { ...details, code, requestId },
  };
}

/**
 * 200 whenever execution started (errors then sit beside data, with a path), else the status of the error that
 * stopped the request: 401 for authentication, 400 for a request that does not parse or validate.
 */
function statusOf(execution: ExecutionResult & { statusCode?: number }, raw: GraphQLError[]): number {
  const first = raw[0];
  if (execution.data || first === undefined || first.path !== undefined) return 200;
  const original = first.originalError;
  if (original === undefined || original instanceof GraphQLError) return 400;
  const status = (original as WithNestedErrors).statusCode;
  return typeof status === 'number' ? status : describeError(original).status;
}

/**
 * Shapes every GraphQL error response: `extensions.code` from the one error catalogue and the request id on
 * each error; unexpected errors masked for the client and logged whole. The HTTP status is 200 when there
 * is data, else the status of the single error that stopped the request (401, 400, …).
 */
export function formatGraphQLErrors(
  execution: ExecutionResult & { statusCode?: number },
  requestId: string,
  log: FastifyBaseLogger,
): {
  statusCode: number;
  response: { data: ExecutionResult['data'] | null; errors: GraphQLFormattedError[] };
} {
  const raw = (execution.errors ?? []).map(asGraphQLError);
  const errors = raw.flatMap(nestedErrors).map((error) => format(error, requestId, log));
  const statusCode = statusOf(execution, raw);
  return { statusCode, response: { data: execution.data ?? null, errors } };
}
