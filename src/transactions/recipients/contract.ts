import { Type, type Static } from '@sinclair/typebox';
import { answers, Body, AnyObject, OrNull, StrictBoolean, Timestamp } from '../../http/contract.ts';
import { UiHints } from '../templates/schema.ts';

/**
 * The contract of the recipient portal's JSON routes (`/recipient/<token>/…`, routes.ts): where each is, what it
 * takes and answers (see src/http/contract.ts). The link's token in the path is the only credential, checked by
 * the routes themselves. `web/recipient/types.ts` derives the portal's types from it.
 */

const Token = { token: Type.String() };
const ItemParams = Type.Object({ ...Token, vulcanKey: Type.String() });

/** A file uploaded to an item's field. */
export const UploadedFile = Type.Object({
  id: Type.String(),
  field: Type.String(),
  originalFilename: Type.String(),
  mimeType: Type.String(),
  byteSize: Type.Integer(),
  uploadedAt: Timestamp(),
});
export type UploadedFile = Static<typeof UploadedFile>;

/** An item's answers once saved: its data, how complete, and when each consent it holds was given. */
export const SavedItem = Type.Object({
  vulcanKey: Type.String(),
  data: AnyObject,
  completionPercentage: Type.Number(),
  /** When the recipient gave each consent the data holds (ISO 8601). */
  consents: Type.Record(Type.String(), Type.String()),
});
export type SavedItem = Static<typeof SavedItem>;

/** A field answered by uploading a file: which types (MIME) and how large. */
export const UploadRule = Type.Object({ accept: Type.Array(Type.String()), maxBytes: Type.Integer() });
export type UploadRule = Static<typeof UploadRule>;

/** A money field: the currencies it takes (the first shown first) and its bounds, in minor units. */
export const MoneyRule = Type.Object({
  currencies: Type.Array(Type.String()),
  minimum: Type.Optional(Type.Number()),
  maximum: Type.Optional(Type.Number()),
});
export type MoneyRule = Static<typeof MoneyRule>;

/** One form of a process, as the portal shows it. */
export const Item = Type.Object({
  vulcanKey: Type.String(),
  title: Type.String(),
  /** The item's JSON Schema: an object whose properties are the fields of its form. */
  schema: AnyObject,
  /** How the template asks the fields to be shown (`ui.fields`, keys dotted for nested fields). */
  ui: OrNull(UiHints),
  uploads: Type.Record(Type.String(), UploadRule),
  /** The fields answered with an amount of money (src/transactions/templates/money-fields.ts). */
  money: Type.Record(Type.String(), MoneyRule),
  data: AnyObject,
  /** What was submitted in the revision before (when the revision's number is above 1). */
  previousData: OrNull(AnyObject),
  completionPercentage: Type.Number(),
  consents: Type.Record(Type.String(), Type.String()),
  files: Type.Array(UploadedFile),
  /** The reviewer's open comments on the item's fields, to show beside each field. */
  comments: Type.Array(
    Type.Object({
      id: Type.String(),
      field: Type.String(),
      body: Type.String(),
      author: OrNull(Type.String()),
      createdAt: Timestamp(),
    }),
  ),
});

const DocumentState = Type.Union([Type.Literal('PENDING'), Type.Literal('COMPLETED')]);

/** A document the recipient reads and signs. */
export const SignableDocument = Type.Object({
  key: Type.String(),
  title: Type.String(),
  /** The roles that sign it, in the order they sign. */
  signedBy: Type.Array(Type.String()),
  signatures: Type.Array(
    Type.Object({ role: Type.String(), signedName: Type.String(), signedAt: Timestamp() }),
  ),
  /** Whether it is this recipient's turn to sign it now. */
  canSign: Type.Boolean(),
  state: DocumentState,
  /** The document as it will be, with the current data: a PDF, relative to this origin. */
  previewUrl: Type.String(),
  /** The signed PDF once every role has signed: a download link, relative to this origin. */
  signedFile: OrNull(Type.Object({ filename: Type.String(), url: Type.String(), byteSize: Type.Integer() })),
});
export type SignableDocument = Static<typeof SignableDocument>;

export const Revision = Type.Object({
  number: Type.Integer(),
  committedAt: OrNull(Timestamp()),
  /** The event that opened this revision after an earlier one (e.g. request_changes) and what was said. */
  changesRequested: OrNull(Type.Object({ at: Timestamp(), message: OrNull(Type.String()) })),
});

export const Process = Type.Object({
  key: Type.String(),
  title: Type.String(),
  revision: Revision,
  items: Type.Array(Item),
  documents: Type.Array(SignableDocument),
});

const EsignAct = Type.Union([
  Type.Literal('consented'),
  Type.Literal('withdrawn'),
  Type.Literal('paper_requested'),
]);

/** The recipient's latest act about the disclosure: consented, withdrew, or asked for paper; when; what they wrote. */
export const EsignStanding = Type.Object({
  act: EsignAct,
  at: Timestamp(),
  /** The SHA-256 (hex) of the disclosure's text as it was when they acted. */
  disclosureSha256: Type.String(),
  message: OrNull(Type.String()),
});
export type EsignStanding = Static<typeof EsignStanding>;

/**
 * Consent to use electronic records and signatures (ESIGN, UETA; docs/esign-consent.md): the disclosure the
 * recipient reads before their first signature, and their latest act about it. They sign only while it is
 * `consented`.
 */
export const Esign = Type.Object({
  disclosure: Type.Object({
    /** Markdown: paragraphs, `**bold**`, `- ` lists. */
    text: Type.String(),
    source: Type.Union([Type.Literal('default'), Type.Literal('organization'), Type.Literal('template')]),
    sha256: Type.String(),
  }),
  standing: OrNull(EsignStanding),
});

/** Everything the portal shows of a transaction through its link. */
export const RecipientView = Type.Object({
  transaction: Type.Object({
    id: Type.String(),
    state: Type.String(),
    stateDescription: OrNull(Type.String()),
    completedAt: OrNull(Timestamp()),
  }),
  organization: Type.Object({ name: Type.String() }),
  template: Type.Object({ name: Type.String() }),
  recipient: Type.Object({ role: Type.String(), name: Type.String(), email: Type.String() }),
  link: Type.Object({ expiresAt: Timestamp() }),
  esign: Esign,
  processes: Type.Array(Process),
});

export const recipientRoutes = {
  /** GET /recipient/:token: the view. */
  view: {
    method: 'GET',
    url: '/recipient/:token',
    params: Type.Object(Token),
    response: answers({ 200: RecipientView }),
  },
  /** PUT /recipient/:token/items/:vulcanKey: saves an item's answers, partial or whole (a draft). */
  saveItem: {
    method: 'PUT',
    url: '/recipient/:token/items/:vulcanKey',
    params: ItemParams,
    body: Body({ data: AnyObject }),
    response: answers({ 200: SavedItem }),
  },
  /** POST /recipient/:token/items/:vulcanKey/files/:field: a file (multipart, part `file`) answers a field. */
  upload: {
    method: 'POST',
    url: '/recipient/:token/items/:vulcanKey/files/:field',
    params: Type.Object({ ...Token, vulcanKey: Type.String(), field: Type.String() }),
    consumes: ['multipart/form-data'],
    response: answers({ 201: Type.Object({ file: UploadedFile, item: SavedItem }) }),
  },
  /** GET /recipient/:token/documents/:documentKey/preview: the document as it would be signed now. */
  preview: {
    method: 'GET',
    url: '/recipient/:token/documents/:documentKey/preview',
    params: Type.Object({ ...Token, documentKey: Type.String() }),
    produces: ['application/pdf'],
    response: answers({
      200: Type.Unsafe<never>({ description: 'The PDF (sent as it is, never serialised).' }),
    }),
  },
  /** POST /recipient/:token/documents/:documentKey/signatures: the recipient signs a document. */
  sign: {
    method: 'POST',
    url: '/recipient/:token/documents/:documentKey/signatures',
    params: Type.Object({ ...Token, documentKey: Type.String() }),
    body: Body({ signedName: Type.String({ maxLength: 200 }), consent: StrictBoolean() }),
    response: answers({ 200: Type.Object({ documentKey: Type.String(), state: DocumentState }) }),
  },
  /**
   * POST /recipient/:token/esign: the recipient agrees to use electronic records and signatures (`consented`),
   * withdraws that (`withdrawn`), or asks to sign on paper (`paper_requested`), with an optional message to the
   * organization. The same act twice answers the first.
   */
  esign: {
    method: 'POST',
    url: '/recipient/:token/esign',
    params: Type.Object(Token),
    body: Body({ act: EsignAct, message: Type.Optional(Type.String({ maxLength: 1000 })) }),
    response: answers({ 200: EsignStanding }),
  },
  /** POST /recipient/:token/processes/:processKey/submit: submits the revision; the event it fired, if any. */
  submit: {
    method: 'POST',
    url: '/recipient/:token/processes/:processKey/submit',
    params: Type.Object({ ...Token, processKey: Type.String() }),
    response: answers({
      200: Type.Object({
        committedAt: Timestamp(),
        event: OrNull(Type.Object({ sourceStateKey: OrNull(Type.String()), targetStateKey: Type.String() })),
      }),
    }),
  },
} as const;
export type RecipientRoutes = typeof recipientRoutes;
