// GraphiQL for the Transactions API, served by Portico itself at /graphiql: every script, style sheet, font and
// Monaco editor worker comes from this origin, so the page works without internet access. This entry is a few
// bytes: it shows the operation at once (loading.ts), then loads GraphiQL (app.tsx).
// GraphiQL's own styles without the fonts that graphiql/style.css carries as base64 (340 KiB compressed, read
// before the page could show): the page uses the system's fonts. Monaco's styles come with Monaco.
import '@graphiql/react/style.css';
import 'graphiql/graphiql.css';
import './graphiql.css';
import { DEFAULT_QUERY, keepDefaults } from './defaults.ts';
import { showLoadFailed, showLoading } from './loading.ts';

keepDefaults();
showLoading(localStorage.getItem('graphiql:query') ?? DEFAULT_QUERY);
import('./app.tsx').catch(showLoadFailed);
// Monaco, which GraphiQL asks for only once it has rendered (@graphiql/react's stores/monaco.ts), asked for now, the
// same modules, so that the megabyte of editor comes while GraphiQL loads rather than after it. Should it fail,
// GraphiQL's own request fails the same way, and says so.
Promise.all([import('monaco-graphql/esm/monaco-editor.js'), import('monaco-graphql/esm/lite.js')]).catch(
  () => undefined,
);
