// The portal's calls to the recipient routes (`/recipient/<token>/…`, src/transactions/recipients/routes.ts), typed
// by their contract: the link's token in the path is the only credential, so no cookie goes along.

import type { Static } from '@sinclair/typebox';
import type { RecipientRoutes } from '../../src/transactions/recipients/contract.ts';
import { ApiError, apiError, networkError } from '../shared/api-error.ts';
import { contractClient, sendWithoutCookies } from '../shared/contract-client.ts';
import type { UploadAnswer } from './types.ts';

export { ApiError };

/**
 * Calls a recipient route, e.g.
 * `await recipientApi('POST /recipient/:token/processes/:processKey/submit', { params: { token, processKey } })`.
 */
export const recipientApi = contractClient<RecipientRoutes>('', sendWithoutCookies);

/**
 * Uploads a file to an item's field (`POST /recipient/:token/items/:vulcanKey/files/:field`, multipart/form-data),
 * reporting how much was sent (0 to 1); answers like {@link recipientApi}.
 */
export function uploadFile(
  params: Static<RecipientRoutes['upload']['params']>,
  file: File,
  progress: (fraction: number) => void,
  signal: AbortSignal,
): Promise<UploadAnswer> {
  const url = recipientApi.urlOf('POST /recipient/:token/items/:vulcanKey/files/:field', { params });
  return sendFile(url, file, progress, signal);
}

/**
 * POSTs a file as multipart/form-data (one part, `file`) with XMLHttpRequest, whose upload reports its
 * progress (fetch's does not).
 */
function sendFile<T>(
  url: string,
  file: File,
  progress: (fraction: number) => void,
  signal: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    request.setRequestHeader('accept', 'application/json');
    request.withCredentials = false;
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) progress(event.loaded / event.total);
    };
    request.onload = () => {
      let body: unknown;
      try {
        body = request.responseText === '' ? {} : JSON.parse(request.responseText);
      } catch {
        body = undefined;
      }
      if (request.status >= 200 && request.status < 300) resolve(body as T);
      else reject(apiError(request.status, body));
    };
    request.onerror = () => {
      reject(networkError());
    };
    request.onabort = () => {
      reject(new DOMException('The upload was cancelled.', 'AbortError'));
    };
    signal.addEventListener('abort', () => {
      request.abort();
    });
    const form = new FormData();
    form.append('file', file, file.name);
    request.send(form);
  });
}
