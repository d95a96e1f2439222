import type { PageDrawer } from '../../http/drawing/page-drawing.ts';
import type { SessionLimits } from '../../accounts/sessions.ts';
import type { Database } from '../../db/database.ts';
import type { FileLinks } from '../../files/file-links.ts';
import type { FileStore } from '../../files/file-store.ts';
import type { SignedInPerson } from '../../http/signed-in/person.ts';
import type { Mailer } from '../../mail/mailer.ts';
import type { RecipientNotices } from '../recipients/notice-sender.ts';
import type { DocumentWorkers } from '../documents/document-workers.ts';
import type { KickedRuns } from '../../jobs/kicked-runs.ts';
import { originOf, type Actor } from '../actor.ts';

/** What the organization console's routes are built with (`registerConsole`, and each routes file). */
export interface ConsoleDeps {
  db: Database;
  /** Invitations and password resets go out by this mailer. */
  mailer: Mailer;
  /** The Transactions service's public base address (no trailing slash), for links in mail. */
  transactionsUrl: () => string;
  /** Where signed documents are stored (a countersignature made in the console). */
  files: FileStore;
  /** The threads a countersignature's signed copy is made in. @default the process's (documents/document-workers.ts) */
  documentWorkers?: DocumentWorkers | undefined;
  /** The largest paper form staff may upload, as a recipient's upload (PORTICO_UPLOAD_MAX_MB). @default DEFAULT_UPLOAD_MAX_BYTES */
  uploadMaxBytes?: number | undefined;
  /** Signs the download links of a transaction's files. */
  links: FileLinks;
  /** The runner of closings' rows, told when a closing is run (closings/closing-runs.ts). */
  closingRuns?: Pick<KickedRuns<unknown>, 'kick'> | undefined;
  /** The runner of bulk actions, told when one is made (bulk/bulk-runs.ts). */
  bulkRuns?: Pick<KickedRuns<unknown>, 'kick'> | undefined;
  /** The sender of recipients' mail, told when an action queued some (a reminder, a new link). */
  recipientNotices?: Pick<RecipientNotices, 'kick'> | undefined;
  /** The live streams' heartbeat and cap (live-streams.ts); tests shorten the heartbeat. */
  live?: { heartbeatMs?: number | undefined; streamsPerPerson?: number | undefined } | undefined;
  /** How long its sessions last (PORTICO_SESSION_IDLE_MINUTES, PORTICO_SESSION_MAX_HOURS). @default DEFAULT_SESSION_LIMITS */
  sessionLimits?: SessionLimits | undefined;
  /** The built front end. @default web/dist of this checkout */
  distDir?: string | undefined;
  /** What draws its pages on the server (http/drawing/); tests give one that waits longer. @default pageDrawer() */
  pageDrawer?: PageDrawer | undefined;
}

/** The person behind a console request, and their organization (`{ user, organization }`). */
export type ConsoleCaller = SignedInPerson<'organization'>;

/**
 * The caller as the actor of what they change: the request that changes it, and where it came from, as their
 * history entries keep it.
 */
export function consoleActor(
  caller: ConsoleCaller,
  request: { id: string; ip: string; headers: { 'user-agent'?: string | undefined } },
): Actor & { type: 'user'; id: string } {
  return {
    type: 'user',
    id: caller.user.id,
    requestId: request.id,
    origin: originOf(request, `signed in to the console as ${caller.user.email}`),
  };
}
