import { Type, type Static } from '@sinclair/typebox';
import { answers, Body } from '../../../http/contract.ts';
import { ALERT_KINDS } from './alert-kinds.ts';

/**
 * The contract of the console's alerts routes (`/console/api/alerts`, routes.ts), spread into the console's
 * (contract.ts): what each takes and answers. Every role may manage their own alerts (`read`).
 */

const AlertKindSchema = Type.Union(ALERT_KINDS.map((kind) => Type.Literal(kind)));

/** One alert the person may pick, in words, and whether they picked it. */
export const AlertChoice = Type.Object({
  kind: AlertKindSchema,
  label: Type.String(),
  picked: Type.Boolean(),
});
export type AlertChoice = Static<typeof AlertChoice>;

/** The person's alerts: every kind with whether it is picked, where the mail goes, and how often at most. */
export const AlertsAnswer = Type.Object({
  email: Type.String(),
  alerts: Type.Array(AlertChoice),
  /** At most one digest per this many minutes. */
  everyMinutes: Type.Integer(),
});
export type AlertsAnswer = Static<typeof AlertsAnswer>;

export const alertsRoutes = {
  /** The signed-in person's own alerts. */
  readAlerts: {
    method: 'GET',
    url: '/alerts',
    access: 'read',
    response: answers({ 200: AlertsAnswer }),
  },
  /** Sets which alerts the signed-in person gets: exactly the kinds given (none stops them all). */
  saveAlerts: {
    method: 'PUT',
    url: '/alerts',
    access: 'read',
    body: Body({ kinds: Type.Array(AlertKindSchema, { maxItems: ALERT_KINDS.length, uniqueItems: true }) }),
    response: answers({ 200: AlertsAnswer }),
  },
} as const;
