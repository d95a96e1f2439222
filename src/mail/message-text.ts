/** What every message's text and HTML parts are written with. */

/** Escapes text for an HTML part. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** `23 November 2026, 19:40 UTC`: unambiguous for a reader anywhere. */
export function formatWhen(date: Date): string {
  const day = date.toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
  return `${day}, ${date.toISOString().slice(11, 16)} UTC`;
}
