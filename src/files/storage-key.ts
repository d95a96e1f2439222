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

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** `<organization id>/<uuid>.pdf` (signed documents, demo files) and `uploads/<uuid>.<extension>` (uploads). */
const PORTICO_KEY = new RegExp(`^(?:${UUID}|uploads)/${UUID}\\.[a-z0-9]{1,10}$`);

/**
 * Whether a stored key has the shape of the keys Portico makes (see PORTICO_KEY above). Whatever else a
 * bucket or a directory holds is not Portico's to remove, even where Portico's own rows do not name it.
 *
 * @example
 * isPorticoStorageKey('uploads/3b0c2c54-5a0e-4f0e-9d53-2d7a3c1b9e10.pdf'); // true
 * isPorticoStorageKey('backups/2026-11-30.tar'); // false
 */
export function isPorticoStorageKey(storageKey: string): boolean {
  return PORTICO_KEY.test(storageKey);
}
