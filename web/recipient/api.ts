// The portal's calls to the recipient routes (`/recipient/<token>/…`, src/transactions/recipients/routes.ts):
// the link's token in the path is the only credential, so no cookie goes along.

import { ApiError, apiError, fetchJson, networkError } from '../shared/api-error.ts';
import type { RecipientView, SavedItem, SignAnswer, SubmitAnswer, UploadAnswer } from './types.ts';

export { ApiError };

/** The recipient routes of one link. */
export interface RecipientApi {
  view(): Promise<RecipientView>;
  /** Saves an item's answers, partial or whole (a draft). */
  saveItem(vulcanKey: string, data: Record<string, unknown>): Promise<SavedItem>;
  /** Uploads a file to an item's field, reporting how much was sent (0 to 1). */
  upload(
    vulcanKey: string,
    field: string,
    file: File,
    progress: (fraction: number) => void,
    signal: AbortSignal,
  ): Promise<UploadAnswer>;
  sign(documentKey: string, signature: { signedName: string; consent: boolean }): Promise<SignAnswer>;
  submit(processKey: string): Promise<SubmitAnswer>;
}

const part = encodeURIComponent;

/**
 * The recipient routes of the link whose token is `token`. Each call answers the route's body or throws an
 * {@link ApiError}: the route's own, or NETWORK_ERROR.
 *
 * @example
 * const view = await recipientApi(token).view();
 */
export function recipientApi(token: string): RecipientApi {
  const base = `/recipient/${part(token)}`;
  const call = async <T>(method: 'GET' | 'PUT' | 'POST', path: string, body?: object): Promise<T> => {
    const answer = await fetchJson(`${base}${path}`, { method, headers: {}, body, credentials: 'omit' });
    if (!answer.ok) throw apiError(answer.status, answer.body);
    return answer.body as T;
  };
  return {
    view: () => call<RecipientView>('GET', ''),
    saveItem: (vulcanKey, data) => call<SavedItem>('PUT', `/items/${part(vulcanKey)}`, { data }),
    sign: (documentKey, signature) =>
      call<SignAnswer>('POST', `/documents/${part(documentKey)}/signatures`, signature),
    submit: (processKey) => call<SubmitAnswer>('POST', `/processes/${part(processKey)}/submit`),
    upload: (vulcanKey, field, file, progress, signal) =>
      sendFile(`${base}/items/${part(vulcanKey)}/files/${part(field)}`, file, progress, signal),
  };
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
