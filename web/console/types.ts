// What the console's JSON routes take and answer, from their contract (src/transactions/console/contract.ts)
// through type-only imports: no server code enters the bundle. Times are ISO 8601 strings.

import type { Static } from '@sinclair/typebox';
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

export type {
  EventPreview,
  ProcessReview,
  RecipientProgress,
  ReviewComment,
  TimelineEntry,
  TransactionDetail,
  TransactionFile,
  WorkflowPanel,
} from '../../src/transactions/console/contract.ts';

export type WorkflowAnswer = SuccessOf<ConsoleRoutes['workflow']>;
/** GET /queue/export's filters and format. */
export type ExportQuery = Static<ConsoleRoutes['exportQueue']['querystring']>;
/** POST /transactions/:id/events: the move made. */
export type EventRunAnswer = SuccessOf<ConsoleRoutes['runEvent']>;
export type { PendingApproval } from '../../src/transactions/console/contract.ts';
export type ReviewAnswer = SuccessOf<ConsoleRoutes['review']>;
export type TimelineAnswer = SuccessOf<ConsoleRoutes['timeline']>;
/** The kinds of a timeline's entries (workflow, recipient, mail, webhook, api, console). */
export type TimelineKind = TimelineAnswer['entries'][number]['kind'];
/** Who acted in a timeline's entry: a person, an API key, the recipient, or Portico. */
export type ActorType = TimelineAnswer['entries'][number]['actor']['type'];

export type { QueueRow, QueueTab } from '../../src/transactions/console/contract.ts';
export type { TeamActivityEntry } from '../../src/transactions/console/contract.ts';
/** GET and PUT /alerts: the person's own mail alerts. */
export type AlertsAnswer = SuccessOf<ConsoleRoutes['readAlerts']>;
