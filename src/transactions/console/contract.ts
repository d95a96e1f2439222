// Kept as one file: the contract of one surface, as every surface has one: what each of the console's JSON
// routes takes and answers, found in one place by the page and the server.
import { Type, type Static } from '@sinclair/typebox';
import { CONSOLE_ROLES } from '../../accounts/roles.ts';
import { accountRoutes } from '../../http/signed-in/account-contract.ts';
import {
  AnyObject,
  answers,
  Body,
  OrNull,
  StrictBoolean,
  Timestamp,
  type RouteMethod,
} from '../../http/contract.ts';
import { ACTOR_TYPES, TIMELINE_KINDS } from '../history/kinds.ts';
import { STATE_STAGES } from './queue/queue.ts';
import { ENTITY_TYPES } from '../entity-types.ts';
import { MAX_INVITATION_NOTE_LENGTH, MAX_LINK_VALID_DAYS } from '../create-transaction.ts';
import { MAX_QUEUE_PAGE, MAX_QUEUE_SEARCH, QUEUE_SORTS } from './queue/queue-query.ts';
import { EXPORT_FORMATS } from './export/export-formats.ts';
import type { Permission } from './role-permissions.ts';
import { templateRoutes } from './templates/templates-contract.ts';
import { alertsRoutes } from './alerts/alerts-contract.ts';
import { bulkRoutes } from './bulk/bulk-contract.ts';
import { ssoSettingsRoutes } from '../../http/signed-in/sso-contract.ts';

/**
 * The contract of the organization console's JSON routes (`/console/api`): what each takes and answers (see
 * src/http/contract.ts). `web/console/types.ts` derives the page's types from it.
 */

const Role = Type.Union(CONSOLE_ROLES.map((role) => Type.Literal(role)));
const WithId = Type.Object({ id: Type.String({ format: 'uuid' }) });

/** Who must sign in with a second factor: nobody, everyone, or the people of the roles named. */
const SecondFactorPolicy = Type.Object({
  required: Type.Union([Type.Literal('nobody'), Type.Literal('everyone'), Type.Literal('roles')]),
  roles: Type.Array(Role, { maxItems: 10 }),
});

export const ConsoleUser = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: Role,
});
export type ConsoleUser = Static<typeof ConsoleUser>;
export const OrganizationSummary = Type.Object({ handle: Type.String(), name: Type.String() });
export type OrganizationSummary = Static<typeof OrganizationSummary>;

/** Who is signed in (both null when no one is) and the CSRF token for the next change. */
const SessionAnswer = Type.Object({
  csrfToken: Type.String(),
  user: OrNull(ConsoleUser),
  organization: OrNull(OrganizationSummary),
  /** The tenant requires a second factor of the person, who has none: the page leads them to add one. */
  secondFactorRequired: Type.Boolean(),
});

export const TeamMember = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: Role,
  /** Whether they have set a password (accepted their invitation). */
  active: Type.Boolean(),
  /** When an admin deactivated them; null while they may sign in. */
  deactivatedAt: OrNull(Timestamp()),
  createdAt: Timestamp(),
});
export type TeamMember = Static<typeof TeamMember>;

const OfTransaction = Type.Object({ id: Type.String({ format: 'uuid' }) });
/** Where a route of one transaction is (`/transactions/:id<path>`), who may call it, and its id in the path. */
const ofTransaction = <
  const Method extends RouteMethod,
  const Path extends string,
  const Access extends Permission,
>(
  method: Method,
  path: Path,
  access: Access,
) => ({ method, url: `/transactions/:id${path}` as const, access, params: OfTransaction });
const Time = Timestamp();
const OrNullTime = OrNull(Timestamp());

const ActorType = Type.Union(ACTOR_TYPES.map((type) => Type.Literal(type)));
const TimelineKind = Type.Union(TIMELINE_KINDS.map((kind) => Type.Literal(kind)));

export const RecipientProgress = Type.Object({
  id: Type.String(),
  role: Type.String(),
  name: Type.String(),
  email: OrNull(Type.String()),
  primary: Type.Boolean(),
  mail: OrNull(
    Type.Object({
      invitationDueAt: OrNullTime,
      invitedAt: OrNullTime,
      lastSent: OrNull(Type.Object({ message: Type.String(), at: Time })),
      failures: Type.Integer(),
      lastFailure: OrNull(Type.String()),
      nextReminderAt: OrNullTime,
      remindersSent: Type.Integer(),
      lastReminderAt: OrNullTime,
    }),
  ),
  openedAt: OrNullTime,
  percentDone: OrNull(Type.Integer()),
  submittedAt: OrNullTime,
  signedAt: OrNullTime,
  /**
   * Their latest act about electronic records and signatures (docs/esign-consent.md): agreed, withdrew, or asked
   * for paper, when, and what they wrote; null while they have done none (and for a sender role, which needs none).
   */
  esign: OrNull(
    Type.Object({
      act: Type.Union([
        Type.Literal('consented'),
        Type.Literal('withdrawn'),
        Type.Literal('paper_requested'),
      ]),
      at: Time,
      message: OrNull(Type.String()),
    }),
  ),
});
export type RecipientProgress = Static<typeof RecipientProgress>;

export const TransactionFile = Type.Object({
  id: Type.String(),
  /** An answer the recipient uploaded, a signed document, or a paper form staff received and uploaded. */
  kind: Type.Union([Type.Literal('upload'), Type.Literal('signed'), Type.Literal('paper')]),
  name: Type.String(),
  of: Type.String(),
  byteSize: OrNull(Type.Integer()),
  createdAt: Time,
  downloadPath: Type.String(),
});
export type TransactionFile = Static<typeof TransactionFile>;

/** Whether an action can be done now and, when it cannot, why, in the words its refusal says. */
const Availability = Type.Object({ allowed: Type.Boolean(), reason: OrNull(Type.String()) });

/** Where a transaction stands in its state, from its template's workflow (`stageOf` in queue/queue.ts). */
const StateStage = Type.Union(STATE_STAGES.map((stage) => Type.Literal(stage)));

export const TransactionDetail = Type.Object({
  id: Type.String(),
  state: Type.String(),
  stage: StateStage,
  template: Type.Object({
    id: Type.String(),
    key: Type.String(),
    name: Type.String(),
    version: Type.Integer(),
  }),
  sender: Type.Object({ id: Type.String(), name: Type.String() }),
  /** The investor (the page's heading): the primary recipient's entity's name. */
  investorName: Type.String(),
  /** The contact person, whom the mail goes to. */
  noticeName: Type.String(),
  noticeEmail: Type.String(),
  createdAt: Time,
  updatedAt: Time,
  completedAt: OrNullTime,
  linkExpiresAt: OrNullTime,
  assignee: OrNull(Type.Object({ id: Type.String(), name: Type.String() })),
  recipients: Type.Array(RecipientProgress),
  files: Type.Array(TransactionFile),
  /**
   * Whether each action on the recipient's link can be done now, and why not (the refusal it would get): the page
   * greys what cannot work.
   */
  linkActions: Type.Object({ remind: Availability, resetLink: Availability, setLinkExpiry: Availability }),
  /** The template's documents, with the role through which the sender signs each (null: recipients alone). */
  documents: Type.Array(
    Type.Object({
      key: Type.String(),
      title: OrNull(Type.String()),
      senderRole: OrNull(Type.String()),
      /** Submitted on paper: the paper form stands for its signatures, the sender's too. */
      onPaper: Type.Boolean(),
    }),
  ),
  /** How the page names the workflow's states and events: the template's titles, else the keys in words. */
  workflowTitles: Type.Object({
    states: Type.Record(Type.String(), Type.String()),
    events: Type.Record(Type.String(), Type.String()),
  }),
  /**
   * Its certificate of completion (docs/evidence.md): `due` while it is being made, then its file with a download
   * link; null before completion.
   */
  certificate: OrNull(
    Type.Union([
      Type.Object({ status: Type.Literal('due') }),
      Type.Object({
        status: Type.Literal('made'),
        name: Type.String(),
        madeAt: Time,
        downloadPath: Type.String(),
      }),
    ]),
  ),
});
export type TransactionDetail = Static<typeof TransactionDetail>;

export const TimelineEntry = Type.Object({
  id: Type.String(),
  kind: TimelineKind,
  action: Type.String(),
  at: Time,
  actor: Type.Object({ type: ActorType, id: OrNull(Type.String()), label: Type.String() }),
  requestId: OrNull(Type.String()),
  details: AnyObject,
  /** Where the act came from, while kept (PORTICO_RETENTION's `addresses`); null for what no request did. */
  origin: OrNull(
    Type.Object({
      ipAddress: OrNull(Type.String()),
      userAgent: OrNull(Type.String()),
      identifiedBy: Type.String(),
    }),
  ),
});
export type TimelineEntry = Static<typeof TimelineEntry>;

/**
 * Whether the transaction's history still matches its hash chain (docs/evidence.md): its head (hex; null before
 * its first entry) and, when it does not match, the first entry that does not and why, in words.
 */
export const HistorySeal = Type.Object({
  head: OrNull(Type.String()),
  intact: Type.Boolean(),
  brokenAt: Type.Optional(Type.Object({ position: Type.Integer(), reason: Type.String() })),
});
export type HistorySeal = Static<typeof HistorySeal>;

export const ReviewComment = Type.Object({
  id: Type.String(),
  processKey: Type.String(),
  revision: Type.Integer(),
  vulcanKey: Type.String(),
  field: Type.String(),
  body: Type.String(),
  /** Whether the investor sees it (in the portal, beside the field); else an internal note of the team. */
  forInvestor: Type.Boolean(),
  author: OrNull(Type.Object({ id: Type.String(), name: Type.String() })),
  createdAt: Time,
  resolvedAt: OrNullTime,
});
export type ReviewComment = Static<typeof ReviewComment>;

/** A field that changed between two submissions, in the template's words. */
const FieldChange = Type.Object({
  vulcanKey: Type.String(),
  field: Type.String(),
  /** The item's and the field's titles. */
  itemTitle: Type.String(),
  label: Type.String(),
  change: Type.Union([Type.Literal('added'), Type.Literal('removed'), Type.Literal('changed')]),
  /** The answers in words; null on the empty side. */
  before: OrNull(Type.String()),
  after: OrNull(Type.String()),
});

/** A field of an item as the review shows it: its title, the answer in words, the file it names. */
const ReviewField = Type.Object({
  key: Type.String(),
  label: Type.String(),
  text: OrNull(Type.String()),
  file: OrNull(Type.Object({ id: Type.String(), name: Type.String(), downloadPath: Type.String() })),
});

export const ProcessReview = Type.Object({
  key: Type.String(),
  title: OrNull(Type.String()),
  isComplete: Type.Boolean(),
  revisions: Type.Array(Type.Object({ number: Type.Integer(), createdAt: Time, committedAt: OrNullTime })),
  items: Type.Array(
    Type.Object({
      vulcanKey: Type.String(),
      title: OrNull(Type.String()),
      completionPercentage: Type.Integer(),
      /** Every field the form asks, in the form's order. */
      fields: Type.Array(ReviewField),
    }),
  ),
  changes: OrNull(Type.Object({ from: Type.Integer(), to: Type.Integer(), fields: Type.Array(FieldChange) })),
});
export type ProcessReview = Static<typeof ProcessReview>;

const Actor = Type.Object({ type: ActorType, id: OrNull(Type.String()), label: Type.String() });

export const PendingApproval = Type.Object({
  id: Type.String(),
  eventKey: Type.String(),
  message: OrNull(Type.String()),
  requestedBy: Type.Object({ id: OrNull(Type.String()), label: Type.String() }),
  requestedAt: Time,
});
export type PendingApproval = Static<typeof PendingApproval>;

export const WorkflowPanel = Type.Object({
  state: Type.String(),
  initialState: Type.String(),
  version: OrNull(Type.String()),
  states: Type.Array(
    Type.Object({ key: Type.String(), description: OrNull(Type.String()), final: Type.Boolean() }),
  ),
  events: Type.Array(
    Type.Object({
      key: Type.String(),
      description: OrNull(Type.String()),
      from: Type.Array(Type.String()),
      to: Type.String(),
      guard: OrNull(Type.String()),
      allowed: Type.Boolean(),
      reason: OrNull(Type.String()),
      mayTrigger: Type.Boolean(),
      messageRequired: Type.Boolean(),
      needsSecondPerson: Type.Boolean(),
      /**
       * Whether this person may run it on the recipient's behalf with a paper form they received: a recipient's
       * event that would be allowed now but for what the revision it submits lacks, for a role that may trigger it.
       */
      onBehalf: Type.Boolean(),
    }),
  ),
  path: Type.Array(
    Type.Object({
      id: Type.String(),
      eventKey: Type.String(),
      from: OrNull(Type.String()),
      to: Type.String(),
      at: Time,
      actor: Actor,
      message: OrNull(Type.String()),
    }),
  ),
  pendingApproval: OrNull(PendingApproval),
});
export type WorkflowPanel = Static<typeof WorkflowPanel>;

export const EventPreview = Type.Object({
  eventKey: Type.String(),
  from: Type.String(),
  to: Type.String(),
  actions: Type.Array(AnyObject),
  messageRequired: Type.Boolean(),
  mails: Type.Array(
    Type.Object({
      to: Type.Literal('primary_recipient'),
      role: Type.String(),
      kind: Type.Union([
        Type.Literal('changes_requested'),
        Type.Literal('voided'),
        Type.Literal('signed_copy'),
      ]),
    }),
  ),
  webhooks: Type.Array(Type.String()),
  completes: OrNull(Type.Boolean()),
});
export type EventPreview = Static<typeof EventPreview>;

const EventKey = Type.String({ minLength: 1, maxLength: 200 });

export const TeamActivityEntry = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('workflow'), Type.Literal('console'), Type.Literal('team')]),
  action: Type.String(),
  at: Time,
  actor: Type.Object({ id: Type.String(), label: Type.String() }),
  transaction: OrNull(Type.Object({ id: Type.String(), investorName: Type.String() })),
  person: OrNull(Type.Object({ id: Type.String(), label: Type.String() })),
  details: AnyObject,
});
export type TeamActivityEntry = Static<typeof TeamActivityEntry>;

const EntityTypeValue = Type.Union(ENTITY_TYPES.map((type) => Type.Literal(type)));

/** An answer the template lets the sender fill in when starting a transaction (start/start.ts). */
export const PrefillAnswer = Type.Object({
  answer: Type.String(),
  title: Type.String(),
  itemTitle: Type.String(),
  kind: Type.Union(
    (['text', 'number', 'integer', 'boolean', 'choice', 'money', 'date'] as const).map((kind) =>
      Type.Literal(kind),
    ),
  ),
  choices: Type.Optional(
    Type.Array(Type.Object({ value: Type.Union([Type.String(), Type.Number()]), title: Type.String() })),
  ),
  money: Type.Optional(
    Type.Object({
      currencies: Type.Array(Type.String()),
      minimum: Type.Optional(Type.Integer()),
      maximum: Type.Optional(Type.Integer()),
    }),
  ),
  maxLength: Type.Optional(Type.Integer()),
});
export type PrefillAnswer = Static<typeof PrefillAnswer>;

/** What a person fills in to start a transaction: checked as `createTransaction`'s input is. */
const StartFields = {
  templateId: Type.String({ format: 'uuid' }),
  senderEntityId: Type.String({ format: 'uuid' }),
  investor: Type.Object(
    {
      name: Type.String({ maxLength: 1000 }),
      email: Type.String({ maxLength: 1000 }),
      entityType: EntityTypeValue,
    },
    { additionalProperties: false },
  ),
  /** Answers by `<item vulcanKey>.<field>`, each one the template's `prefill` lists. */
  answers: Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), { maxProperties: 50 }),
  linkValidDays: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LINK_VALID_DAYS })),
  note: Type.Optional(Type.String({ maxLength: MAX_INVITATION_NOTE_LENGTH })),
};

/** How a column of a closing's list is read (closings/preflight.ts). */
const ColumnRoleSchema = OrNull(
  Type.Union([
    Type.Object({ kind: Type.Literal('name') }),
    Type.Object({ kind: Type.Literal('email') }),
    Type.Object({ kind: Type.Literal('entityType') }),
    Type.Object({ kind: Type.Literal('answer'), answer: Type.String() }),
    Type.Object({ kind: Type.Literal('currency'), answer: Type.String() }),
  ]),
);
const RowStatus = Type.Union(
  (['ready', 'problem', 'dropped', 'created', 'failed'] as const).map((status) => Type.Literal(status)),
);
const ClosingStatus = Type.Union(
  (['draft', 'running', 'finished', 'stopped'] as const).map((status) => Type.Literal(status)),
);

/** A row of a closing's list: as the file had it, the investor read from it, its problems and what became of it. */
export const ClosingRow = Type.Object({
  id: Type.String(),
  row: Type.Integer(),
  cells: Type.Record(Type.String(), Type.String()),
  investor: Type.Object({ name: Type.String(), email: Type.String(), entityType: Type.String() }),
  status: RowStatus,
  problems: Type.Array(Type.Object({ column: OrNull(Type.String()), message: Type.String() })),
  transactionId: OrNull(Type.String()),
  failure: OrNull(Type.String()),
});
export type ClosingRow = Static<typeof ClosingRow>;

/** A closing with where it stands (closings/closings.ts). */
export const ClosingDetail = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: ClosingStatus,
  stopReason: OrNull(Type.String()),
  template: Type.Object({
    id: Type.String(),
    name: Type.String(),
    version: Type.Integer(),
    archived: Type.Boolean(),
  }),
  sender: Type.Object({ id: Type.String(), name: Type.String() }),
  linkValidDays: OrNull(Type.Integer()),
  note: OrNull(Type.String()),
  columns: Type.Array(Type.Object({ name: Type.String(), role: ColumnRoleSchema })),
  columnProblems: Type.Array(Type.String()),
  createdAt: Timestamp(),
  startedAt: OrNull(Timestamp()),
  finishedAt: OrNull(Timestamp()),
  rowCounts: Type.Object({
    ready: Type.Integer(),
    problem: Type.Integer(),
    dropped: Type.Integer(),
    created: Type.Integer(),
    failed: Type.Integer(),
  }),
  states: Type.Array(Type.Object({ state: Type.String(), title: Type.String(), count: Type.Integer() })),
  committed: Type.Array(Type.Object({ currency: Type.String(), amount: Type.Integer() })),
  notOpened: Type.Integer(),
  stalled: Type.Integer(),
  /** A draft's rows; once run, those not created. */
  rows: Type.Array(ClosingRow),
});
export type ClosingDetail = Static<typeof ClosingDetail>;

const OfClosing = Type.Object({ id: Type.String({ format: 'uuid' }) });
const OfClosingRow = Type.Object({
  id: Type.String({ format: 'uuid' }),
  rowId: Type.String({ format: 'uuid' }),
});

/**
 * A person as the team page lists them, with whether each action on them can be done now by the caller, and why
 * not (the refusal it would get): the page greys what cannot work.
 */
export const TeamListMember = Type.Composite([
  TeamMember,
  Type.Object({
    actions: Type.Object({
      changeRole: Availability,
      reactivate: Availability,
      resendInvitation: Availability,
      deactivate: Availability,
      resetFactors: Availability,
    }),
  }),
]);
export type TeamListMember = Static<typeof TeamListMember>;

export const QueueRow = Type.Object({
  id: Type.String(),
  template: Type.Object({
    id: Type.String(),
    key: Type.String(),
    name: Type.String(),
    version: Type.Integer(),
  }),
  state: Type.String(),
  /** The state as its template titles it, else its key in words. */
  stateTitle: Type.String(),
  stage: StateStage,
  /** The investor: the primary recipient's entity's name; the notice name and address are the contact's. */
  investorName: Type.String(),
  noticeName: Type.String(),
  noticeEmail: Type.String(),
  senderEntity: Type.Object({ id: Type.String(), name: Type.String() }),
  createdAt: Time,
  updatedAt: Time,
  stateEnteredAt: Time,
  recipientActiveAt: OrNullTime,
  stalled: Type.Boolean(),
  assignee: OrNull(Type.Object({ id: Type.String(), name: Type.String() })),
});
export type QueueRow = Static<typeof QueueRow>;

export const QueueTab = Type.Object({
  state: Type.String(),
  /** The state as the newest template that has it titles it, else its key in words. */
  title: Type.String(),
  count: Type.Integer(),
  final: Type.Boolean(),
});
export type QueueTab = Static<typeof QueueTab>;

export const consoleRoutes = {
  ...accountRoutes(SessionAnswer, { organization: Type.Optional(Type.String({ maxLength: 63 })) }),
  ...templateRoutes,
  ...alertsRoutes,
  ...bulkRoutes,
  /** The organization's single sign-on, set by admins (`/sso`). */
  ...ssoSettingsRoutes('managePeople' satisfies Permission, ''),
  /** The organization's people, in the order they were invited, with what can be done to each now. */
  listTeam: {
    method: 'GET',
    url: '/team',
    access: 'read',
    response: answers({ 200: Type.Object({ people: Type.Array(TeamListMember) }) }),
  },
  /** Invites a person by mail. */
  invite: {
    method: 'POST',
    url: '/team',
    access: 'managePeople',
    body: Body({
      email: Type.String({ maxLength: 1000 }),
      role: Role,
      name: Type.Optional(Type.String({ maxLength: 1000 })),
    }),
    response: answers({ 201: Type.Object({ person: TeamMember }) }),
  },
  /** What the organization's people did, newest first, a page at a time. */
  teamActivity: {
    method: 'GET',
    url: '/team/activity',
    access: 'read',
    querystring: Body({
      person: Type.Optional(Type.String({ format: 'uuid' })),
      before: Type.Optional(Type.String({ format: 'date-time' })),
    }),
    response: answers({ 200: Type.Object({ entries: Type.Array(TeamActivityEntry) }) }),
  },
  /** Ends a person's access (never their own). */
  deactivate: {
    method: 'POST',
    url: '/team/:id/deactivate',
    access: 'managePeople',
    params: WithId,
    response: answers({ 200: Type.Object({ person: TeamMember }) }),
  },
  /** Gives a person another role (one's own too), never leaving the organization without an active admin. */
  changeRole: {
    method: 'PUT',
    url: '/team/:id/role',
    access: 'managePeople',
    params: WithId,
    body: Body({ role: Role }),
    response: answers({ 200: Type.Object({ person: TeamMember }) }),
  },
  /** Ends every session of a person (each of their browsers signs in again); recorded in the team's activity. */
  endMemberSessions: {
    method: 'POST',
    url: '/team/:id/sessions/end',
    access: 'managePeople',
    params: WithId,
    response: answers({ 200: Type.Object({ sessionsEnded: Type.Integer() }) }),
  },
  /**
   * Resets a person's second factors (their authenticator app and recovery codes), ends their sessions and mails
   * them; never one's own (their settings change it). Recorded in the team's activity.
   */
  resetMemberFactors: {
    method: 'POST',
    url: '/team/:id/factors/reset',
    access: 'managePeople',
    params: WithId,
    response: answers({ 200: Type.Object({ sessionsEnded: Type.Integer(), mailed: Type.Boolean() }) }),
  },
  /** Who must sign in to the console with a second factor. */
  secondFactorPolicy: {
    method: 'GET',
    url: '/security/second-factor',
    access: 'managePeople',
    response: answers({ 200: Type.Object({ policy: SecondFactorPolicy }) }),
  },
  /**
   * Sets who must sign in with a second factor: those without one are led to add one at their next request, and
   * can do nothing else until they have. Recorded in the team's activity.
   */
  setSecondFactorPolicy: {
    method: 'PUT',
    url: '/security/second-factor',
    access: 'managePeople',
    body: Body({
      required: SecondFactorPolicy.properties.required,
      roles: SecondFactorPolicy.properties.roles,
    }),
    response: answers({ 200: Type.Object({ policy: SecondFactorPolicy }) }),
  },
  /** Gives a deactivated person their access back. */
  reactivate: {
    method: 'POST',
    url: '/team/:id/reactivate',
    access: 'managePeople',
    params: WithId,
    response: answers({ 200: Type.Object({ person: TeamMember }) }),
  },
  /** Mails a person who has not accepted a new invitation; the older link stops working. */
  resendInvitation: {
    method: 'POST',
    url: '/team/:id/invitation',
    access: 'managePeople',
    params: WithId,
    response: answers({ 200: Type.Object({ person: TeamMember, expiresAt: Time }) }),
  },
  /**
   * A page of the organization's transactions, searched, filtered and sorted, with the tabs' counts
   * on the first page (see src/transactions/console/queue/queue.ts).
   */
  queue: {
    method: 'GET',
    url: '/queue',
    access: 'read',
    querystring: Body({
      search: Type.Optional(Type.String({ maxLength: MAX_QUEUE_SEARCH })),
      template: Type.Optional(Type.String({ maxLength: 100 })),
      state: Type.Optional(Type.String({ maxLength: 100 })),
      sender: Type.Optional(Type.String({ maxLength: 100 })),
      closing: Type.Optional(Type.String({ maxLength: 100 })),
      inStateForDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650 })),
      sort: Type.Optional(Type.Union(QUEUE_SORTS.map((sort) => Type.Literal(sort)))),
      first: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_QUEUE_PAGE })),
      after: Type.Optional(Type.String({ maxLength: 500 })),
    }),
    response: answers({
      200: Type.Object({
        rows: Type.Array(QueueRow),
        nextCursor: OrNull(Type.String()),
        tabs: OrNull(Type.Array(QueueTab)),
      }),
    }),
  },
  /**
   * The queue's transactions as filtered (the `queue` route's filters, no pages), with their current answers, as
   * a CSV or XLSX download (`format`, CSV by default); see src/transactions/console/export/export.ts.
   */
  exportQueue: {
    method: 'GET',
    url: '/queue/export',
    access: 'read',
    querystring: Body({
      format: Type.Optional(Type.Union(EXPORT_FORMATS.map((format) => Type.Literal(format)))),
      search: Type.Optional(Type.String({ maxLength: MAX_QUEUE_SEARCH })),
      template: Type.Optional(Type.String({ maxLength: 100 })),
      state: Type.Optional(Type.String({ maxLength: 100 })),
      sender: Type.Optional(Type.String({ maxLength: 100 })),
      closing: Type.Optional(Type.String({ maxLength: 100 })),
      inStateForDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650 })),
      sort: Type.Optional(Type.Union(QUEUE_SORTS.map((sort) => Type.Literal(sort)))),
    }),
    response: answers({
      200: Type.String({
        description:
          'A spreadsheet, as an attachment: text/csv (UTF-8 with a byte order mark) or XLSX, with two header rows.',
      }),
    }),
  },
  /** What the queue's filters offer: the templates, the senders, the people to assign. */
  queueOptions: {
    method: 'GET',
    url: '/queue/options',
    access: 'read',
    response: answers({
      200: Type.Object({
        templates: Type.Array(Type.Object({ key: Type.String(), name: Type.String() })),
        senders: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
        people: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
      }),
    }),
  },
  /** What the "New transaction" form offers: the templates' versions, the senders, the entity types. */
  startOptions: {
    method: 'GET',
    url: '/start/options',
    access: 'operate',
    response: answers({
      200: Type.Object({
        templates: Type.Array(
          Type.Object({
            id: Type.String(),
            key: Type.String(),
            name: Type.String(),
            version: Type.Integer(),
            latest: Type.Boolean(),
            linkValidDays: Type.Integer(),
            prefill: Type.Array(PrefillAnswer),
            commitment: OrNull(Type.String()),
          }),
        ),
        senders: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
        entityTypes: Type.Array(Type.Object({ value: EntityTypeValue, title: Type.String() })),
        limits: Type.Object({ maxLinkValidDays: Type.Integer(), maxNoteLength: Type.Integer() }),
      }),
    }),
  },
  /** The invitation mail as the investor will get it (nothing is written). */
  previewInvitation: {
    method: 'POST',
    url: '/start/invitation',
    access: 'operate',
    body: Body(StartFields),
    response: answers({
      200: Type.Object({
        mail: Type.Object({ to: Type.String(), subject: Type.String(), text: Type.String() }),
      }),
    }),
  },
  /**
   * Starts a transaction, as GraphQL's `createTransaction` does; one for one `idempotencyKey` (the form makes
   * one when it opens, so a double click or a retry starts one).
   */
  startTransaction: {
    method: 'POST',
    url: '/transactions',
    access: 'operate',
    body: Body({ ...StartFields, idempotencyKey: Type.String({ minLength: 1, maxLength: 255 }) }),
    response: answers({ 201: Type.Object({ transaction: Type.Object({ id: Type.String() }) }) }),
  },
  /** The organization's closings, newest first, with how far each is. */
  listClosings: {
    method: 'GET',
    url: '/closings',
    access: 'read',
    response: answers({
      200: Type.Object({
        closings: Type.Array(
          Type.Object({
            id: Type.String(),
            name: Type.String(),
            status: ClosingStatus,
            templateName: Type.String(),
            createdAt: Timestamp(),
            rows: Type.Integer(),
            created: Type.Integer(),
          }),
        ),
      }),
    }),
  },
  /**
   * Makes a draft closing (its list comes next, `uploadClosingList`); one for one `idempotencyKey` (the form makes
   * one as it is sent, so a retry makes one draft).
   */
  createClosing: {
    method: 'POST',
    url: '/closings',
    access: 'operate',
    body: Body({
      idempotencyKey: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      name: Type.String({ maxLength: 1000 }),
      templateId: Type.String({ format: 'uuid' }),
      senderEntityId: Type.String({ format: 'uuid' }),
      linkValidDays: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LINK_VALID_DAYS })),
      note: Type.Optional(Type.String({ maxLength: MAX_INVITATION_NOTE_LENGTH })),
    }),
    response: answers({ 201: Type.Object({ closing: Type.Object({ id: Type.String() }) }) }),
  },
  /** A closing, its counts and its rows. */
  readClosing: {
    method: 'GET',
    url: '/closings/:id',
    access: 'read',
    params: OfClosing,
    response: answers({ 200: Type.Object({ closing: ClosingDetail }) }),
  },
  /**
   * A draft closing's list of investors (multipart part `file`: CSV or XLSX, or pasted rows sent as a CSV file),
   * read and checked row by row, in place of the list it had.
   */
  uploadClosingList: {
    method: 'POST',
    url: '/closings/:id/list',
    access: 'operate',
    params: OfClosing,
    consumes: ['multipart/form-data'],
    response: answers({ 200: Type.Object({ closing: ClosingDetail }) }),
  },
  /** A row of a draft closing fixed on the page (its cells by column), checked again. */
  editClosingRow: {
    method: 'PUT',
    url: '/closings/:id/rows/:rowId',
    access: 'operate',
    params: OfClosingRow,
    body: Body({
      cells: Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 2000 }), {
        maxProperties: 100,
      }),
    }),
    /** `checkedAgain`: the other rows that shared its address before the fix or share it now, checked again. */
    response: answers({ 200: Type.Object({ row: ClosingRow, checkedAgain: Type.Array(ClosingRow) }) }),
  },
  /** Drops a row of a draft closing (it is not created), or brings it back; `checkedAgain` as for a fix. */
  dropClosingRow: {
    method: 'PUT',
    url: '/closings/:id/rows/:rowId/dropped',
    access: 'operate',
    params: OfClosingRow,
    body: Body({ dropped: Type.Boolean() }),
    response: answers({ 200: Type.Object({ status: RowStatus, checkedAgain: Type.Array(ClosingRow) }) }),
  },
  /**
   * The evidence bundle of a closing's transactions, streamed as a zip: one folder per transaction, each with its
   * certificate, sealed documents, uploads, history with its chain and manifest (docs/evidence.md).
   */
  closingEvidence: {
    method: 'GET',
    url: '/closings/:id/evidence',
    access: 'read',
    params: OfClosing,
    response: answers({ 200: Type.String({ description: 'A zip (application/zip), as an attachment.' }) }),
  },
  /** Runs a draft closing whose rows are all ready (or dropped): each row's transaction is created, once. */
  runClosing: {
    method: 'POST',
    url: '/closings/:id/run',
    access: 'operate',
    params: OfClosing,
    response: answers({ 200: Type.Object({ status: ClosingStatus, rows: Type.Integer() }) }),
  },
  /** Assigns it to a person of the organization, or unassigns it (null). */
  assign: {
    ...ofTransaction('PUT', '/assignee', 'operate'),
    body: Body({ userId: OrNull(Type.String({ format: 'uuid' })) }),
    response: answers({
      200: Type.Object({ assignee: OrNull(Type.Object({ id: Type.String(), name: Type.String() })) }),
    }),
  },
  /** Sends a webhook delivery of the organization again. */
  resendWebhook: {
    method: 'POST',
    url: '/webhook-deliveries/:id/resend',
    access: 'operate',
    params: WithId,
    response: answers({ 200: Type.Object({ resent: Type.Literal(true) }) }),
  },
  /** A transaction with its recipients' progress and its files. */
  readTransaction: {
    ...ofTransaction('GET', '', 'read'),
    response: answers({ 200: Type.Object({ transaction: TransactionDetail }) }),
  },
  /**
   * A transaction's evidence bundle, streamed as a zip: its certificate, sealed documents, uploads, history with
   * its chain, template version and manifest (docs/evidence.md), which `portico verify` checks offline.
   */
  transactionEvidence: {
    ...ofTransaction('GET', '/evidence', 'read'),
    response: answers({ 200: Type.String({ description: 'A zip (application/zip), as an attachment.' }) }),
  },
  /** What happened to it, oldest first, narrowed by kind and actor; and whether its whole history matches its chain. */
  timeline: {
    ...ofTransaction('GET', '/timeline', 'read'),
    querystring: Body({
      kind: Type.Optional(Type.Array(TimelineKind, { maxItems: TIMELINE_KINDS.length })),
      actor: Type.Optional(ActorType),
    }),
    response: answers({ 200: Type.Object({ entries: Type.Array(TimelineEntry), history: HistorySeal }) }),
  },
  /** Its processes' revisions and latest items, what changed, every comment. */
  review: {
    ...ofTransaction('GET', '/review', 'read'),
    response: answers({
      200: Type.Object({ processes: Type.Array(ProcessReview), comments: Type.Array(ReviewComment) }),
    }),
  },
  /** A reviewer's comment on a field: for the investor, or an internal note of the team. */
  addComment: {
    ...ofTransaction('POST', '/comments', 'review'),
    body: Body({
      vulcanKey: Type.String({ maxLength: 200 }),
      field: Type.String({ maxLength: 200 }),
      body: Type.String({ maxLength: 10_000 }),
      /** Whether the investor sees it: asked every time, so that no note reaches them by mistake. */
      forInvestor: Type.Boolean(),
    }),
    response: answers({ 201: Type.Object({ comment: ReviewComment }) }),
  },
  /** Marks a comment resolved. */
  resolveComment: {
    method: 'POST',
    url: '/comments/:id/resolve',
    access: 'review',
    params: WithId,
    response: answers({ 200: Type.Object({ comment: ReviewComment }) }),
  },
  /** The states, every event with its reason when blocked, the path so far. */
  workflow: {
    ...ofTransaction('GET', '/workflow', 'read'),
    response: answers({ 200: Type.Object({ workflow: WorkflowPanel }) }),
  },
  /** What running an event would do (nothing is written). */
  previewEvent: {
    ...ofTransaction('POST', '/events/preview', 'read'),
    body: Body({ eventKey: EventKey }),
    response: answers({ 200: Type.Object({ preview: EventPreview }) }),
  },
  /**
   * Runs an event against the state the page showed (`version`, the workflow's);
   * STALE_STATE when someone moved it since.
   */
  runEvent: {
    ...ofTransaction('POST', '/events', 'read'),
    body: Body({
      eventKey: EventKey,
      version: OrNull(Type.String({ maxLength: 100 })),
      message: Type.Optional(Type.String({ maxLength: 2000 })),
      /**
       * Runs a recipient's event on their behalf: the paper form staff received, uploaded first
       * (`uploadPaperForm`), stands for the revision it submits, whatever that lacks.
       */
      onBehalf: Type.Optional(Type.Object({ paperFormId: Type.String({ format: 'uuid' }) })),
    }),
    response: answers({
      200: Type.Union([
        Type.Object({
          outcome: Type.Literal('done'),
          sourceStateKey: OrNull(Type.String()),
          targetStateKey: Type.String(),
        }),
        Type.Object({ outcome: Type.Literal('asked'), approval: PendingApproval }),
      ]),
    }),
  },
  /**
   * A paper form received from the recipient (a PDF, multipart part `file`), kept among the transaction's files,
   * for an event run on their behalf (`runEvent`'s `onBehalf`).
   */
  uploadPaperForm: {
    ...ofTransaction('POST', '/paper-forms', 'operate'),
    consumes: ['multipart/form-data'],
    response: answers({
      201: Type.Object({
        paperForm: Type.Object({ id: Type.String(), name: Type.String(), byteSize: Type.Integer() }),
      }),
    }),
  },
  /** A second person runs the event asked for (not the one who asked). */
  approve: {
    method: 'POST',
    url: '/approvals/:id/approve',
    access: 'read',
    params: WithId,
    response: answers({
      200: Type.Object({
        outcome: Type.Literal('approved'),
        sourceStateKey: OrNull(Type.String()),
        targetStateKey: Type.String(),
      }),
    }),
  },
  /** A second person drops the request. */
  decline: {
    method: 'POST',
    url: '/approvals/:id/decline',
    access: 'read',
    params: WithId,
    response: answers({ 200: Type.Object({ outcome: Type.Literal('declined') }) }),
  },
  /** Signs a document as the organization (its countersignature). */
  sign: {
    ...ofTransaction('POST', '/sign', 'operate'),
    body: Body({
      documentKey: Type.String({ maxLength: 200 }),
      signedName: Type.String({ maxLength: 200 }),
      // The JSON true itself (false is CONSENT_REQUIRED): no "true", 1 or [true] signs for the organization.
      consent: StrictBoolean('Must be true: the signer agrees to sign electronically.'),
    }),
    response: answers({
      200: Type.Object({
        documentKey: Type.String(),
        state: Type.Union([Type.Literal('PENDING'), Type.Literal('COMPLETED')]),
      }),
    }),
  },
  /** Mails the recipient a reminder now. */
  remind: {
    ...ofTransaction('POST', '/remind', 'operate'),
    response: answers({ 200: Type.Object({ queuedAt: Time }) }),
  },
  /** Replaces the recipient's link and mails the new one. */
  resetLink: {
    ...ofTransaction('POST', '/reset-link', 'operate'),
    response: answers({ 200: Type.Object({ expiresAt: Time }) }),
  },
  /** Sets until when the recipient's link works. */
  setLinkExpiry: {
    ...ofTransaction('PUT', '/link-expiry', 'operate'),
    body: Body({ expiresAt: Type.String({ format: 'date-time' }) }),
    response: answers({ 200: Type.Object({ expiresAt: Time }) }),
  },
  /**
   * A text/event-stream of `change` events (`{"transactions": [ids] | null}`) for the caller's
   * organization; see live-route.ts.
   */
  live: {
    method: 'GET',
    url: '/live',
    access: 'read',
    response: answers({ 200: Type.String({ description: 'A text/event-stream.' }) }),
  },
} as const;

export type ConsoleRoutes = typeof consoleRoutes;
