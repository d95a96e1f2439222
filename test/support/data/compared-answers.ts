// Two apps' answers to the same GraphQL request, compared: the ways of answering before Mercurius
// (src/transactions/graphql/direct-reads.ts, compiled-reads.ts) must give Mercurius' bytes.
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';

/** One app's answer to a GraphQL request, as tests compare two apps': status, media type, body. */
export interface ComparedAnswer {
  status: number;
  type: string | undefined;
  body: string;
}

/** Posts `query` to `/beta` with `key`; each answer with errors names its own request, so its id is masked. */
export async function askToCompare(
  app: FastifyInstance,
  key: string,
  query: string,
  variables?: unknown,
): Promise<ComparedAnswer> {
  const response = await app.inject({
    method: 'POST',
    url: '/beta',
    headers: { authorization: `Bearer ${key}` },
    payload: { query, variables },
  });
  const body = response.body.replace(/"requestId":"req_[\w-]+"/g, '"requestId":"…"');
  const type = response.headers['content-type'];
  return { status: response.statusCode, type: typeof type === 'string' ? type : undefined, body };
}

/**
 * Expects two apps' answers to be the same bytes; with errors, the same JSON: Mercurius itself orders `data` and
 * `errors` differently before and after it compiled a query, and two apps may have seen a text a different number
 * of times.
 */
export function expectSameAnswer(fast: ComparedAnswer, slow: ComparedAnswer): void {
  if (fast.body.includes('"errors"')) {
    expect({ ...fast, body: JSON.parse(fast.body) as unknown }).toEqual({
      ...slow,
      body: JSON.parse(slow.body) as unknown,
    });
  } else {
    expect(fast).toEqual(slow);
  }
}
