import { PorticoError } from '../errors.ts';
import { send, type TransportOptions } from '../transport.ts';
import { apiErrorOfResponse } from '../api-error.ts';

/** A file read through a signed link, as it arrives: nothing is buffered. */
export interface SignedFile {
  /** The file's bytes; read it to the end or cancel it. */
  stream: ReadableStream<Uint8Array>;
  /** The media type, e.g. `application/pdf`. */
  contentType: string;
  /** The size in bytes, or null when the answer did not say. */
  size: number | null;
  /** The name to save it under (the override name, else the name as uploaded), or null when not said. */
  filename: string | null;
}

/** The file name of a `Content-Disposition` header: its UTF-8 `filename*`, else its `filename`. */
export function filenameOf(disposition: string | null): string | null {
  if (disposition === null) return null;
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (extended?.[1] !== undefined) {
    try {
      return decodeURIComponent(extended[1]);
    } catch {
      // A malformed escape: the plain name below serves.
    }
  }
  return /filename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
}

/**
 * Reads a signed link (`File.signedUrl`, `genTransactionFileLink`'s `url`) as a stream. The link is its own
 * credential, so no API key is sent with it. A refused link (403 FORBIDDEN once expired or changed) throws
 * `PorticoApiError`.
 */
export async function fetchSignedFile(
  url: string,
  options: TransportOptions & { signal?: AbortSignal | undefined },
): Promise<SignedFile> {
  if (!url.startsWith('https:')) throw new PorticoError('A signed link is an https URL.');
  const response = await send(
    url,
    { method: 'GET' },
    { repeatable: true, signal: options.signal, streaming: true },
    options,
  );
  if (!response.ok) throw await apiErrorOfResponse(response);
  if (response.body === null) throw new PorticoError('The signed link answered without a body.');
  const length = response.headers.get('content-length');
  return {
    stream: response.body,
    contentType: response.headers.get('content-type') ?? 'application/octet-stream',
    size: length !== null && /^\d+$/.test(length) ? Number(length) : null,
    filename: filenameOf(response.headers.get('content-disposition')),
  };
}
