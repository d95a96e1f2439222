import { Type } from '@sinclair/typebox';
import { answers, Body, OrNull, Timestamp } from '../../../http/contract.ts';
import { MAX_QUEUE_SEARCH, QUEUE_SORTS } from '../queue/queue-query.ts';
import { BULK_PAGE, ITEM_STATUSES } from './bulk-jobs.ts';
import { MAX_BULK_SELECTION } from './selection.ts';

/**
 * The contract of the console's bulk actions (`/console/api/bulk`, see bulk-jobs.ts): the preflight, making a
 * job and reading it. Spread into the console's contract (contract.ts).
 */

// One object each, not a union: the validator drops what the first choice of a union does not name.
/** Transactions picked by hand (`ids`), or every one the queue lists for its filters (`filter`): one of the two. */
const Selection = Body({
  ids: Type.Optional(
    Type.Array(Type.String({ format: 'uuid' }), { minItems: 1, maxItems: MAX_BULK_SELECTION }),
  ),
  filter: Type.Optional(
    Body({
      search: Type.Optional(Type.String({ maxLength: MAX_QUEUE_SEARCH })),
      templateKey: Type.Optional(Type.String({ maxLength: 100 })),
      state: Type.Optional(Type.String({ maxLength: 100 })),
      senderEntityId: Type.Optional(Type.String({ maxLength: 100 })),
      closingId: Type.Optional(Type.String({ maxLength: 100 })),
      inStateForDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650 })),
      sort: Type.Optional(Type.Union(QUEUE_SORTS.map((sort) => Type.Literal(sort)))),
    }),
  ),
});

/**
 * One action: a reminder, a workflow event (`eventKey`; a void with its reason in `message`), an assignment
 * (`userId`).
 */
const Action = Body({
  kind: Type.Union([Type.Literal('remind'), Type.Literal('event'), Type.Literal('assign')]),
  eventKey: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  message: Type.Optional(Type.String({ maxLength: 2000 })),
  userId: Type.Optional(Type.String({ format: 'uuid' })),
});

const CheckedItem = Type.Object({
  id: Type.String(),
  investorName: Type.String(),
  templateName: Type.String(),
  state: Type.String(),
  stateTitle: Type.String(),
  stateEnteredAt: Timestamp(),
  reason: OrNull(Type.String()),
  asks: Type.Boolean(),
});

const ItemStatus = Type.Union(ITEM_STATUSES.map((status) => Type.Literal(status)));

export const BulkJob = Type.Object({
  id: Type.String(),
  title: Type.String(),
  message: OrNull(Type.String()),
  status: Type.Union([Type.Literal('running'), Type.Literal('finished')]),
  requestedBy: Type.String(),
  createdAt: Timestamp(),
  finishedAt: OrNull(Timestamp()),
  counts: Type.Object(
    Object.fromEntries(ITEM_STATUSES.map((status) => [status, Type.Integer()])) as Record<
      (typeof ITEM_STATUSES)[number],
      ReturnType<typeof Type.Integer>
    >,
  ),
  items: Type.Array(
    Type.Object({
      transactionId: Type.String(),
      investorName: Type.String(),
      status: ItemStatus,
      reason: OrNull(Type.String()),
      updatedAt: Timestamp(),
    }),
  ),
  nextOffset: OrNull(Type.Integer()),
});

const Offset = Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_BULK_SELECTION }));

export const bulkRoutes = {
  /**
   * What an action would do to each selected transaction: eligible, or blocked with the reason; counted,
   * grouped by reason, the items a page at a time (nothing is written).
   */
  preflightBulk: {
    method: 'POST',
    url: '/bulk/preflight',
    access: 'operate',
    body: Body({ selection: Selection, action: Action, offset: Offset }),
    response: answers({
      200: Type.Object({
        preflight: Type.Object({
          title: Type.String(),
          checkedAt: Timestamp(),
          total: Type.Integer(),
          eligible: Type.Integer(),
          blocked: Type.Integer(),
          asks: Type.Integer(),
          reasons: Type.Array(Type.Object({ reason: Type.String(), count: Type.Integer() })),
          events: Type.Array(
            Type.Object({ key: Type.String(), title: Type.String(), isVoid: Type.Boolean() }),
          ),
          items: Type.Array(CheckedItem, { maxItems: BULK_PAGE }),
          nextOffset: OrNull(Type.Integer()),
        }),
      }),
    }),
  },
  /**
   * Runs an action on the selection as a job kept in the database, against the preflight the page showed
   * (`checkedAt`); one job for one `idempotencyKey` (the page makes one per preflight).
   */
  runBulk: {
    method: 'POST',
    url: '/bulk',
    access: 'operate',
    body: Body({
      selection: Selection,
      action: Action,
      checkedAt: Type.String({ format: 'date-time' }),
      idempotencyKey: Type.String({ minLength: 1, maxLength: 255 }),
    }),
    response: answers({ 201: Type.Object({ job: Type.Object({ id: Type.String() }) }) }),
  },
  /** A bulk job: its counts and a page of its items (those of one status when asked). */
  readBulk: {
    method: 'GET',
    url: '/bulk/:id',
    access: 'operate',
    params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
    querystring: Body({ status: Type.Optional(ItemStatus), offset: Offset }),
    response: answers({ 200: Type.Object({ job: BulkJob }) }),
  },
} as const;
