import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';

/** Where file contents live. Local directory now; an S3-compatible store joins it for multi-node setups. */
export interface FileStore {
  put(storageKey: string, content: Uint8Array): Promise<void>;
  /** The content and its size, or undefined when nothing is stored under the key. */
  open(storageKey: string): Promise<{ stream: ReadStream; size: number } | undefined>;
}

/** Files kept under one directory (`<data dir>/files`). */
export function createLocalFileStore(root: string): FileStore {
  const base = resolve(root);
  const pathOf = (storageKey: string): string => {
    const path = resolve(join(base, storageKey));
    // Storage keys come from our own database, but a key must never reach outside the store.
    if (!path.startsWith(base + sep)) throw new Error(`storage key escapes the store: ${storageKey}`);
    return path;
  };
  return {
    async put(storageKey, content) {
      const path = pathOf(storageKey);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content);
    },
    async open(storageKey) {
      const path = pathOf(storageKey);
      try {
        const { size } = await stat(path);
        return { stream: createReadStream(path), size };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
  };
}
