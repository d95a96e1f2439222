// What GraphiQL opens with before the user has edited anything, and keeps in localStorage from the first visit.

/** Shown in the headers editor until the user saves their own headers (they persist in localStorage). */
export const DEFAULT_HEADERS = `{
  "Authorization": "Bearer YOUR_API_KEY"
}`;

export const DEFAULT_QUERY = `# Portico Transactions API
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

/**
 * Keeps both defaults in localStorage from the first visit: GraphiQL keeps the operation and the headers only once
 * they are edited, and on the next load opens a new tab when what it kept matches no kept tab, so after pasting a
 * key and running the default operation a reload would land on an empty tab. Keeping both lets every kept tab match.
 */
export function keepDefaults(): void {
  for (const [key, value] of [
    ['graphiql:query', DEFAULT_QUERY],
    ['graphiql:headers', DEFAULT_HEADERS],
  ] as const) {
    if (localStorage.getItem(key) === null) localStorage.setItem(key, value);
  }
}
