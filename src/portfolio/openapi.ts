import { PORTFOLIO_KEY_PREFIX } from '../keys/api-key.ts';

/** The parts of the OpenAPI document that no route schema holds: what the API is and how to authenticate. */
export const OPENAPI_INFO = {
  openapi: '3.1.0',
  info: {
    title: 'Portico Portfolio API',
    version: '1.0.0',
    description: [
      'Read-only export of portfolio data: companies with their funds, company updates and investments.',
      'Every list is a keyset walk: follow `nextCursor` until `hasNextPage` is false. See docs/portfolio.md.',
    ].join('\n\n'),
    // Use of the API is governed by the customer's agreement with its provider; SPDX has no id for that.
    license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
  },
  components: {
    securitySchemes: {
      apiKey: {
        type: 'apiKey' as const,
        in: 'header',
        name: 'Authorization',
        description: `The API key itself, with no scheme word: \`Authorization: ${PORTFOLIO_KEY_PREFIX}…\`. The key decides the customer instance.`,
      },
    },
  },
  security: [{ apiKey: [] }],
  tags: [{ name: 'portfolio', description: 'Companies, their updates and investments.' }],
};
