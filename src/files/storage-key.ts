/**
 * Refuses a storage key that could reach outside its store: empty, absolute, with `.` or `..` segments, empty
 * segments, backslashes or control characters. Keys come from our own database (`<organization id>/<uuid>.pdf`),
 * so a refused key is a bug, never a client's mistake. In a directory `..` would climb out of the root; in a
 * bucket a server or proxy that normalizes paths would read another key, or another bucket's.
 */
export function assertStorageKey(storageKey: string): void {
  const segments = storageKey.split('/');
  const bad =
    storageKey.length === 0 ||
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
    /[\\\u0000-\u001f\u007f]/.test(storageKey) ||
    segments.some((segment) => segment === '' || segment === '.' || segment === '..');
  if (bad) throw new Error(`storage key escapes the store or is malformed: ${JSON.stringify(storageKey)}`);
}
