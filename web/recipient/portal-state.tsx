// The transaction as the portal knows it: read once from the view route, then kept up to date by what the
// other routes answer (saves, uploads) or read again after a step that changes more (signing, submitting).

import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { ApiErrorCode } from '../shared/api-error.ts';
import { ApiError, recipientApi } from './api.ts';
import { stepsOf, type Step } from './steps.ts';
import type { RecipientView, SavedItem, UploadedFile } from './types.ts';

export interface Portal {
  /** The link's token: the recipient routes' credential, in their path. */
  token: string;
  view: RecipientView;
  steps: Step[];
  /** The address of a step (or of the overview, with no path) inside the router: `/<token>/<path>`. */
  href: (path?: string) => string;
  /** Reads the view again (after signing or submitting); refusals are thrown. */
  reload: () => Promise<void>;
  /** Takes in an item's saved answers and completion, and a file uploaded to it. */
  itemSaved: (processKey: string, saved: SavedItem, file?: UploadedFile) => void;
  /**
   * Handles a refusal that is about the link or the revision rather than the action: a link that no longer
   * works becomes the page that says so; answers submitted meanwhile (another tab) are read again. Answers
   * whether it handled the error.
   */
  handleStale: (error: ApiError) => boolean;
}

/** Refusals that mean the link no longer opens the transaction (a void included: its page says why). */
export const LINK_REFUSALS = new Set<ApiErrorCode>([
  'NOT_FOUND',
  'LINK_EXPIRED',
  'LINK_REVOKED',
  'TRANSACTION_VOIDED',
]);

const PortalContext = createContext<Portal | undefined>(undefined);

/** The portal of the link the page is on. */
export function usePortal(): Portal {
  const portal = useContext(PortalContext);
  if (!portal) throw new Error('usePortal outside <PortalProvider>');
  return portal;
}

/** Reading the view: on its way, read, or refused (the link is unknown, replaced, expired…). */
export type ViewState =
  { status: 'loading' } | { status: 'ready'; view: RecipientView } | { status: 'failed'; error: ApiError };

/** The view of the link whose token is `token` (`GET /recipient/:token`). */
function readView(token: string): Promise<RecipientView> {
  return recipientApi('GET /recipient/:token', { params: { token } });
}

/** Reads the view of the link, and reads it again on `retry`. */
export function useRecipientView(token: string): {
  state: ViewState;
  setView: (update: (view: RecipientView) => RecipientView) => void;
  retry: () => void;
  fail: (error: ApiError) => void;
} {
  const [state, setState] = useState<ViewState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    // Set false when the effect is undone (StrictMode runs it twice, the link changes): its answer then goes.
    let current = true;
    setState({ status: 'loading' });
    readView(token).then(
      (view) => {
        if (current) setState({ status: 'ready', view });
      },
      (error: unknown) => {
        if (!current) return;
        if (error instanceof ApiError) setState({ status: 'failed', error });
        else throw error;
      },
    );
    return () => {
      current = false;
    };
  }, [token, attempt]);
  const setView = useCallback((update: (view: RecipientView) => RecipientView) => {
    setState((now) => (now.status === 'ready' ? { status: 'ready', view: update(now.view) } : now));
  }, []);
  const retry = useCallback(() => {
    setAttempt((n) => n + 1);
  }, []);
  const fail = useCallback((error: ApiError) => {
    setState({ status: 'failed', error });
  }, []);
  return { state, setView, retry, fail };
}

export function PortalProvider({
  token,
  view,
  setView,
  fail,
  children,
}: {
  token: string;
  view: RecipientView;
  setView: (update: (view: RecipientView) => RecipientView) => void;
  fail: (error: ApiError) => void;
  children: ReactNode;
}) {
  const reload = useCallback(async () => {
    const fresh = await readView(token);
    setView(() => fresh);
  }, [token, setView]);
  const itemSaved = useCallback(
    (processKey: string, saved: SavedItem, file?: UploadedFile) => {
      setView((now) => ({
        ...now,
        processes: now.processes.map((process) =>
          process.key !== processKey
            ? process
            : {
                ...process,
                items: process.items.map((item) =>
                  item.vulcanKey !== saved.vulcanKey
                    ? item
                    : {
                        ...item,
                        data: saved.data,
                        completionPercentage: saved.completionPercentage,
                        consents: saved.consents,
                        files: file
                          ? [file, ...item.files.filter((each) => each.id !== file.id)]
                          : item.files,
                      },
                ),
              },
        ),
      }));
    },
    [setView],
  );
  const handleStale = useCallback(
    (error: ApiError) => {
      if (LINK_REFUSALS.has(error.code)) {
        fail(error);
        return true;
      }
      if (error.code === 'REVISION_SUBMITTED') {
        reload().catch((failure: unknown) => {
          if (failure instanceof ApiError) fail(failure);
        });
        return true;
      }
      return false;
    },
    [fail, reload],
  );
  const value = useMemo<Portal>(
    () => ({
      token,
      view,
      steps: stepsOf(view),
      href: (path) => `/${encodeURIComponent(token)}${path === undefined ? '' : `/${path}`}`,
      reload,
      itemSaved,
      handleStale,
    }),
    [token, view, reload, itemSaved, handleStale],
  );
  return <PortalContext.Provider value={value}>{children}</PortalContext.Provider>;
}
