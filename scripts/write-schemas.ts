/** Writes the generated contracts into docs/ (`npm run schemas`); tests fail while a committed copy is stale. */
import { writeFile } from 'node:fs/promises';
import { ERROR_CODES_PATH, errorCodesModule } from '../clients/typescript/codegen/error-codes.ts';
import { PORTFOLIO_TYPES_PATH, portfolioTypesModule } from '../clients/typescript/codegen/portfolio.ts';
import {
  TRANSACTIONS_TYPES_PATH,
  transactionsTypesModule,
} from '../clients/typescript/codegen/transactions.ts';
import { OPENAPI_DOCUMENT_PATH, portfolioOpenApiDocument } from '../src/portfolio/openapi-document.ts';
import {
  templateSchemaDocument,
  TEMPLATE_SCHEMA_PATH,
} from '../src/transactions/templates/schema-document.ts';
import { TRANSACTIONS_SDL_PATH, transactionsSdl } from '../src/transactions/graphql/sdl.ts';

await writeFile(TEMPLATE_SCHEMA_PATH, templateSchemaDocument());
console.log(`wrote ${TEMPLATE_SCHEMA_PATH}`);
await writeFile(OPENAPI_DOCUMENT_PATH, portfolioOpenApiDocument());
console.log(`wrote ${OPENAPI_DOCUMENT_PATH}`);
await writeFile(TRANSACTIONS_SDL_PATH, transactionsSdl());
console.log(`wrote ${TRANSACTIONS_SDL_PATH}`);
await writeFile(ERROR_CODES_PATH, errorCodesModule());
console.log(`wrote ${ERROR_CODES_PATH.pathname}`);
// After the contracts above: the client is typed from the files just written.
await writeFile(PORTFOLIO_TYPES_PATH, await portfolioTypesModule());
console.log(`wrote ${PORTFOLIO_TYPES_PATH.pathname}`);
await writeFile(TRANSACTIONS_TYPES_PATH, await transactionsTypesModule());
console.log(`wrote ${TRANSACTIONS_TYPES_PATH.pathname}`);
