// What the console's JSON routes take and answer, from their contract (src/transactions/console/contract.ts)
// through type-only imports: no server code enters the bundle. Times are ISO 8601 strings.

import type { SuccessOf } from '../../src/http/contract.ts';
import type { ConsoleRoutes, ConsoleUser } from '../../src/transactions/console/contract.ts';

export type {
  ConsoleUser,
  OrganizationSummary,
  TeamMember,
} from '../../src/transactions/console/contract.ts';
export type Role = ConsoleUser['role'];

/** GET and POST /session: who is signed in (both null when no one is) and the CSRF token. */
export type SessionAnswer = SuccessOf<ConsoleRoutes['session']>;
export type TeamAnswer = SuccessOf<ConsoleRoutes['listTeam']>;
/** POST /team (201): the person invited. */
export type InvitedAnswer = SuccessOf<ConsoleRoutes['invite']>;
export type DeactivatedAnswer = SuccessOf<ConsoleRoutes['deactivate']>;
