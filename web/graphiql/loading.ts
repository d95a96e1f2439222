// What the page shows while GraphiQL and its Monaco editor load (about a megabyte, seconds on a phone): the
// operation the editor will open with, as text, in plain DOM from main.tsx's few bytes, so that the page has its
// content at once. GraphiQL takes it away once its editor is ready (app.tsx).

const ID = 'graphiql-loading';

/** Shows `operation` over the page, with a status line saying that the editor is on its way. */
export function showLoading(operation: string): void {
  const overlay = document.createElement('div');
  overlay.id = ID;
  overlay.className = 'graphiql-loading';
  overlay.setAttribute('aria-busy', 'true');
  const status = document.createElement('p');
  status.className = 'graphiql-loading-status';
  status.setAttribute('role', 'status');
  status.textContent = 'Loading the editor…';
  const text = document.createElement('pre');
  text.className = 'graphiql-loading-operation';
  text.setAttribute('aria-label', 'Operation');
  text.textContent = operation;
  overlay.append(status, text);
  document.body.append(overlay);
}

/** Says that the editor could not load, and what to do; the operation stays readable. */
export function showLoadFailed(): void {
  const status = document.querySelector(`#${ID} [role="status"]`);
  if (status !== null) status.textContent = 'The editor could not load. Reload the page to try again.';
  document.getElementById(ID)?.removeAttribute('aria-busy');
}

/** Takes the loading view away: the editor is ready. */
export function hideLoading(): void {
  document.getElementById(ID)?.remove();
}
