// What the recipient portal's JSON routes (`/recipient/<token>/…`, src/transactions/recipients/routes.ts) answer.

import type { StrictRJSFSchema } from '@rjsf/utils';

/** An item's JSON Schema: an object whose properties are the fields of its form. */
export type ItemSchema = StrictRJSFSchema;

/** How a template asks a field to be shown (`ui.fields`, keys dotted for nested fields: `address.city`). */
export interface FieldHints {
  widget?: 'radio' | 'select' | 'textarea' | 'checkbox' | 'checkboxes' | 'country';
  help?: string;
  placeholder?: string;
  autocomplete?: string;
}

/** A template's form hints for one item. */
export interface ItemHints {
  order?: string[];
  fields?: Record<string, FieldHints>;
}

/** A field answered by uploading a file: which types (MIME) and how large. */
export interface UploadRule {
  accept: string[];
  maxBytes: number;
}

/** A file uploaded to an item's field. */
export interface UploadedFile {
  id: string;
  field: string;
  originalFilename: string;
  mimeType: string;
  byteSize: number;
  uploadedAt: string;
}

/** A money field: the currencies it takes (the first shown first) and its bounds, in minor units. */
export interface MoneyRule {
  currencies: string[];
  minimum?: number;
  maximum?: number;
}

export interface Item {
  vulcanKey: string;
  title: string;
  schema: ItemSchema;
  ui: ItemHints | null;
  uploads: Record<string, UploadRule>;
  /** The fields answered with an amount of money (src/transactions/templates/money-fields.ts). */
  money: Record<string, MoneyRule>;
  data: Record<string, unknown>;
  /** What was submitted in the revision before (when the revision's number is above 1). */
  previousData: Record<string, unknown> | null;
  completionPercentage: number;
  /** When the recipient gave each consent the data holds (ISO 8601). */
  consents: Record<string, string>;
  files: UploadedFile[];
}

export interface Signature {
  role: string;
  signedName: string;
  signedAt: string;
}

export interface SignableDocument {
  key: string;
  title: string;
  /** The roles that sign it, in the order they sign. */
  signedBy: string[];
  signatures: Signature[];
  /** Whether it is this recipient's turn to sign it now. */
  canSign: boolean;
  state: 'PENDING' | 'COMPLETED';
  /** The document as it will be, with the current data: a PDF, relative to this origin. */
  previewUrl: string;
  /** The signed PDF once every role has signed: a download link, relative to this origin. */
  signedFile: { filename: string; url: string; byteSize: number } | null;
}

export interface Revision {
  number: number;
  committedAt: string | null;
  changesRequested: { at: string; message: string | null } | null;
}

export interface Process {
  key: string;
  title: string;
  revision: Revision;
  items: Item[];
  documents: SignableDocument[];
}

/** `GET /recipient/<token>`: everything the page shows. */
export interface RecipientView {
  transaction: { id: string; state: string; stateDescription: string | null; completedAt: string | null };
  organization: { name: string };
  template: { name: string };
  recipient: { role: string; name: string; email: string };
  link: { expiresAt: string };
  processes: Process[];
}

/** `PUT /recipient/<token>/items/<vulcanKey>`. */
export interface SavedItem {
  vulcanKey: string;
  data: Record<string, unknown>;
  completionPercentage: number;
  consents: Record<string, string>;
}

/** `POST /recipient/<token>/items/<vulcanKey>/files/<field>` (201). */
export interface UploadAnswer {
  file: UploadedFile;
  item: SavedItem;
}

/** `POST /recipient/<token>/documents/<key>/signatures`. */
export interface SignAnswer {
  documentKey: string;
  state: 'PENDING' | 'COMPLETED';
}

/** `POST /recipient/<token>/processes/<key>/submit`. */
export interface SubmitAnswer {
  committedAt: string;
  event: string;
}
