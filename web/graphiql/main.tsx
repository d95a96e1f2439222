// GraphiQL for the Transactions API, served by Portico itself at /graphiql: every script, style sheet, font and
// Monaco editor worker comes from this origin, so the page works without internet access.
import 'graphiql/setup-workers/vite';
// GraphiQL's own styles without the fonts that graphiql/style.css carries as base64 (340 KiB compressed, read
// before the page could show): the page uses the system's fonts. Monaco's styles come with Monaco.
import '@graphiql/react/style.css';
import 'graphiql/graphiql.css';
import './graphiql.css';
import { GraphiQL, type GraphiQLProps } from 'graphiql';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RefetchSchemaOnHeaders } from './refetch-schema-on-headers.tsx';

/** The GraphQL endpoint, on the origin that served this page. */
const GRAPHQL_PATH = '/beta';

/** Shown in the headers editor until the user saves their own headers (they persist in localStorage). */
const DEFAULT_HEADERS = `{
  "Authorization": "Bearer YOUR_API_KEY"
}`;

const DEFAULT_QUERY = `# Portico Transactions API
#
# 1. In Headers below, replace YOUR_API_KEY with
#    your key (sk_test_… or sk_live_…). This
#    browser keeps it (Settings: persist headers).
# 2. Run with Ctrl-Enter or the ▶ button.
# 3. Docs (book icon, left) lists every type.

query Viewer {
  viewer {
    id
    handle
    name
    templates {
      id
      key
      version
      name
    }
  }
}
`;

type FetcherArguments = Parameters<GraphiQLProps['fetcher']>;

/** A GraphQL response as the API sends it (`errors[].extensions.code` says what went wrong). */
interface GraphQLResponse {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** POSTs the operation as JSON with the headers from the headers editor (the API key among them). */
async function fetcher(...[params, options]: FetcherArguments): Promise<GraphQLResponse> {
  const response = await fetch(GRAPHQL_PATH, {
    method: 'POST',
    headers: {
      accept: 'application/graphql-response+json, application/json',
      'content-type': 'application/json',
      ...options?.headers,
    },
    body: JSON.stringify(params),
    credentials: 'omit',
  });
  const text = await response.text();
  try {
    return JSON.parse(text) as GraphQLResponse;
  } catch {
    throw new Error(
      `${GRAPHQL_PATH} answered ${response.status} ${response.statusText}: ${text.slice(0, 200)}`,
    );
  }
}

// GraphiQL keeps the operation and the headers in localStorage only once they are edited, and on the next load
// opens a new tab when what it kept matches no kept tab: after pasting a key and running the default operation,
// a reload would land on an empty tab. Keeping both defaults from the start lets every kept tab match.
for (const [key, value] of [
  ['graphiql:query', DEFAULT_QUERY],
  ['graphiql:headers', DEFAULT_HEADERS],
] as const) {
  if (localStorage.getItem(key) === null) localStorage.setItem(key, value);
}

const container = document.getElementById('graphiql');
if (!container) throw new Error('index.html has a #graphiql element');
createRoot(container).render(
  <StrictMode>
    <GraphiQL
      fetcher={fetcher}
      defaultQuery={DEFAULT_QUERY}
      defaultHeaders={DEFAULT_HEADERS}
      shouldPersistHeaders
      schemaDescription
      defaultEditorToolsVisibility="headers"
    >
      <RefetchSchemaOnHeaders />
    </GraphiQL>
  </StrictMode>,
);
