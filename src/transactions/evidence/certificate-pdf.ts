import { printable } from '../documents/pdf-writer.ts';
import { CertificateLayout, shortUserAgent, utc } from './certificate-layout.ts';
import type { SealCredential } from './seal-credential.ts';

/**
 * The certificate of completion's PDF (docs/evidence.md, "The certificate of completion"), laid out in a document
 * worker from plain facts read beforehand (certificate-facts.ts) and sealed as a signed document is: the
 * transaction, its parties, its signatures, each act of its history with where it came from, the consents to sign
 * electronically, each document's and upload's SHA-256, and the head of the history's hash chain it certifies.
 * Tables run over as many pages as they need, their header repeated; text people wrote (names, user agents, file
 * names) is drawn in the characters the standard fonts encode (`printable`).
 */

/** Everything a certificate is made from: plain data a document worker receives by structured clone. */
export interface CertificateFacts {
  transactionId: string;
  /** Whose seal seals it. */
  organizationId: string;
  /** "<template name> - <investor>": the certificate's title and its file's name. */
  title: string;
  organizationName: string;
  template: { name: string; key: string; version: number };
  sender: { name: string; email: string | null };
  investorName: string;
  /** The contact person the invitation went to. */
  notice: { name: string; email: string };
  /** The state it ended in, in the template's words. */
  state: string;
  createdAt: Date;
  completedAt: Date;
  /** When the facts were read: the certificate's own time. */
  madeAt: Date;
  parties: { name: string; role: string; email: string | null; identifiedBy: string }[];
  signatures: {
    document: string;
    signedName: string;
    role: string;
    at: Date;
    ipAddress: string | null;
    userAgent: string | null;
  }[];
  consents: {
    party: string;
    act: string;
    at: Date;
    disclosure: string;
    ipAddress: string | null;
    userAgent: string | null;
  }[];
  /** Each entry of the history up to the head, by its place in the chain. */
  acts: {
    position: number;
    at: Date;
    what: string;
    by: string;
    ipAddress: string | null;
    userAgent: string | null;
    identifiedBy: string | null;
  }[];
  files: { kind: string; name: string; of: string; byteSize: number; sha256: string }[];
  chain: { position: number; head: string };
}

const orDash = (value: string | null | undefined) =>
  value === null || value === undefined || value === '' ? '-' : value;
const agent = (userAgent: string | null) => (userAgent === null ? '-' : shortUserAgent(userAgent));

/** Writes the certificate's sections, in the order a reader checks them. */
function writeCertificate(layout: CertificateLayout, facts: CertificateFacts): void {
  layout.text('Certificate of completion', { size: 20, face: 'bold' });
  layout.text(facts.title, { size: 12 });
  layout.y -= 6;
  layout.heading('Summary');
  layout.facts([
    ['Transaction', facts.transactionId, 'mono'],
    ['Organization', facts.organizationName],
    [
      'Sender',
      facts.sender.email === null ? facts.sender.name : `${facts.sender.name} <${facts.sender.email}>`,
    ],
    ['Investor', facts.investorName],
    ['Invitation sent to', `${facts.notice.name} <${facts.notice.email}>`],
    ['Template', `${facts.template.name} (${facts.template.key}), version ${String(facts.template.version)}`],
    ['State', facts.state],
    ['Created', utc(facts.createdAt)],
    ['Completed', utc(facts.completedAt)],
    ['Certificate made', utc(facts.madeAt)],
  ]);

  layout.heading('Parties');
  layout.table(
    [
      { title: 'Name', share: 0.24 },
      { title: 'Role', share: 0.16 },
      { title: 'E-mail', share: 0.26 },
      { title: 'Identified by', share: 0.34 },
    ],
    facts.parties.map((party) => [party.name, party.role, orDash(party.email), party.identifiedBy]),
    'No parties.',
  );

  layout.heading('Signatures');
  layout.table(
    [
      { title: 'Document', share: 0.2 },
      { title: 'Signed as', share: 0.22 },
      { title: 'Time (UTC)', share: 0.17 },
      { title: 'IP address', share: 0.16 },
      { title: 'User agent', share: 0.25 },
    ],
    facts.signatures.map((signature) => [
      signature.document,
      `${signature.signedName} (${signature.role})`,
      utc(signature.at),
      orDash(signature.ipAddress),
      agent(signature.userAgent),
    ]),
    'No signatures.',
  );

  layout.heading('Consents to sign electronically');
  layout.table(
    [
      { title: 'Party', share: 0.18 },
      { title: 'Act', share: 0.2 },
      { title: 'Time (UTC)', share: 0.16 },
      { title: 'Disclosure', share: 0.16 },
      { title: 'IP address', share: 0.13 },
      { title: 'User agent', share: 0.17 },
    ],
    facts.consents.map((consent) => [
      consent.party,
      consent.act,
      utc(consent.at),
      consent.disclosure,
      orDash(consent.ipAddress),
      agent(consent.userAgent),
    ]),
    'No consent was recorded (a party that signs for the sender needs none).',
  );

  layout.heading('Documents and uploads');
  for (const file of facts.files) {
    layout.facts([
      [file.kind, `${file.name} (${file.of}), ${String(file.byteSize)} bytes`],
      ['SHA-256', file.sha256, 'mono'],
    ]);
    layout.y -= 3;
  }
  if (facts.files.length === 0) layout.text('No documents or uploads.');

  layout.heading('History');
  layout.text(
    `Each act of the history, in the order of its hash chain. User agents are shortened; the history keeps them whole.`,
    { size: 8 },
  );
  layout.table(
    [
      { title: '#', share: 0.04 },
      { title: 'Time (UTC)', share: 0.15 },
      { title: 'Act', share: 0.25 },
      { title: 'By', share: 0.12 },
      { title: 'IP address', share: 0.12 },
      { title: 'User agent', share: 0.15 },
      { title: 'Identified by', share: 0.17 },
    ],
    facts.acts.map((act) => [
      String(act.position),
      utc(act.at),
      act.what,
      act.by,
      orDash(act.ipAddress),
      agent(act.userAgent),
      orDash(act.identifiedBy),
    ]),
    'No acts.',
  );

  layout.heading('The history it certifies');
  layout.facts([
    ['Template version', `${facts.template.name}, version ${String(facts.template.version)}`],
    ['Entries', String(facts.chain.position)],
    ['Chain head (SHA-256)', facts.chain.head, 'mono'],
  ]);
  layout.y -= 4;
  layout.text(
    `To check it: \`portico verify --transaction ${facts.transactionId}\` recomputes the history's hash chain; its head must read as above. \`portico verify <this file>\` (or pdfsig, or Adobe Reader) checks this certificate's seal. See docs/evidence.md.`,
    { size: 8 },
  );
}

/** The certificate's PDF, sealed with `seal` when one is given (as a signed document is: evidence/pades.ts). */
export async function makeCertificatePdf(
  facts: CertificateFacts,
  seal?: SealCredential,
): Promise<Uint8Array> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const pdf = await PDFDocument.create();
  const fonts = {
    regular: pdf.embedStandardFont(StandardFonts.Helvetica),
    bold: pdf.embedStandardFont(StandardFonts.HelveticaBold),
    mono: pdf.embedStandardFont(StandardFonts.Courier),
  };
  const layout = new CertificateLayout(pdf, fonts);
  writeCertificate(layout, facts);
  layout.footers(facts.transactionId);
  pdf.setTitle(printable(`Certificate of completion: ${facts.title}`));
  pdf.setCreator('Portico');
  if (seal === undefined) return pdf.save();
  const { sealPdf } = await import('./pades.ts');
  return sealPdf(pdf, seal, {
    reason: `Certificate of completion of transaction ${facts.transactionId}, sealed by Portico`,
    signingTime: new Date(),
  });
}
