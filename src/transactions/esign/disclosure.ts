import { createHash } from 'node:crypto';
import type { TemplateDefinition } from '../templates/schema.ts';

/**
 * The Electronic Record and Signature Disclosure a recipient reads before their first signature (ESIGN Act
 * 15 U.S.C. 7001(c), UETA; docs/esign-consent.md): the template's own (`disclosure`, Markdown) when it has one,
 * else the organization's (`portico org disclosure`), else Portico's default below with the organization's name
 * and address written in. What is shown is what is
 * hashed and kept with each act, so the text may change later without changing what a recipient accepted.
 */

/** Where a disclosure came from. */
export type DisclosureSource = 'default' | 'organization' | 'template';

/** The longest disclosure an organization or a template may set (the template schema says it too). */
export const MAX_DISCLOSURE_LENGTH = 20_000;

/** The disclosure as shown: its Markdown text, where it came from, and the SHA-256 of the text (hex). */
export interface Disclosure {
  source: DisclosureSource;
  text: string;
  sha256: string;
}

/**
 * Who asks, as the default text names them: the organization, and the address its sender entity gives; and the
 * organization's own disclosure, if it set one.
 */
export interface DisclosureParty {
  organizationName: string;
  contactEmail: string | null;
  organizationDisclosure?: string | null | undefined;
}

/**
 * Portico's default, in plain words: what agreeing means, paper instead and paper copies, withdrawing and what
 * follows, what one needs, keeping the e-mail address current. It says only what Portico does (the portal's
 * links, the signed copy mailed); what the organization does on paper is left to the organization to say.
 */
function defaultText({ organizationName: who, contactEmail }: DisclosureParty): string {
  const write = contactEmail === null ? `write to ${who}` : `write to ${who} at ${contactEmail}`;
  return [
    `${who} asks you to receive the documents of this transaction and sign them electronically, on this site, instead of on paper. Please read this before you agree.`,
    `**What you agree to.** The forms, agreements and notices of this transaction are given to you electronically, on these pages and by e-mail, and you sign by typing your name. Your typed name is your signature, with the same effect as one written by hand. Your agreement covers this transaction only.`,
    `**Paper instead.** You do not have to agree. To sign on paper, choose “Sign on paper instead” on these pages, or ${write}; they will tell you how to go on and whether paper has any cost. You can also ask them for a paper copy of any document you signed here.`,
    `**Withdrawing.** You can withdraw your agreement at any time, from “Electronic records” at the bottom of each page, or ${write}. Withdrawing does not undo what you signed before; it stops further signing here, and ${who} goes on with you on paper, which may take longer.`,
    `**What you need.** A phone or computer with a current web browser (such as Chrome, Edge, Firefox or Safari) and an internet connection; a program that opens PDF files (most browsers do), to read the documents and to save or print them; and an e-mail address you can read. Each signed document can be downloaded from these pages while your link works, and a link to it is mailed to you.`,
    `**Your e-mail address.** Mail about this transaction goes to the address ${who} has for you. To change it, ${write}: they send a new link to the new address.`,
  ].join('\n\n');
}

/** The SHA-256 of a disclosure's text (UTF-8), in hex. */
export function disclosureHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The disclosure a transaction of this template shows its recipient. */
export function disclosureOf(
  definition: Pick<TemplateDefinition, 'disclosure'>,
  party: DisclosureParty,
): Disclosure {
  const template = definition.disclosure?.trim();
  const organization = party.organizationDisclosure?.trim();
  const [source, text]: [DisclosureSource, string] = template
    ? ['template', template]
    : organization
      ? ['organization', organization]
      : ['default', defaultText(party)];
  return { source, text, sha256: disclosureHash(text) };
}
