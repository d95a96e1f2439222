// GraphiQL for the Transactions API, served by Portico itself at /graphiql: every script, style sheet, font and
// Monaco editor worker comes from this origin, so the page works without internet access.
import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import './graphiql.css';
import { GraphiQL, type GraphiQLProps } from 'graphiql';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

/** The GraphQL endpoint, on the origin that served this page. */
const GRAPHQL_PATH = '/beta';

/** Shown in the headers editor until the user saves their own headers (they persist in localStorage). */
const DEFAULT_HEADERS = `{
  "Authorization": "Bearer sk_test_…"
}`;

const DEFAULT_QUERY = `# The Portico Transactions API.
#
# 1. Paste your API key into the Headers tab below, after "Bearer ".
#    The headers are kept in this browser (Settings → "Persist headers").
# 2. Run this query with Ctrl-Enter (Cmd-Enter on a Mac) or the ▶ button.
# 3. Open the Docs (book icon, top left) to browse every type and field.

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

const container = document.getElementById('graphiql');
if (!container) throw new Error('index.html has a #graphiql element');
createRoot(container).render(
  <StrictMode>
    <GraphiQL
      fetcher={fetcher}
      defaultQuery={DEFAULT_QUERY}
      defaultHeaders={DEFAULT_HEADERS}
      shouldPersistHeaders
      defaultEditorToolsVisibility="headers"
    />
  </StrictMode>,
);
