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

/** GET /transactions/:id: the transaction with its recipients' progress and its files. */
export type TransactionAnswer = SuccessOf<ConsoleRoutes['readTransaction']>;
export type WorkflowAnswer = SuccessOf<ConsoleRoutes['workflow']>;
export type PreviewAnswer = SuccessOf<ConsoleRoutes['previewEvent']>;
/** POST /transactions/:id/events: the move made. */
export type EventRunAnswer = SuccessOf<ConsoleRoutes['runEvent']>;
/** POST /approvals/<id>/approve: the event asked for ran. */
export type ApproveAnswer = SuccessOf<ConsoleRoutes['approve']>;
export type { PendingApproval } from '../../src/transactions/console/contract.ts';
export type ReviewAnswer = SuccessOf<ConsoleRoutes['review']>;
export type CommentAnswer = SuccessOf<ConsoleRoutes['addComment']>;
export type ResolvedAnswer = SuccessOf<ConsoleRoutes['resolveComment']>;
export type SignAnswer = SuccessOf<ConsoleRoutes['sign']>;
export type RemindAnswer = SuccessOf<ConsoleRoutes['remind']>;
export type ResetLinkAnswer = SuccessOf<ConsoleRoutes['resetLink']>;
export type LinkExpiryAnswer = SuccessOf<ConsoleRoutes['setLinkExpiry']>;
export type TimelineAnswer = SuccessOf<ConsoleRoutes['timeline']>;
/** The kinds of a timeline's entries (workflow, recipient, mail, webhook, api, console). */
export type TimelineKind = TimelineAnswer['entries'][number]['kind'];
/** Who acted in a timeline's entry: a person, an API key, the recipient, or Portico. */
export type ActorType = TimelineAnswer['entries'][number]['actor']['type'];

/** GET /queue: a page of transactions, with the tabs on a list's first page. */
export type QueueAnswer = SuccessOf<ConsoleRoutes['queue']>;
/** GET /queue/options: the templates, senders and people the filters offer. */
export type QueueOptions = SuccessOf<ConsoleRoutes['queueOptions']>;
export type { QueueRow, QueueTab } from '../../src/transactions/console/contract.ts';
/** GET /team/activity: what the team did, newest first. */
export type TeamActivityAnswer = SuccessOf<ConsoleRoutes['teamActivity']>;
export type { TeamActivityEntry } from '../../src/transactions/console/contract.ts';
/** PUT /transactions/<id>/assignee: who looks after it now. */
export type AssignAnswer = SuccessOf<ConsoleRoutes['assign']>;
