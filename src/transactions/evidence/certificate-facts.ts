import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/database.ts';
import type { FileStore } from '../../files/file-store.ts';
import type { ActOrigin } from '../actor.ts';
import type { EsignAct } from '../esign/consent.ts';
import { historyMismatch, verifyHistory } from '../history/chain.ts';
import type { ActorType, TimelineKind } from '../history/kinds.ts';
import { ACTOR_LABEL, inWords, namedActor } from '../history/timeline.ts';
import { fieldInWords } from '../templates/answer-text.ts';
import { label, words } from '../templates/key-words.ts';
import type { TemplateDefinition } from '../templates/schema.ts';
import { PAPER_FORM_KEY } from '../transitions.ts';
import { inWords as workflowInWords } from '../workflow.ts';
import type { CertificateFacts } from './certificate-pdf.ts';

/**
 * What a certificate of completion states (certificate-pdf.ts lays it out), read in one place, of one
 * organization's transaction: the transaction, its parties and how each was identified, its signatures, its
 * consents to sign electronically, each act of its history up to the head of its hash chain with where it came
 * from, and each document and upload with the SHA-256 of its bytes as the file store holds them. A history that
 * does not match its chain is not certified ({@link HistoryNotCertified}).
 */

/** A history that does not match its hash chain: it is not certified, and the reason is kept on its row. */
export class HistoryNotCertified extends Error {
  override name = 'HistoryNotCertified';
}

/** A recipient's acts about electronic records, as the certificate says them. */
const ESIGN_WORDS: Record<EsignAct, string> = {
  consented: 'Agreed to use electronic records and signatures',
  withdrawn: 'Withdrew that consent',
  paper_requested: 'Asked to sign on paper',
};
/** A recipient's acts that a key in words would not say well, as the console's timeline says them. */
const RECIPIENT_WORDS: Record<string, string> = {
  esign_consented: ESIGN_WORDS.consented,
  esign_withdrawn: ESIGN_WORDS.withdrawn,
  paper_requested: ESIGN_WORDS.paper_requested,
};
const KIND_WORDS: Record<string, string> = {
  upload: 'Upload',
  signed: 'Signed document',
  paper: 'Paper form',
};

/** The SHA-256 (hex) of a file's bytes as the store holds them, read as a stream. */
async function sha256Of(files: FileStore, storageKey: string, name: string): Promise<string> {
  const opened = await files.open(storageKey);
  if (opened === undefined) throw new Error(`the file "${name}" is not in the file store`);
  const hash = createHash('sha256');
  for await (const chunk of opened.stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

interface ActRow {
  id: string;
  position: string;
  at: Date;
  source: 'event' | 'activity';
  kind: string | null;
  action: string;
  details: Record<string, unknown>;
  actorType: ActorType;
  actorId: string | null;
  actorLabel: string | null;
  origin: ActOrigin | null;
}

/** An entry of the history in words: what happened, naming the template's parts by their titles. */
function whatOf(row: ActRow, definition: TemplateDefinition): string {
  const names = workflowInWords(definition.workflow);
  const base = { id: row.id, at: row.at, requestId: null, origin: row.origin };
  let kind: TimelineKind;
  let entry: { action: string; details: Record<string, unknown> };
  if (row.source === 'activity') {
    kind = (row.kind ?? 'console') as TimelineKind;
    entry = { action: row.action, details: row.details };
  } else if (row.action.startsWith('consent.')) {
    kind = 'recipient';
    entry = { action: row.action, details: {} };
  } else if (row.action.startsWith('mail.')) {
    return `Mail sent: ${words(row.action.slice(5))}`;
  } else {
    const { from, to } = row.details as { from?: string | null; to?: string };
    const moved = to === undefined ? '' : ` (${from ? `${names.state(from)} to ` : 'to '}${names.state(to)})`;
    return `${names.event(row.action)}${moved}`;
  }
  const said = inWords({ ...base, kind, ...entry }, definition, []);
  const { details } = said;
  const what =
    kind === 'mail' && typeof details.message === 'string'
      ? `Mail ${said.action}: ${words(details.message)}`
      : (RECIPIENT_WORDS[said.action] ?? label(said.action));
  const about = ['document', 'item', 'on', 'to', 'process']
    .map((key) => details[key])
    .find((value): value is string => typeof value === 'string');
  return `${kind === 'api' ? 'API: ' : ''}${what}${about === undefined ? '' : `: ${about}`}`;
}

/**
 * The facts of a transaction's certificate, with the history checked first (one statement) and only its entries
 * up to the head it checked listed: entries written meanwhile (the signed copy's mail) wait for no one.
 * HistoryNotCertified when the history does not match its chain; NOT_FOUND for another organization's.
 */
export async function certificateFactsOf(
  db: Queryable,
  options: { organizationId: string; transactionId: string; files: FileStore; madeAt?: Date },
): Promise<CertificateFacts> {
  const check = await verifyHistory(db, options);
  if (!check.ok) throw new HistoryNotCertified(historyMismatch(check));
  if (check.head === null) throw new HistoryNotCertified('The history has no entry to certify.');
  const chain = { position: check.entries, head: check.head };
  const ids = [options.transactionId, options.organizationId];
  const [transaction] = await db.query<
    Omit<
      CertificateFacts,
      'title' | 'parties' | 'signatures' | 'consents' | 'acts' | 'files' | 'chain' | 'madeAt' | 'state'
    > & {
      state: string;
      definition: TemplateDefinition;
    }
  >(
    `select t.id as "transactionId", t.organization_id as "organizationId", o.name as "organizationName",
       json_build_object('name', tp.name, 'key', tp.key, 'version', tp.version) as template,
       json_build_object('name', s.name, 'email', s.email) as sender,
       coalesce(t.investor_name, t.notice_name) as "investorName",
       json_build_object('name', t.notice_name, 'email', t.notice_email) as notice,
       t.state, t.created_at as "createdAt", t.completed_at as "completedAt", tp.definition
     from transactions t join templates tp on tp.id = t.template_id join entities s on s.id = t.sender_entity_id
     join organizations o on o.id = t.organization_id
     where t.id = $1 and t.organization_id = $2 and t.completed_at is not null`,
    ids,
  );
  if (!transaction) throw new HistoryNotCertified('The transaction is not complete.');
  const { definition, state, ...summary } = transaction;
  const roleOf = (key: string) => label(key);

  const parties = await db.query<{
    name: string;
    role: string;
    email: string | null;
    identifiedBy: string[];
    sender: boolean;
  }>(
    `select e.name, r.vulcan_key as role, coalesce(case when r.id = first.id then t.notice_email end, e.email) as email,
       array(select distinct o.identified_by from transaction_history_origins o
             join (select id, actor_type, actor_id from transaction_events where transaction_id = $1
                   union all select id, actor_type, actor_id from transaction_activity where transaction_id = $1) h
               on h.id = o.entry_id
             where o.transaction_id = $1 and h.actor_type = 'recipient' and h.actor_id = r.id::text
             order by o.identified_by) as "identifiedBy",
       false as sender
     from transaction_recipients r join entities e on e.id = r.entity_id join transactions t on t.id = r.transaction_id
     cross join lateral (select id from transaction_recipients where transaction_id = $1
                         order by created_at, sequence limit 1) first
     where r.transaction_id = $1 and r.organization_id = $2
     order by r.created_at, r.sequence`,
    ids,
  );
  const senderRoles = new Set(
    definition.recipientRoles.filter((role) => role.sender === true).map((role) => role.key),
  );
  const documentTitles = new Map(
    definition.processes
      .flatMap((process) => process.documents ?? [])
      .map((document) => [document.key, document.title ?? label(document.key)]),
  );

  const signatures = await db.query<CertificateFacts['signatures'][number]>(
    `select c.document_key as document, s.signed_name as "signedName", r.vulcan_key as role, s.signed_at as at,
       s.ip_address as "ipAddress", s.user_agent as "userAgent"
     from transaction_signatures s
     join transaction_signature_containers c on c.id = s.transaction_signature_container_id
     join transaction_recipients r on r.id = s.transaction_recipient_id
     where c.transaction_id = $1 and s.organization_id = $2 and s.state = 'signed'
     order by s.signed_at, s.sequence`,
    ids,
  );

  const consents = await db.query<{
    party: string;
    act: EsignAct;
    at: Date;
    source: string;
    sha256: string;
    ipAddress: string | null;
    userAgent: string | null;
  }>(
    `select e.name as party, c.act, c.created_at as at, c.disclosure_source as source, c.disclosure_sha256 as sha256,
       c.ip_address as "ipAddress", c.user_agent as "userAgent"
     from esign_consents c join transaction_recipients r on r.id = c.transaction_recipient_id
     join entities e on e.id = r.entity_id
     where c.transaction_id = $1 and c.organization_id = $2
     order by c.created_at, c.sequence`,
    ids,
  );

  const acts = await db.query<ActRow>(
    `with entries as (
       select e.id, e.chain_position, e.created_at, 'event' as source, null::text as kind, e.event_key as action,
         jsonb_build_object('from', e.source_state, 'to', e.target_state) as details, e.actor_type, e.actor_id
       from transaction_events e where e.transaction_id = $1 and e.organization_id = $2 and e.chain_position <= $3
       union all
       select a.id, a.chain_position, a.created_at, 'activity', a.kind, a.action, a.details, a.actor_type, a.actor_id
       from transaction_activity a where a.transaction_id = $1 and a.organization_id = $2 and a.chain_position <= $3)
     select entries.id, entries.chain_position::text as position, entries.created_at as at, entries.source,
       entries.kind, entries.action, entries.details, entries.actor_type as "actorType",
       entries.actor_id as "actorId", ${ACTOR_LABEL('entries')} as "actorLabel",
       (select json_build_object('ipAddress', o.ip_address, 'userAgent', o.user_agent, 'identifiedBy', o.identified_by)
        from transaction_history_origins o where o.entry_id = entries.id) as origin
     from entries order by entries.chain_position`,
    [...ids, chain.position],
  );

  const stored = await db.query<{
    kind: string;
    name: string;
    of: string;
    byteSize: string;
    storageKey: string;
  }>(
    `select case when tf.vulcan_key = $3 then 'paper' else 'upload' end as kind,
       coalesce(f.override_filename, f.original_filename) as name, tf.vulcan_key as of, f.byte_size as "byteSize",
       f.storage_key as "storageKey", tf.created_at, tf.sequence, 2 as source
     from transaction_files tf join files f on f.id = tf.file_id
     where tf.transaction_id = $1 and tf.organization_id = $2 and f.storage_key is not null
     union all
     select 'signed', coalesce(f.override_filename, f.original_filename), c.document_key, f.byte_size, f.storage_key,
       sf.created_at, sf.sequence, 1
     from transaction_signature_files sf join files f on f.id = sf.file_id
     join transaction_signature_containers c on c.id = sf.transaction_signature_container_id
     where sf.transaction_id = $1 and sf.organization_id = $2 and f.storage_key is not null
     order by source, created_at, sequence`,
    [...ids, PAPER_FORM_KEY],
  );
  const files: CertificateFacts['files'] = [];
  for (const file of stored) {
    const [vulcanKey = '', ...field] = file.of.split('.');
    files.push({
      kind: KIND_WORDS[file.kind] ?? label(file.kind),
      name: file.name,
      of:
        file.kind === 'signed'
          ? (documentTitles.get(file.of) ?? label(file.of))
          : file.kind === 'paper'
            ? 'the forms, signed on paper'
            : field.length === 0
              ? file.of
              : fieldInWords(definition, vulcanKey, field.join('.')),
      byteSize: Number(file.byteSize),
      sha256: await sha256Of(options.files, file.storageKey, file.name),
    });
  }

  return {
    ...summary,
    title: `${summary.template.name} - ${summary.investorName}`,
    state: workflowInWords(definition.workflow).state(state),
    madeAt: options.madeAt ?? new Date(),
    parties: parties.map((party) => ({
      name: party.name,
      role: roleOf(party.role),
      email: party.email,
      identifiedBy:
        party.identifiedBy.length > 0
          ? party.identifiedBy.join('; ')
          : senderRoles.has(party.role)
            ? `signs for the sender, ${summary.sender.name}`
            : 'no act of theirs came with a request',
    })),
    signatures: signatures.map((signature) => ({
      ...signature,
      document: documentTitles.get(signature.document) ?? label(signature.document),
      role: roleOf(signature.role),
    })),
    consents: consents.map((consent) => ({
      party: consent.party,
      act: ESIGN_WORDS[consent.act],
      at: consent.at,
      disclosure: `${consent.source === 'default' ? "Portico's default" : `the ${consent.source}'s`}, SHA-256 ${consent.sha256.slice(0, 16)}…`,
      ipAddress: consent.ipAddress,
      userAgent: consent.userAgent,
    })),
    acts: acts.map((row) => {
      const actor = namedActor(row);
      return {
        position: Number(row.position),
        at: row.at,
        what: whatOf(row, definition),
        by: actor.type === 'api_key' ? `API key ${actor.label}` : actor.label,
        ipAddress: row.origin?.ipAddress ?? null,
        userAgent: row.origin?.userAgent ?? null,
        identifiedBy: row.origin?.identifiedBy ?? null,
      };
    }),
    files,
    chain,
  };
}
