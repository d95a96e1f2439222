import { ERROR_STATUS } from '../../src/errors.ts';

/**
 * Checks that an answer is one the docs promise: below 500, with a request id in `x-request-id`, and when it
 * is an error, JSON in the documented shape carrying the same request id: `{"error": {code, message,
 * requestId}}` (REST and HTTP-level refusals) or `{"errors": [{message, extensions: {code, requestId}}]}`
 * (GraphQL).
 */

/** What a test knows of an answer: status, lower-case headers, body text. */
export interface AnswerLike {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

export type Shape = 'rest' | 'graphql';

/** A request id as Portico makes or accepts them. */
const REQUEST_ID = /^[A-Za-z0-9_.:-]{8,64}$/;

function header(answer: AnswerLike, name: string): string | undefined {
  const value = answer.headers[name];
  return value === undefined ? undefined : String(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function restProblem(body: unknown, status: number, requestId: string): string | undefined {
  if (!isObject(body) || Object.keys(body).join() !== 'error' || !isObject(body.error)) {
    return 'the body is not {"error": {…}}';
  }
  const { code, message, requestId: bodyId, ...rest } = body.error;
  if (Object.keys(rest).some((key) => key !== 'details'))
    return `error has extra fields ${Object.keys(rest).join()}`;
  if (typeof code !== 'string' || !(code in ERROR_STATUS))
    return `error.code ${String(code)} is not in the catalogue`;
  if (ERROR_STATUS[code as keyof typeof ERROR_STATUS] !== status)
    return `error.code ${code} does not go with ${status}`;
  if (typeof message !== 'string' || message === '') return 'error.message is not a non-empty string';
  if (bodyId !== requestId) return `error.requestId ${String(bodyId)} is not x-request-id ${requestId}`;
  return undefined;
}

function graphqlProblem(body: unknown, status: number, requestId: string): string | undefined {
  if (!isObject(body)) return 'the body is not a JSON object';
  if (status >= 400 && !Array.isArray(body.errors)) return 'an error answer has no "errors" array';
  if (body.errors === undefined) return 'data' in body ? undefined : 'the body has neither data nor errors';
  if (!Array.isArray(body.errors) || body.errors.length === 0) return '"errors" is not a non-empty array';
  for (const error of body.errors as unknown[]) {
    if (!isObject(error) || typeof error.message !== 'string') return 'an error has no message';
    const extensions = error.extensions;
    if (!isObject(extensions)) return 'an error has no extensions';
    if (typeof extensions.code !== 'string' || !/^[A-Z_]+$/.test(extensions.code)) {
      return `extensions.code ${String(extensions.code)} is not a code`;
    }
    if (extensions.requestId !== requestId) {
      return `extensions.requestId ${String(extensions.requestId)} is not x-request-id ${requestId}`;
    }
  }
  if (status >= 400 && body.data !== undefined && body.data !== null) return 'an error answer carries data';
  return undefined;
}

/**
 * What is wrong with an answer, or undefined when it is as documented. `shapes` are the error shapes allowed
 * (HTTP-level refusals such as 431 are always in the REST shape); `head` for answers to HEAD, which have no body.
 */
export function answerProblem(
  answer: AnswerLike | undefined,
  options: { shapes: readonly Shape[]; head?: boolean },
): string | undefined {
  if (!answer) return 'no HTTP answer';
  if (answer.status >= 500) return `status ${answer.status}`;
  if (answer.status < 200) return `status ${answer.status}`;
  const requestId = header(answer, 'x-request-id');
  if (requestId === undefined || !REQUEST_ID.test(requestId)) return `x-request-id is ${String(requestId)}`;
  if (options.head === true || answer.status === 204) {
    return answer.body === '' ? undefined : `a ${answer.status} answer to HEAD or a preflight has a body`;
  }
  const type = header(answer, 'content-type') ?? '';
  if (!/^application\/(graphql-response\+)?json/.test(type)) return `content-type is "${type}"`;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return 'the body is not JSON';
  }
  if (answer.status < 400) {
    const graphqlBody = isObject(body) && ('data' in body || 'errors' in body);
    if (options.shapes.includes('graphql') && (graphqlBody || !options.shapes.includes('rest'))) {
      return graphqlProblem(body, answer.status, requestId);
    }
    return undefined;
  }
  const problems = options.shapes.map((shape) =>
    shape === 'rest'
      ? restProblem(body, answer.status, requestId)
      : graphqlProblem(body, answer.status, requestId),
  );
  if (problems.includes(undefined)) return undefined;
  return problems.join('; and ');
}
