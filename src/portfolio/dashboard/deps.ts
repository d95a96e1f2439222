import type { PageDrawer } from '../../http/drawing/page-drawing.ts';
import type { SessionLimits } from '../../accounts/sessions.ts';
import type { Database } from '../../db/database.ts';
import type { SignedInPerson } from '../../http/signed-in/person.ts';
import type { Cursors } from '../cursor.ts';
import type { PeopleMail } from '../people.ts';

/** What the customer dashboard's routes are built with (`registerDashboard`, and each routes file). */
export interface DashboardDeps {
  db: Database;
  cursors: Cursors;
  /** Invitations and password resets go out by this mail, with links to this address. */
  mail: PeopleMail;
  /** How long its sessions last (PORTICO_SESSION_IDLE_MINUTES, PORTICO_SESSION_MAX_HOURS). @default DEFAULT_SESSION_LIMITS */
  sessionLimits?: SessionLimits | undefined;
  /** The built front end. @default web/dist of this checkout */
  distDir?: string | undefined;
  /** What draws its pages on the server (http/drawing/); tests give one that waits longer. @default pageDrawer() */
  pageDrawer?: PageDrawer | undefined;
}

/** The person behind a dashboard request, and their instance (`{ user, instance }`). */
export type DashboardCaller = SignedInPerson<'instance'>;
