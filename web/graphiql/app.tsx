// GraphiQL itself, loaded by main.tsx once the page shows the operation: Monaco's workers, the fetcher, and the
// editor that replaces the operation's text once it is ready (see main.tsx).
import 'graphiql/setup-workers/vite';
import { GraphiQL, type GraphiQLProps } from 'graphiql';
import { useGraphiQL } from '@graphiql/react';
import { StrictMode, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { DEFAULT_HEADERS, DEFAULT_QUERY } from './defaults.ts';
import { RefetchSchemaOnHeaders } from './refetch-schema-on-headers.tsx';
import { hideLoading } from './loading.ts';

/** The GraphQL endpoint, on the origin that served this page. */
const GRAPHQL_PATH = '/beta';

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

/** Takes main.tsx's view of the operation away once Monaco's editor stands in its place. */
function HideLoadingOnceEditorIsReady(): null {
  const queryEditor = useGraphiQL((state) => state.queryEditor);
  useEffect(() => {
    if (queryEditor) hideLoading();
  }, [queryEditor]);
  return null;
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
      <HideLoadingOnceEditorIsReady />
    </GraphiQL>
  </StrictMode>,
);
