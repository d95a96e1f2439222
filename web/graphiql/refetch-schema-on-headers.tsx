import { useGraphiQL, useGraphiQLActions } from '@graphiql/react';
import { useEffect, useRef } from 'react';

/** How long after the last change to the request headers the schema is fetched again. */
const SETTLE_MS = 500;

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * Fetches the schema again once the headers editor is ready and whenever its headers change (a pasted API key),
 * so that the Docs pane and completion follow the key with no click on "Re-fetch GraphQL schema". GraphiQL's
 * own first fetch runs before the editor exists, without the headers the browser kept.
 *
 * GraphiQL shows a failed schema fetch (401 without a key) in the response pane and leaves it there; once a
 * later fetch starts, that stale answer is cleared unless a run has replaced it.
 */
export function RefetchSchemaOnHeaders(): null {
  const headerEditor = useGraphiQL((state) => state.headerEditor);
  const responseEditor = useGraphiQL((state) => state.responseEditor);
  const fetchError = useGraphiQL((state) => state.fetchError);
  const actions = useGraphiQLActions();
  const shownError = useRef<string | null>(null);

  useEffect(() => {
    if (!headerEditor) return;
    void actions.introspect();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const subscription = headerEditor.onDidChangeModelContent(() => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (isJsonObject(headerEditor.getValue())) void actions.introspect();
      }, SETTLE_MS);
    });
    return () => {
      clearTimeout(timer);
      subscription.dispose();
    };
  }, [headerEditor, actions]);

  useEffect(() => {
    if (fetchError !== null) {
      shownError.current = fetchError;
      return;
    }
    if (shownError.current !== null && responseEditor?.getValue() === shownError.current) {
      responseEditor.setValue('');
    }
    shownError.current = null;
  }, [fetchError, responseEditor]);

  return null;
}
