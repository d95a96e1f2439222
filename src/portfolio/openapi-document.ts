import { fileURLToPath } from 'node:url';
import { migrate } from '../db/migrate.ts';
import { createPGliteDatabase } from '../db/pglite-database.ts';
import { buildPortfolioApp } from './app.ts';

/** Where the published OpenAPI document of the Portfolio API lives in the repository. */
export const OPENAPI_DOCUMENT_PATH = fileURLToPath(
  new URL('../../docs/portfolio.openapi.json', import.meta.url),
);

/**
 * The OpenAPI 3.1 document of the Portfolio API as the text of `docs/portfolio.openapi.json`: what
 * `/v1/external/openapi.json` serves, generated from the route schemas of an app built on a throwaway
 * embedded database.
 */
export async function portfolioOpenApiDocument(): Promise<string> {
  const db = await createPGliteDatabase();
  try {
    await migrate(db);
    const app = await buildPortfolioApp({ db });
    const document = app.swagger();
    await app.close();
    return `${JSON.stringify(document, null, 2)}\n`;
  } finally {
    await db.close();
  }
}
