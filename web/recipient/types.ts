// What the recipient portal's JSON routes (`/recipient/<token>/…`) take and answer, derived from their contract
// (src/transactions/recipients/contract.ts) with type-only imports: no server code enters the bundle.

import type { Static } from '@sinclair/typebox';
import type { StrictRJSFSchema } from '@rjsf/utils';
import type { SuccessOf } from '../../src/http/contract.ts';
import type {
  Item as ItemSchemaOf,
  Process as ProcessSchema,
  RecipientRoutes,
  RecipientView as RecipientViewSchema,
} from '../../src/transactions/recipients/contract.ts';

export type {
  MoneyRule,
  SavedItem,
  SignableDocument,
  UploadedFile,
  UploadRule,
} from '../../src/transactions/recipients/contract.ts';

/** An item's JSON Schema: an object whose properties are the fields of its form. */
export type ItemSchema = StrictRJSFSchema;

/** An item, with its schema typed as the form library reads it. */
export type Item = Omit<Static<typeof ItemSchemaOf>, 'schema'> & { schema: ItemSchema };
/** A reviewer's open comment on a field of an item. */
export type ReviewerComment = Item['comments'][number];
/** A template's form hints for one item. */
export type ItemHints = NonNullable<Item['ui']>;
/** How a template asks a field to be shown (`ui.fields`, keys dotted for nested fields: `address.city`). */
export type FieldHints = NonNullable<ItemHints['fields']>[string];
export type Process = Omit<Static<typeof ProcessSchema>, 'items'> & { items: Item[] };
export type Revision = Process['revision'];

/** `GET /recipient/<token>`: everything the page shows. */
export type RecipientView = Omit<Static<typeof RecipientViewSchema>, 'processes'> & { processes: Process[] };
/** `POST /recipient/<token>/items/<vulcanKey>/files/<field>` (201). */
export type UploadAnswer = SuccessOf<RecipientRoutes['upload']>;
