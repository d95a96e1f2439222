import type { FastifyInstance } from 'fastify';
import type { Database } from '../src/db/database.ts';
import { createBaseApp } from '../src/http/base-app.ts';
import type { TlsMaterial } from '../src/http/tls.ts';
import { withFundNames } from '../src/portfolio/lists.ts';

/** The floor's two routes: the statement of `GET /companies` page 1, and that of the deep page. */
export const PORTFOLIO_FLOOR_PATHS = { first: '/floor/companies', deep: '/floor/companies/deep' } as const;
export type FloorPage = keyof typeof PORTFOLIO_FLOOR_PATHS;

/** One statement exactly as the Portfolio app sent it to the database: its text and its parameters. */
export interface CapturedStatement {
  text: string;
  params: unknown[];
}

/**
 * The Portfolio floor: the same base app as the Portfolio service (HTTPS-only polyglot server, request ids,
 * error handler), with one GET route per page that runs the statement the API's `listPage` ran for that page
 * (captured from a real request: same text, same parameters), puts each company's funds together as the API does
 * (`withFundNames`), and sends its rows with `reply.send`, in the envelope's shape: the page's records, `total`
 * when the statement reads one, `hasNextPage`. No auth, no
 * cursor to decode or sign, no route schema (Fastify's plain `JSON.stringify`).
 */
export async function buildPortfolioFloorApp(options: {
  db: Database;
  tls: Pick<TlsMaterial, 'cert' | 'key'>;
  statements: Record<FloorPage, CapturedStatement>;
  limit: number;
}): Promise<FastifyInstance> {
  const { db, limit } = options;
  const app = await createBaseApp({ db, tls: options.tls });
  for (const page of ['first', 'deep'] as const) {
    const { text, params } = options.statements[page];
    app.get(PORTFOLIO_FLOOR_PATHS[page], async (_request, reply) => {
      const [row] = await db.query<{
        rows: { funds: unknown }[];
        funds?: [string, string][] | null;
        total?: number;
      }>(text, params);
      if (!row) throw new Error('the floor statement returned no row');
      const data = row.rows;
      const hasNextPage = data.length > limit;
      if (hasNextPage) data.length = limit;
      withFundNames(data, row.funds ?? []);
      return reply.send({ data, total: row.total ?? null, hasNextPage });
    });
  }
  return app;
}
