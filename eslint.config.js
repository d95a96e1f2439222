import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The boundaries docs/architecture.md draws. The two services share only the shared layer: neither imports
 * the other's folder. Domain files hold the business rules and know nothing of HTTP or GraphQL; only the
 * transport files (apps, routes, authentication hooks, the GraphQL layer, the dashboard's and the console's
 * registration) import Fastify or GraphQL.
 */
const SERVICES = { transactions: 'portfolio', portfolio: 'transactions' };
const DOMAIN_FOLDERS = ['transactions', 'portfolio', 'webhooks', 'files', 'keys', 'accounts', 'mail', 'demo'];
const TRANSPORT_FILES = [
  'src/*/app.ts',
  'src/**/routes.ts',
  'src/**/*-routes.ts',
  'src/**/*-route.ts',
  'src/*/authenticate.ts',
  'src/transactions/graphql/**',
  // The customer dashboard and the console, each registered as a signed-in surface.
  'src/portfolio/dashboard/dashboard.ts',
  'src/transactions/console/console.ts',
];
const TRANSPORT_PACKAGES = {
  group: ['fastify', '@fastify/*', 'mercurius', 'graphql', 'graphql-jit', '@escape.tech/*'],
  message: 'Domain files know nothing of HTTP or GraphQL: put this in a route, an app or the graphql/ layer.',
};
const otherService = (service) => ({
  group: [`**/${SERVICES[service]}/**`],
  message: `The services share only the shared layer: ${service}/ never imports ${SERVICES[service]}/.`,
});
const boundaries = [
  ...Object.keys(SERVICES).map((service) => ({
    files: [`src/${service}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [otherService(service)] }] },
  })),
  // A later entry replaces the rule's options for the files it matches, so domain files of a service name
  // both restrictions again.
  ...DOMAIN_FOLDERS.map((folder) => ({
    files: [`src/${folder}/**/*.ts`],
    ignores: TRANSPORT_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [TRANSPORT_PACKAGES, ...(folder in SERVICES ? [otherService(folder)] : [])] },
      ],
    },
  })),
];

export default tseslint.config(
  { ignores: ['node_modules/', '.portico/', 'coverage/', 'web/dist/', '.ci/', 'clients/typescript/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...boundaries,
  {
    // A part of a page in a chunk of its own loads through web/shared/app/chunk.tsx, which says so in its place
    // when its chunk did not come and loads it again on "Try again"; React's own `lazy` keeps the failure for good
    // and leaves it uncaught.
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'react',
              importNames: ['lazy', 'Suspense'],
              message:
                'Use lazyChunk and Chunked (web/shared/app/chunk.tsx): they say when a chunk did not come.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON responses loosely and then assert on them.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
);
