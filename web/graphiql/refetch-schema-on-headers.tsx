import { useGraphiQL, useGraphiQLActions } from '@graphiql/react';
import { useEffect } from 'react';

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
 */
export function RefetchSchemaOnHeaders(): null {
  const headerEditor = useGraphiQL((state) => state.headerEditor);
  const actions = useGraphiQLActions();
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
  return null;
}
