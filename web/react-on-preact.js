// What the pages import as `react` (web/vite.config.ts aliases it, and `react-dom`, to Preact's compat layer): Preact
// renders the same components in a tenth of react-dom's bytes (about 10 KiB compressed against 60), which is what
// lets a page load within 150 KiB of script on a phone. Types still come from @types/react; GraphiQL, which
// needs React's own compiler runtime, keeps React. JavaScript rather than TypeScript: Preact's compat types are an
// `export =`, which TypeScript does not let a module re-export with `export *`.
export * from 'preact/compat';
export { default } from 'preact/compat';

/**
 * React 19's `useOptimistic`, which Preact lacks, for react-router's data-mode `RouterProvider` that imports it.
 * The pages use the declarative `BrowserRouter`, which never calls it; should anything call it, the state is shown
 * as it is, without the optimistic update (what React shows once the update's transition ends).
 *
 * @template State
 * @param {State} state
 * @returns {[State, (action: unknown) => void]}
 */
export function useOptimistic(state) {
  return [state, () => undefined];
}
