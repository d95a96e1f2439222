import type { Queryable, Transaction } from '../../db/database.ts';
import { AppError, esignConsentRequired } from '../../errors.ts';
import { linkOrigin, recordActivity } from '../history/activity.ts';
import type { Subject } from '../subject.ts';
import { disclosureHash, disclosureOf, MAX_DISCLOSURE_LENGTH, type Disclosure } from './disclosure.ts';

/**
 * A recipient's consent to use electronic records and signatures (ESIGN Act 15 U.S.C. 7001(c), UETA;
 * docs/esign-consent.md). Each act is a row of `esign_consents` that never changes, with the disclosure as shown,
 * the time, the IP address and the user agent, and an entry in the transaction's timeline; the latest act of a
 * recipient decides whether they may sign. A withdrawal or a request for paper queues a mail to the organization
 * (organization-notice.ts), in the same database transaction.
 *
 * Only recipients acting for themselves give it. The organization's own people signing in a sender role (the
 * countersignature, documents/countersign.ts) sign for a business, not as a consumer, and need none.
 */

/** What a recipient did about the disclosure. */
export const ESIGN_ACTS = ['consented', 'withdrawn', 'paper_requested'] as const;
export type EsignAct = (typeof ESIGN_ACTS)[number];

/** The timeline's action for each act (kind `recipient`). */
export const ESIGN_ACTIVITY: Record<EsignAct, string> = {
  consented: 'esign_consented',
  withdrawn: 'esign_withdrawn',
  paper_requested: 'paper_requested',
};

/** The latest act of a recipient: what it was, when, against which disclosure, and what they wrote. */
export interface EsignStanding {
  act: EsignAct;
  at: Date;
  disclosureSha256: string;
  message: string | null;
}

/** Where an act came from, as for a signature (actions.ts `SignatureContext`). */
export interface EsignContext {
  ipAddress: string;
  userAgent: string | undefined;
  requestId?: string | undefined;
}

/** The longest message a withdrawal or a request for paper carries. */
export const MAX_ESIGN_MESSAGE_LENGTH = 1000;

/** Whether `role` signs for the organization (a sender role), which needs no consent. */
function signsForTheOrganization(subject: Subject, role: string): boolean {
  return subject.definition.recipientRoles.some(
    (candidate) => candidate.key === role && candidate.sender === true,
  );
}

/** The latest act of a recipient of the organization, or null when they have done none. */
export async function esignStanding(
  db: Queryable,
  options: { organizationId: string; recipientId: string },
): Promise<EsignStanding | null> {
  const [row] = await db.query<EsignStanding>(
    `select act, created_at as at, disclosure_sha256 as "disclosureSha256", message from esign_consents
     where organization_id = $1 and transaction_recipient_id = $2 order by created_at desc, sequence desc limit 1`,
    [options.organizationId, options.recipientId],
  );
  return row ?? null;
}

/** The disclosure a transaction's recipient reads: the template's, or the default naming the organization. */
export async function disclosureFor(db: Queryable, subject: Subject): Promise<Disclosure> {
  const [party] = await db.query<{
    organizationName: string;
    contactEmail: string | null;
    organizationDisclosure: string | null;
  }>(
    `select o.name as "organizationName", s.email as "contactEmail", o.esign_disclosure as "organizationDisclosure"
     from organizations o join entities s on s.id = $2 and s.organization_id = o.id where o.id = $1`,
    [subject.organizationId, subject.senderEntityId],
  );
  return disclosureOf(subject.definition, {
    organizationName: party?.organizationName ?? '',
    contactEmail: party?.contactEmail ?? null,
    organizationDisclosure: party?.organizationDisclosure ?? null,
  });
}

/**
 * Sets the organization's own disclosure, shown where a template has none (`text`, Markdown), or, with null, goes
 * back to Portico's default. What recipients accepted before keeps the text they were shown.
 *
 * @example
 * await setOrganizationDisclosure(db, { organizationId, text: await readFile('disclosure.md', 'utf8') });
 */
export async function setOrganizationDisclosure(
  db: Queryable,
  options: { organizationId: string; text: string | null },
): Promise<{ source: 'organization' | 'default'; sha256: string | null }> {
  const text = options.text?.trim() ?? '';
  if (text.length > MAX_DISCLOSURE_LENGTH) {
    throw new AppError(
      'BAD_USER_INPUT',
      `a disclosure takes at most ${MAX_DISCLOSURE_LENGTH.toLocaleString('en-US')} characters`,
      { field: 'text' },
    );
  }
  await db.query('update organizations set esign_disclosure = $2 where id = $1', [
    options.organizationId,
    text === '' ? null : text,
  ]);
  return text === ''
    ? { source: 'default', sha256: null }
    : { source: 'organization', sha256: disclosureHash(text) };
}

/**
 * Refuses (ESIGN_CONSENT_REQUIRED) a signature of a recipient whose latest act is not a consent: none on record,
 * or withdrawn (with paper asked for, or not). A sender role passes: the organization signs for itself.
 */
export async function requireEsignConsent(
  db: Queryable,
  subject: Subject,
  signer: { recipientId: string; role: string },
): Promise<void> {
  if (signsForTheOrganization(subject, signer.role)) return;
  const standing = await esignStanding(db, {
    organizationId: subject.organizationId,
    recipientId: signer.recipientId,
  });
  if (standing?.act === 'consented') return;
  throw esignConsentRequired(
    standing === null ? null : { at: standing.at, paperRequested: standing.act === 'paper_requested' },
  );
}

/**
 * Records an act of a recipient about the disclosure, in the caller's database transaction (which has locked the
 * transaction's row): the row with the disclosure shown, the time, IP address and user agent; the timeline's
 * entry; for a withdrawal or a request for paper, the organization's mail, due at once. The same act twice in a
 * row (a double click, a second tab) records nothing more and answers the first. Withdrawing what was never
 * given is refused (CONFLICT); asking for paper is not: a recipient may choose paper from the start.
 *
 * @example
 * await recordEsignAct(tx, subject, { recipientId, act: 'consented', context: { ipAddress, userAgent, requestId } });
 */
export async function recordEsignAct(
  tx: Transaction,
  subject: Subject,
  options: {
    recipientId: string;
    act: EsignAct;
    message?: string | undefined;
    context: EsignContext;
  },
): Promise<EsignStanding> {
  const { recipientId, act, context } = options;
  const message = options.message?.trim() ?? '';
  if (message.length > MAX_ESIGN_MESSAGE_LENGTH) {
    throw new AppError(
      'BAD_USER_INPUT',
      `a message to the organization takes at most ${String(MAX_ESIGN_MESSAGE_LENGTH)} characters`,
      { field: 'message' },
    );
  }
  const before = await esignStanding(tx, { organizationId: subject.organizationId, recipientId });
  if (before?.act === act) return before;
  if (act === 'withdrawn' && before?.act !== 'consented') {
    throw new AppError('CONFLICT', 'there is no agreement to use electronic records to withdraw');
  }
  const disclosure = await disclosureFor(tx, subject);
  const [row] = await tx.query<EsignStanding>(
    `insert into esign_consents (organization_id, transaction_id, transaction_recipient_id, act, disclosure_source,
       disclosure_text, disclosure_sha256, message, ip_address, user_agent, request_id, notice_due_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, case when $4 = 'consented' then null else clock_timestamp() end)
     returning act, created_at as at, disclosure_sha256 as "disclosureSha256", message`,
    [
      subject.organizationId,
      subject.id,
      recipientId,
      act,
      disclosure.source,
      disclosure.text,
      disclosure.sha256,
      message === '' ? null : message,
      context.ipAddress,
      context.userAgent ?? null,
      context.requestId ?? null,
    ],
  );
  if (!row) throw new Error('no esign consent row');
  await recordActivity(tx, {
    organizationId: subject.organizationId,
    transactionId: subject.id,
    kind: 'recipient',
    action: ESIGN_ACTIVITY[act],
    actor: {
      type: 'recipient',
      id: recipientId,
      requestId: context.requestId,
      origin: await linkOrigin(tx, subject.id, {
        ip: context.ipAddress,
        headers: { 'user-agent': context.userAgent ?? undefined },
      }),
    },
    details: {
      disclosureSha256: disclosure.sha256,
      disclosureSource: disclosure.source,
      ...(row.message === null ? {} : { message: row.message }),
    },
  });
  await tx.query('update transactions set updated_at = clock_timestamp() where id = $1', [subject.id]);
  return row;
}
