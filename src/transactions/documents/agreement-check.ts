import { createHash } from 'node:crypto';
import type { PathSegment } from '../../validation/problems.ts';
import type { PdfField } from './agreement-pdf.ts';
import { documentWorkers, type DocumentWorkers } from './document-workers.ts';
import { placeholdersOf } from './agreement-text.ts';
import { declaredProperties } from '../templates/schema-properties.ts';
import {
  MAX_AGREEMENT_MEGABYTES,
  type DocumentDefinition,
  type ProcessDefinition,
  type TemplateDefinition,
} from '../templates/schema.ts';

type Problem = { path: PathSegment[]; message: string };

interface PropertySchema {
  type?: unknown;
  enum?: unknown;
  oneOf?: unknown;
  properties?: Record<string, PropertySchema>;
}

/** The property an answer reference (`item.field.nested`) names in a process, or why it names none. */
function resolve(
  process: ProcessDefinition,
  reference: string,
): { property: PropertySchema } | { problem: string } {
  const [vulcanKey = '', ...path] = reference.split('.');
  const item = process.items.find((candidate) => candidate.vulcanKey === vulcanKey);
  if (!item) {
    return {
      problem: `no item "${vulcanKey}" in this process (its items: ${process.items.map((i) => i.vulcanKey).join(', ')})`,
    };
  }
  if (path.length === 0) return { problem: 'name a field of the item too: `item.field`' };
  let property: PropertySchema = item.schema;
  for (const [index, name] of path.entries()) {
    const properties = (index === 0 ? declaredProperties(property) : property.properties) as
      Record<string, PropertySchema> | undefined;
    const next = properties && Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (next === undefined) {
      const known = Object.keys(declaredProperties(item.schema));
      return {
        problem: `item "${vulcanKey}" has no field "${path.join('.')}" (its fields: ${known.join(', ')})`,
      };
    }
    property = next;
  }
  return { property };
}

/**
 * The mistakes of a document's agreement that the template alone shows: text and PDF both or neither, a
 * placeholder or a mapping that names no field, a signature placed for a role that does not sign, or a signing
 * role given no place.
 */
export function agreementProblems(process: ProcessDefinition, document: DocumentDefinition): Problem[] {
  const agreement = document.agreement;
  if (agreement === undefined) return [];
  const problems: Problem[] = [];
  const flag = (path: PathSegment[], message: string) =>
    problems.push({ path: ['agreement', ...path], message });
  if (agreement.text !== undefined && agreement.pdf !== undefined) {
    flag([], 'give the agreement as `text` or as `pdf`, not both');
  } else if (agreement.text === undefined && agreement.pdf === undefined) {
    flag([], "give the agreement's Markdown as `text`, or the fund's PDF as `pdf`");
  }
  if (agreement.text !== undefined) {
    for (const name of ['fields', 'signatures', 'sha256'] as const) {
      if (agreement[name] !== undefined)
        flag([name], `is for a PDF agreement; a text agreement has placeholders`);
    }
    for (const { reference, line } of placeholdersOf(agreement.text)) {
      const found = resolve(process, reference);
      if ('problem' in found)
        flag(['text'], `the placeholder {{${reference}}} on line ${line} of the text: ${found.problem}`);
    }
  }
  if (agreement.pdf !== undefined) {
    for (const [name, reference] of Object.entries(agreement.fields ?? {})) {
      const found = resolve(process, reference);
      if ('problem' in found) flag(['fields', name], found.problem);
    }
    for (const role of Object.keys(agreement.signatures ?? {})) {
      if (!document.signedBy.includes(role)) {
        flag(
          ['signatures', role],
          `"${role}" does not sign this document (signedBy: ${document.signedBy.join(', ')})`,
        );
      }
    }
    for (const role of agreement.text === undefined ? document.signedBy : []) {
      if (agreement.signatures?.[role] === undefined) {
        flag(['signatures'], `say where the ${role}'s signature goes: a box on a page, or a form field`);
      }
    }
  }
  return problems;
}

/** A fund PDF a template carries, as the import stores it. */
export interface AgreementFile {
  sha256: string;
  filename: string;
  content: Uint8Array;
}

const FIELD_FITS: Record<PdfField['kind'], { fits: (property: PropertySchema) => boolean; needs: string }> = {
  text: { fits: () => true, needs: '' },
  checkbox: { fits: (property) => property.type === 'boolean', needs: 'a yes/no (boolean) field' },
  choice: {
    fits: (property) => Array.isArray(property.enum) || Array.isArray(property.oneOf),
    needs: 'a field with choices (enum or oneOf)',
  },
  other: { fits: () => false, needs: 'nothing: it is a button or a signature field, which holds no answer' },
};

/**
 * Checks the fund PDFs a template names against the files sent with it: each is there, is a PDF, is not
 * encrypted, has the form fields its mapping names (of a kind that fits the answer) and the pages its signature
 * boxes are on. Gives the template with each PDF's SHA-256 written in, and the files to store. Each PDF is read
 * by a document worker (`workers`, the process's by default), off the event loop.
 */
export async function checkAgreementFiles(
  template: TemplateDefinition,
  files: ReadonlyMap<string, Uint8Array>,
  workers: DocumentWorkers = documentWorkers(),
): Promise<{ problems: Problem[]; definition: TemplateDefinition; stored: AgreementFile[] }> {
  const problems: Problem[] = [];
  const stored: AgreementFile[] = [];
  const processes = await Promise.all(
    template.processes.map(async (process, p) => {
      if (!process.documents) return process;
      const documents = await Promise.all(
        process.documents.map(async (document, d) => {
          const agreement = document.agreement;
          if (agreement?.pdf === undefined) return document;
          const at = (...path: PathSegment[]) => ['processes', p, 'documents', d, 'agreement', ...path];
          const content = files.get(agreement.pdf);
          if (content === undefined) {
            problems.push({
              path: at('pdf'),
              message: `"${agreement.pdf}" was not found beside the template`,
            });
            return document;
          }
          if (content.byteLength > MAX_AGREEMENT_MEGABYTES * 1024 * 1024) {
            problems.push({
              path: at('pdf'),
              message: `"${agreement.pdf}" is larger than ${MAX_AGREEMENT_MEGABYTES} MB`,
            });
            return document;
          }
          const inspected = await workers.inspect(content);
          if (!inspected.ok) {
            problems.push({ path: at('pdf'), message: `"${agreement.pdf}" ${inspected.message}` });
            return document;
          }
          const named = new Map(inspected.fields.map((field) => [field.name, field]));
          const listed =
            inspected.fields.length === 0
              ? 'it has no form fields'
              : `its form fields: ${inspected.fields.map((field) => field.name).join(', ')}`;
          for (const [name, reference] of Object.entries(agreement.fields ?? {})) {
            const field = named.get(name);
            const found = resolve(process, reference);
            if (!field) {
              problems.push({
                path: at('fields', name),
                message: `the PDF has no form field "${name}" (${listed})`,
              });
            } else if ('property' in found && !FIELD_FITS[field.kind].fits(found.property)) {
              problems.push({
                path: at('fields', name),
                message: `the PDF's field "${name}" takes ${FIELD_FITS[field.kind].needs}; "${reference}" is not one`,
              });
            }
          }
          for (const [role, place] of Object.entries(agreement.signatures ?? {})) {
            if ('field' in place && !named.has(place.field)) {
              problems.push({
                path: at('signatures', role, 'field'),
                message: `the PDF has no form field "${place.field}" (${listed})`,
              });
            } else if ('page' in place && place.page > inspected.pageCount) {
              problems.push({
                path: at('signatures', role, 'page'),
                message: `the PDF has ${inspected.pageCount} page${inspected.pageCount === 1 ? '' : 's'}`,
              });
            }
          }
          const sha256 = createHash('sha256').update(content).digest('hex');
          stored.push({ sha256, filename: agreement.pdf, content });
          return { ...document, agreement: { ...agreement, sha256 } };
        }),
      );
      return { ...process, documents };
    }),
  );
  return { problems, definition: { ...template, processes }, stored };
}
