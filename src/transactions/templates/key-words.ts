/**
 * Keys in words: how a state, an event or a field is named for people when its template gives no title —
 * `in_review` → "in review", `request_changes` → "Request changes". Shared by the server's messages (a refusal's
 * reason in the console) and the console's pages, so that both name a key alike.
 */

/** `in_review` → "in review", `request_changes` → "request changes", `legalName` → "legal name". */
export function words(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.-]+/g, ' ')
    .toLowerCase()
    .trim();
}

/** {@link words} with a capital first letter, for a label or a button: "Request changes". */
export function label(key: string): string {
  return capitalized(words(key));
}

/** A text with a capital first letter, for a label or a tab: "in review" → "In review". */
export function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
