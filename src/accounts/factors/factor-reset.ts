import type { Database, Queryable } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import type { MailMessage, SentMail } from '../../mail/mailer.ts';
import { escapeHtml as html } from '../../mail/message-text.ts';
import type { AccountPages } from '../people-mail.ts';
import { resetFactorsRefusal } from '../person-changes.ts';
import { endSessionsOfColleague } from '../session-list.ts';
import { TENANT_COLUMN, normalizeEmail } from '../users.ts';
import { FACTOR_KINDS_SQL, removeEveryFactor, type FactorKind } from './factor-policy.ts';

/** The person whose factors were reset, as the reset answers them. */
export interface ResetPerson {
  id: string;
  email: string;
  name: string;
}

/** What a reset did: whose, the kinds of factor they had, how many live sessions ended, and the mail to them. */
export interface FactorReset {
  user: ResetPerson;
  removed: FactorKind[];
  sessionsEnded: number;
  /** How the mail to the person went; null when it could not be sent (the reset stands: tell them yourself). */
  mail: SentMail | null;
}

/** Who reset a person's factors: an admin of the tenant (their id, name and address), or the operator. */
export type ResetBy = { id: string; name: string; email: string } | 'operator';

/**
 * Resets a person's second factors (every kind: see factor-policy.ts) and ends their sessions, for an admin of
 * their tenant (never their own: they change theirs in their settings) or the operator of Portico (the break-glass
 * `portico … users reset-factors`, which may reset an admin's own). The person is named by id (the team's page)
 * or by address (the command); one of another tenant reads as one who does not exist. `record` keeps the change
 * in the same database transaction (the console team's activity). The person is mailed after: a mail that cannot
 * be sent leaves the reset done, and says so (`mail: null`).
 *
 * @example
 * await resetFactors(db, pages, { tenant, person: { id }, by: admin, record });
 */
export async function resetFactors(
  db: Database,
  pages: AccountPages,
  options: {
    tenant: { id: string; name: string };
    person: { id: string } | { email: string };
    by: ResetBy;
    record?:
      | ((
          tx: Queryable,
          person: ResetPerson,
          done: { removed: FactorKind[]; sessionsEnded: number },
        ) => Promise<void>)
      | undefined;
    requestId?: string | undefined;
  },
): Promise<FactorReset> {
  const { tenant, by } = options;
  const column = TENANT_COLUMN[pages.kind];
  const done = await db.transaction(async (tx) => {
    const named = 'id' in options.person ? options.person.id : normalizeEmail(options.person.email);
    const [found] = await tx.query<ResetPerson & { deactivatedAt: Date | null; hasSecondFactor: boolean }>(
      `select id, email, name, deactivated_at as "deactivatedAt",
              cardinality(${FACTOR_KINDS_SQL('users.id')}) > 0 as "hasSecondFactor"
       from users where ${column} = $1 and ${'id' in options.person ? 'id::text' : 'email'} = $2
       for update`,
      [tenant.id, named],
    );
    if (!found) throw notFound('person', named);
    // An admin resets by the rules the people's page greys its button by; the operator's break-glass always may.
    const refusal = by === 'operator' ? undefined : resetFactorsRefusal(found, by.id);
    if (refusal) throw refusal;
    const user = { id: found.id, email: found.email, name: found.name };
    const removed = await removeEveryFactor(tx, user.id);
    const sessionsEnded = await endSessionsOfColleague(tx, { kind: pages.kind, id: tenant.id }, user.id);
    await options.record?.(tx, user, { removed, sessionsEnded });
    return { user, removed, sessionsEnded };
  });
  const message = factorsResetMail({
    to: done.user.email,
    tenantName: tenant.name,
    product: pages.product,
    by,
  });
  const mail = await pages.mailer
    .send({ ...message, log: { requestId: options.requestId } })
    .catch(() => null);
  return { ...done, mail };
}

/**
 * The mail to a person whose second factors were reset: by whom, that their app, recovery codes and passkeys no longer
 * work and their sessions ended, what to do next, and what to do if they did not expect it.
 */
export function factorsResetMail(options: {
  to: string;
  tenantName: string;
  product: string;
  by: ResetBy;
}): MailMessage {
  const { tenantName, product, by } = options;
  const who =
    by === 'operator' ? `The operator of ${product}` : by.name === '' ? by.email : `${by.name} (${by.email})`;
  const lines = [
    `${who} reset your two-step sign-in for ${tenantName} on ${product}.`,
    'Your authenticator app, your recovery codes and your passkeys no longer work, and you have been signed out everywhere.',
    `Sign in with your password, then add an authenticator app or a passkey again (${tenantName} may require it at once).`,
    `If you did not expect this, tell an admin of ${tenantName}.`,
  ];
  return {
    to: options.to,
    subject: `Your two-step sign-in for ${tenantName} was reset`,
    text: `${lines.join('\n\n')}\n`,
    html: lines.map((line) => `<p>${html(line)}</p>`).join('\n'),
  };
}
