import { Type, type Static } from '@sinclair/typebox';
import { answers, Body, OrNull, Timestamp } from '../../../http/contract.ts';

/**
 * The contract of the console's template routes (`/console/api/templates…`): the list, a template's page, the
 * diff of two of its versions, the import and archiving. Spread into the console's `consoleRoutes` (contract.ts).
 */

/** A template key in a path: any short text, looked up in the caller's organization (an unknown one is NOT_FOUND). */
const OfTemplate = Type.Object({ key: Type.String({ minLength: 1, maxLength: 63 }) });
const Version = Type.Integer({ minimum: 1, maximum: 1_000_000 });

/** Who archived a template, and when; null while it is in use. */
const Archived = OrNull(
  Type.Object({ at: Timestamp(), by: OrNull(Type.Object({ id: Type.String(), name: Type.String() })) }),
);

/** A version of a template, as its list and its page show it. */
export const TemplateVersion = Type.Object({
  id: Type.String(),
  version: Type.Integer(),
  name: Type.String(),
  importedAt: Timestamp(),
  /** How many transactions run on (were made from) this version. */
  transactions: Type.Integer(),
});
export type TemplateVersion = Static<typeof TemplateVersion>;

/** A template (its key, named by its latest version) with its versions, newest first. */
export const TemplateSummary = Type.Object({
  key: Type.String(),
  name: Type.String(),
  description: OrNull(Type.String()),
  archived: Archived,
  versions: Type.Array(TemplateVersion),
});
export type TemplateSummary = Static<typeof TemplateSummary>;

/** A field of a version, by its titles: which the sender may prefill, and which is the commitment. */
const TemplateField = Type.Object({
  answer: Type.String(),
  title: Type.String(),
  prefill: Type.Boolean(),
  commitment: Type.Boolean(),
  required: Type.Boolean(),
});

/** What a version is made of, in its titles: its workflow (for the drawing) and its processes' fields. */
export const TemplateShape = Type.Object({
  version: Type.Integer(),
  workflow: Type.Object({
    initialState: Type.String(),
    states: Type.Array(Type.Object({ key: Type.String(), title: Type.String(), final: Type.Boolean() })),
    events: Type.Array(
      Type.Object({
        key: Type.String(),
        title: Type.String(),
        from: Type.Array(Type.String()),
        to: Type.String(),
        /** The built-in void, drawn only in words. */
        builtIn: Type.Boolean(),
      }),
    ),
  }),
  processes: Type.Array(
    Type.Object({
      key: Type.String(),
      title: Type.String(),
      items: Type.Array(
        Type.Object({ key: Type.String(), title: Type.String(), fields: Type.Array(TemplateField) }),
      ),
      documents: Type.Array(Type.String()),
    }),
  ),
  recipientRoles: Type.Array(Type.String()),
  linkValidDays: Type.Integer(),
});
export type TemplateShape = Static<typeof TemplateShape>;

/** One change between two versions, in words: what, where, and (for a change) before and after. */
export const TemplateChange = Type.Object({
  kind: Type.Union([Type.Literal('added'), Type.Literal('removed'), Type.Literal('changed')]),
  /** What changed: a state, an event, a field, a process, an item, a document, a role, a setting. */
  part: Type.String(),
  /** The part by its title, with where it is ("Legal name, in Investor details"). */
  name: Type.String(),
  /** What of it changed, for a change ("title", "moves to", "maximum"). */
  what: OrNull(Type.String()),
  before: OrNull(Type.String()),
  after: OrNull(Type.String()),
});
export type TemplateChange = Static<typeof TemplateChange>;

const ImportOutcome = Type.Union(
  (['created', 'unchanged', 'updated', 'versioned'] as const).map((outcome) => Type.Literal(outcome)),
);

export const templateRoutes = {
  /** The organization's templates, each with its versions, how many transactions run on each, and archiving. */
  listTemplates: {
    method: 'GET',
    url: '/templates',
    access: 'read',
    response: answers({ 200: Type.Object({ templates: Type.Array(TemplateSummary) }) }),
  },
  /**
   * Imports a template (admins): multipart part `file` (YAML or JSON, at most 1 MB; a pasted text comes as a
   * file), then the fund PDFs its agreements name, each a part `attachment` named as the template names it.
   * Refused with BAD_USER_INPUT or AGREEMENT_INVALID and `details.problems` (path, line, message), as the CLI.
   */
  importTemplate: {
    method: 'POST',
    url: '/templates',
    access: 'manageTemplates',
    consumes: ['multipart/form-data'],
    response: answers({
      200: Type.Object({
        template: Type.Object({
          id: Type.String(),
          key: Type.String(),
          version: Type.Integer(),
          outcome: ImportOutcome,
        }),
      }),
    }),
  },
  /** A template: its versions and what one of them (`version`, else the latest) is made of. */
  readTemplate: {
    method: 'GET',
    url: '/templates/:key',
    access: 'read',
    params: OfTemplate,
    querystring: Body({ version: Type.Optional(Version) }),
    response: answers({ 200: Type.Object({ template: TemplateSummary, shape: TemplateShape }) }),
  },
  /** The changes from one version of a template to another, in words. */
  diffTemplate: {
    method: 'GET',
    url: '/templates/:key/diff',
    access: 'read',
    params: OfTemplate,
    querystring: Body({ from: Version, to: Version }),
    response: answers({
      200: Type.Object({ from: Type.Integer(), to: Type.Integer(), changes: Type.Array(TemplateChange) }),
    }),
  },
  /**
   * Archives a template, every version of it (admins), or restores it: an archived one starts no new
   * transaction, and its running closings stop with their rows left not created.
   */
  archiveTemplate: {
    method: 'PUT',
    url: '/templates/:key/archived',
    access: 'manageTemplates',
    params: OfTemplate,
    body: Body({ archived: Type.Boolean() }),
    response: answers({
      200: Type.Object({ archived: Archived, stoppedClosings: Type.Integer() }),
    }),
  },
} as const;
