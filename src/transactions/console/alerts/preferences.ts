import type { Queryable } from '../../../db/database.ts';
import type { ConsoleCaller } from '../deps.ts';
import { ALERT_KINDS, ALERT_WORDS, DIGEST_EVERY_MS, type AlertKind } from './alert-kinds.ts';
import type { AlertsAnswer } from './alerts-contract.ts';

/**
 * A person's mail alerts (`alert_preferences`): which kinds they picked. None until they pick some: alerts are
 * opt-in, as a team of reviewers who each read the work queue would otherwise each get every submission.
 */

/** The kinds a person picked, in the order of {@link ALERT_KINDS} (none without a row). */
export async function pickedAlerts(
  db: Queryable,
  person: { userId: string; organizationId: string },
): Promise<AlertKind[]> {
  const [row] = await db.query<{ kinds: string[] }>(
    'select kinds from alert_preferences where user_id = $1 and organization_id = $2',
    [person.userId, person.organizationId],
  );
  const kinds = new Set(row?.kinds ?? []);
  return ALERT_KINDS.filter((kind) => kinds.has(kind));
}

/** What the preferences page shows of the caller's alerts: every kind in words, and which they picked. */
export async function alertsOf(db: Queryable, caller: ConsoleCaller): Promise<AlertsAnswer> {
  const picked = new Set(
    await pickedAlerts(db, { userId: caller.user.id, organizationId: caller.organization.id }),
  );
  return {
    email: caller.user.email,
    alerts: ALERT_KINDS.map((kind) => ({ kind, label: ALERT_WORDS[kind].label, picked: picked.has(kind) })),
    everyMinutes: DIGEST_EVERY_MS / 60_000,
  };
}

/**
 * Sets the caller's alerts to exactly `kinds`. A person who had none starts from now: their first digest lists
 * what happens after they picked, never the organization's past.
 */
export async function saveAlerts(
  db: Queryable,
  caller: ConsoleCaller,
  kinds: readonly AlertKind[],
): Promise<AlertsAnswer> {
  await db.query(
    `insert into alert_preferences (user_id, organization_id, kinds) values ($1, $2, $3::text[])
     on conflict (user_id) do update set kinds = excluded.kinds,
       through = case when cardinality(alert_preferences.kinds) = 0 then clock_timestamp()
                      else alert_preferences.through end,
       updated_at = clock_timestamp()
     where alert_preferences.organization_id = excluded.organization_id`,
    [caller.user.id, caller.organization.id, ALERT_KINDS.filter((kind) => kinds.includes(kind))],
  );
  return alertsOf(db, caller);
}
