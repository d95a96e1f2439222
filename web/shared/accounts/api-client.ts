// A page's calls to its JSON routes (the dashboard's under /dashboard/api, the console's under /console/api): the
// session cookie rides along by itself (HttpOnly, never visible here); the CSRF token of the latest answer that
// carried one goes in `x-csrf-token` on every request that changes something.

import type { TOptional, TString, TUnsafe } from '@sinclair/typebox';
import type { accountRoutes } from '../../../src/http/signed-in/account-contract.ts';
import { ApiError, apiError, networkError } from '../api-error.ts';
import {
  contractClient,
  fetchJson,
  type AnswerOf,
  type ApiRequest,
  type ContractClient,
  type InputArgs,
  type RouteName,
} from '../contract-client.ts';

/**
 * The account routes of a surface whose session answer is `Answer` (src/http/signed-in/account-contract.ts), its
 * sign-in naming the chosen tenant in a field of the surface's own.
 */
export type AccountRoutes<Answer> = ReturnType<
  typeof accountRoutes<TUnsafe<Answer>, Record<string, TOptional<TString>>>
>;

/** The routes of `Contract` that take a file: their entry `consumes` multipart/form-data. */
export type UploadRouteName<Contract> = {
  [Key in keyof Contract]: Contract[Key] extends {
    method: infer Method extends string;
    url: infer Path extends string;
    consumes: unknown;
  }
    ? `${Method} ${Path}`
    : never;
}[keyof Contract] &
  RouteName<Contract>;

/**
 * Sends `file` to a route that takes one, as the one part `file` of a multipart/form-data body, with the session's
 * CSRF token as every change has it; answers the route's 2xx answer, or throws an {@link ApiError} as the JSON
 * calls do (an ended session too). Files sent beside it (a template's fund PDFs: `[template, ...pdfs]`) follow as
 * parts `attachment`.
 */
export type UploadClient<Contract> = <Name extends UploadRouteName<Contract>>(
  name: Name,
  file: File | readonly [File, ...File[]],
  ...input: InputArgs<Contract, Name>
) => Promise<AnswerOf<Contract, Name>>;

/** The JSON routes of a surface, and who to tell when one says the session has ended. */
export interface ApiClient {
  /**
   * The calls of the surface's routes, typed by a contract: the surface's own, or the account routes' for the
   * shared account pages (see {@link ContractClient}).
   */
  routes: <Contract>() => ContractClient<Contract>;
  /**
   * The uploads of the surface's routes that take a file, typed by its contract (see {@link UploadClient}).
   *
   * @example
   * const consoleUpload = client.uploads<ConsoleRoutes>();
   * const { paperForm } = await consoleUpload('POST /transactions/:id/paper-forms', file, { params: { id } });
   */
  uploads: <Contract>() => UploadClient<Contract>;
  /** Who to tell when a route of a signed-in person answers 401: the session has ended (expired, signed out elsewhere). */
  whenSessionEnds: (callback: () => void) => void;
}

/**
 * The routes about the session itself (`accountRoutes`, src/http/signed-in/account-contract.ts): their 401 is an answer
 * about a sign-in, not a session that ended under a signed-in page.
 */
const ACCOUNT_PATHS: ReadonlySet<string> = new Set<
  AccountRoutes<unknown>[keyof AccountRoutes<unknown>]['url']
>(['/session', '/invitation', '/password-reset', '/password-reset/confirm']);

/** The words the pages show when the server says the session has ended. */
export const SESSION_ENDED = 'Your session has ended. Sign in again to go on.';

/** What a refused request says once the session has ended: it changed nothing, and may be sent again. */
const NOT_SENT =
  'This was not sent: your session had ended. Once you are signed in again, send it once more.';

/** Whether a session answer (`GET /session`, whatever the surface) says that no one is signed in. */
function noOneSignedIn(answer: unknown): boolean {
  return typeof answer === 'object' && answer !== null && 'user' in answer && answer.user === null;
}

/**
 * The client of the JSON routes under `apiPath`, on the origin that served the page.
 *
 * @example
 * export const client = createApiClient('/console/api');
 * export const consoleApi = client.routes<ConsoleRoutes>();
 * const { people } = await consoleApi('GET /team');
 */
export function createApiClient(apiPath: string): ApiClient {
  let csrfToken: string | undefined;
  let onSessionEnded: (() => void) | undefined;

  /** The CSRF token's header, on a request that changes something. */
  function tokenHeader(method: string): Record<string, string> {
    return method !== 'GET' && csrfToken !== undefined ? { 'x-csrf-token': csrfToken } : {};
  }

  async function send({ method, path, url, body }: ApiRequest): Promise<unknown> {
    const headers = tokenHeader(method);
    return settle(path, await fetchJson(url, { method, headers, body, credentials: 'same-origin' }));
  }

  /** POSTs a file as multipart/form-data, one part `file` (the browser writes the body's content-type). */
  async function sendFile(path: string, url: string, file: File | readonly File[]): Promise<unknown> {
    const form = new FormData();
    const [first, ...attachments]: readonly File[] = file instanceof File ? [file] : file;
    if (first !== undefined) form.append('file', first, first.name);
    for (const attachment of attachments) form.append('attachment', attachment, attachment.name);
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { accept: 'application/json', ...tokenHeader('POST') },
        body: form,
        credentials: 'same-origin',
        cache: 'no-store',
      });
    } catch {
      throw networkError();
    }
    // An answer that is not JSON (a proxy's page, say) reads as one that gave no reason.
    const body: unknown = await response.json().catch(() => undefined);
    return settle(path, { ok: response.ok, status: response.status, body });
  }

  /**
   * Takes in an answer: keeps the CSRF token it carries, and answers its body when it is ok, else throws its
   * {@link ApiError} (after telling who listens when it says the session has ended).
   */
  async function settle(
    path: string,
    answer: { ok: boolean; status: number; body: unknown },
  ): Promise<unknown> {
    const parsed = answer.body;
    if (
      parsed &&
      typeof parsed === 'object' &&
      'csrfToken' in parsed &&
      typeof parsed.csrfToken === 'string'
    ) {
      csrfToken = parsed.csrfToken;
    }
    if (!answer.ok) {
      const error = apiError(answer.status, parsed);
      if (ACCOUNT_PATHS.has(path) || !(await sessionHasEnded(error))) throw error;
      onSessionEnded?.();
      // Read beside the form it was sent from, before and after signing in again.
      throw new ApiError(401, 'UNAUTHENTICATED', NOT_SENT, error.requestId);
    }
    return parsed;
  }
  const accounts = contractClient<AccountRoutes<unknown>>(apiPath, send);

  /**
   * Whether a route's refusal means that the session has ended: UNAUTHENTICATED says so; CSRF_INVALID may, as a
   * request that changes something is checked for its token before the route looks for the person, and an ended
   * session holds no token. Then `GET /session` tells (and hands a fresh token either way).
   */
  async function sessionHasEnded(error: ApiError): Promise<boolean> {
    if (error.code === 'UNAUTHENTICATED') return true;
    if (error.code !== 'CSRF_INVALID') return false;
    try {
      return noOneSignedIn(await accounts('GET /session'));
    } catch {
      return false;
    }
  }

  /** A contract's uploads: each named as its JSON calls are, its address made as theirs is. */
  function uploads<Contract>(): UploadClient<Contract> {
    // `UploadClient` says what each name takes and answers; the contract, not this function, holds to it.
    const { urlOf } = contractClient<Contract>(apiPath, send) as unknown as {
      urlOf: (name: string, input?: object) => string;
    };
    const upload = (name: string, file: File | readonly File[], input?: object) =>
      sendFile(name.split(' ')[1] ?? '', urlOf(name, input), file);
    return upload as unknown as UploadClient<Contract>;
  }

  return {
    routes: () => contractClient(apiPath, send),
    uploads,
    whenSessionEnds: (callback) => {
      onSessionEnded = callback;
    },
  };
}

export { ApiError };
