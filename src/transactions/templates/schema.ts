// Kept as one file: the template format is one TypeBox schema, published whole as docs/template.schema.json and
// read top to bottom like it.
import { Type, type Static } from '@sinclair/typebox';
import { ENTITY_TYPES } from '../entity-types.ts';
import { DEFAULT_MAX_LENGTH, MAX_DATA_BYTES, MAX_LENGTH_CEILING } from './answer-bounds.ts';

/**
 * The template file format: what a kind of transaction is made of and how it moves. Published as
 * `docs/template.schema.json` (generated from this file; `npm test` checks it is current).
 */
const Key = Type.String({
  pattern: '^[a-z][a-z0-9_]{0,62}$',
  description: 'A lower-case key: letters, digits and underscores, starting with a letter.',
});

/** The kinds of file an upload field may take, as detected from the content (never the name). */
export const UPLOAD_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/tiff',
  'image/heic',
  'image/webp',
] as const;

/** The largest file an upload field may allow, in megabytes (the deployment's limit may be lower). */
export const MAX_UPLOAD_MEGABYTES = 100;

const FieldName = Type.String({
  pattern: '^[A-Za-z][A-Za-z0-9_]{0,62}$',
  description: 'A property of the item schema.',
});

const Upload = Type.Object(
  {
    accept: Type.Array(Type.Union(UPLOAD_TYPES.map((type) => Type.Literal(type))), {
      minItems: 1,
      uniqueItems: true,
      description: 'The file types taken, checked against the content (magic bytes), not the name.',
    }),
    maxMegabytes: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: MAX_UPLOAD_MEGABYTES,
        description:
          "The largest file taken, in megabytes; the deployment's PORTICO_UPLOAD_MAX_MB when absent or lower.",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'A field whose value is the id of a file the recipient uploads: a string property of the schema.',
  },
);

const CurrencyCode = Type.String({
  pattern: '^[A-Z]{3}$',
  description: 'An ISO 4217 currency code, e.g. `USD`.',
});
const MajorAmount = Type.Union([Type.Number({ minimum: 0 }), Type.String({ pattern: '^\\d+(\\.\\d+)?$' })], {
  description: 'An amount in major units: `100000` or `"100000.00"` is 100,000.00.',
});

const MoneyField = Type.Object(
  {
    currency: Type.Optional({ ...CurrencyCode, description: 'The one currency the field takes.' }),
    currencies: Type.Optional(
      Type.Array(CurrencyCode, {
        minItems: 1,
        uniqueItems: true,
        description: 'The currencies the recipient picks from, the first shown first.',
      }),
    ),
    minimum: Type.Optional({ ...MajorAmount, description: 'The smallest amount taken, in major units.' }),
    maximum: Type.Optional({ ...MajorAmount, description: 'The largest amount taken, in major units.' }),
  },
  {
    additionalProperties: false,
    description:
      'A field answered with an amount of money: its value is `{"currency": "USD", "amount": 25000000}`, the amount in the currency\'s smallest unit (25000000 is $250,000.00). Give `currency` or `currencies`.',
  },
);

export const UI_WIDGETS = ['radio', 'select', 'textarea', 'checkbox', 'checkboxes', 'country'] as const;
export type UiWidget = (typeof UI_WIDGETS)[number];

const FieldHints = Type.Object(
  {
    widget: Type.Optional(
      Type.Union(
        UI_WIDGETS.map((widget) => Type.Literal(widget)),
        { description: 'How the field is entered, instead of its default control.' },
      ),
    ),
    help: Type.Optional(Type.String({ minLength: 1, description: 'A help text shown under the field.' })),
    defaultByEntityType: Type.Optional(
      Type.Record(
        Type.String({ pattern: `^(${ENTITY_TYPES.join('|')})$` }),
        Type.Union([Type.String(), Type.Number(), Type.Boolean()]),
        {
          additionalProperties: false,
          description:
            "The answer the field starts with for a recipient of each entity type (`trust: trust`), shown until they change it and saved only when they go on; a top-level field's.",
        },
      ),
    ),
    placeholder: Type.Optional(Type.String({ minLength: 1 })),
    autocomplete: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9 -]{1,60}$',
        description: 'The HTML autocomplete token the browser fills it from, e.g. `name` or `postal-code`.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UiHints = Type.Object(
  {
    order: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        uniqueItems: true,
        description: 'The order of the top-level fields; `*` stands for the rest.',
      }),
    ),
    fields: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,62}(\\.[A-Za-z][A-Za-z0-9_]{0,62})*$' }),
        FieldHints,
        {
          description: 'Hints per field, by property name (`address.city` for a nested one).',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'How the form of the item is presented.' },
);

const Item = Type.Object(
  {
    vulcanKey: { ...Key, description: 'The item key, unique in its process, e.g. `investor_details`.' },
    title: Type.Optional(
      Type.String({ minLength: 1, description: 'What the recipient sees as its heading.' }),
    ),
    schema: Type.Object(
      { type: Type.Literal('object') },
      {
        additionalProperties: true,
        description: `The JSON Schema (draft 2020-12) of the item data, an object. Its \`required\` fields decide the completion percentage. A string field without \`maxLength\` takes at most ${DEFAULT_MAX_LENGTH.toLocaleString('en-US')} characters; a \`maxLength\` may lower that, or raise it up to ${MAX_LENGTH_CEILING.toLocaleString('en-US')}.`,
      },
    ),
    maxDataBytes: Type.Optional(
      Type.Integer({
        minimum: 2,
        maximum: MAX_DATA_BYTES,
        description: `The most the item's data may take, as JSON in UTF-8 bytes: ${MAX_DATA_BYTES.toLocaleString('en-US')} (64 KiB) when absent, and never more.`,
      }),
    ),
    uploads: Type.Optional(
      Type.Record(FieldName, Upload, { description: 'The fields answered by uploading a file.' }),
    ),
    money: Type.Optional(
      Type.Record(FieldName, MoneyField, {
        description:
          'The fields answered with an amount of money: top-level properties of the schema with at most a title and a description, which the import makes the schema of the amount.',
      }),
    ),
    ui: Type.Optional(UiHints),
  },
  { additionalProperties: false, description: 'One form of a process.' },
);

/** The largest fund PDF a template may carry, in megabytes. */
export const MAX_AGREEMENT_MEGABYTES = 10;

const AnswerReference = Type.String({
  pattern: '^[a-z][a-z0-9_]{0,62}(\\.[A-Za-z][A-Za-z0-9_]{0,62})+$',
  description: 'An answer, as `<item vulcanKey>.<field>`, e.g. `investor_details.legalName`.',
});

const SignaturePlace = Type.Union(
  [
    Type.Object(
      {
        page: Type.Integer({ minimum: 1, description: 'The page, the first is 1.' }),
        x: Type.Number({ minimum: 0, description: 'From the left edge, in points (1/72 inch).' }),
        y: Type.Number({ minimum: 0, description: 'From the bottom edge, in points.' }),
        width: Type.Number({ exclusiveMinimum: 0 }),
        height: Type.Number({ exclusiveMinimum: 0 }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { field: Type.String({ minLength: 1, description: 'A form field of the PDF whose box it fills.' }) },
      { additionalProperties: false },
    ),
  ],
  { description: "Where a signature goes: a box on a page, or the box of one of the PDF's form fields" },
);

const Agreement = Type.Object(
  {
    text: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'The agreement as Markdown, with answers as placeholders: `{{investor_details.legalName}}`. HTML is shown as text.',
      }),
    ),
    pdf: Type.Optional(
      Type.String({
        pattern: '^[^/\\\\]+\\.pdf$',
        description: "The fund's PDF, a file beside the template, e.g. `agreement.pdf`.",
      }),
    ),
    sha256: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{64}$',
        description: 'The SHA-256 of the PDF, written by the import.',
      }),
    ),
    fields: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), AnswerReference, {
        description: "The PDF's form fields, by their names, each filled with an answer.",
      }),
    ),
    signatures: Type.Optional(
      Type.Record(Key, SignaturePlace, {
        description: "Where each signing role's signature goes in the PDF.",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "What the signers sign: the fund's text (`text`) or the fund's PDF (`pdf` with `fields` and `signatures`). Without it, the document lists the answers.",
  },
);

const Document = Type.Object(
  {
    key: { ...Key, description: 'The document key, unique in its process, e.g. `subscription_agreement`.' },
    title: Type.Optional(Type.String({ minLength: 1 })),
    signedBy: Type.Array(Key, {
      minItems: 1,
      uniqueItems: true,
      description: 'The recipient roles that must sign it, in signing order.',
    }),
    agreement: Type.Optional(Agreement),
  },
  {
    additionalProperties: false,
    description: 'A document generated from the item data and signed by recipients.',
  },
);

const Process = Type.Object(
  {
    key: { ...Key, description: 'The process key, unique in the template.' },
    title: Type.Optional(Type.String({ minLength: 1 })),
    items: Type.Array(Item, { minItems: 1 }),
    documents: Type.Optional(Type.Array(Document)),
    submitEvent: Type.Optional({
      ...Key,
      description:
        "The recipient's event: fired when the recipient submits a revision of this process. Triggered otherwise (the API, the console), it submits the revision, and is refused while the revision lacks required answers, consents, uploads or the recipient's signatures.",
    }),
  },
  { additionalProperties: false, description: 'A set of items to fill in and documents to sign.' },
);

const Role = Type.Object(
  {
    key: { ...Key, description: 'The role key, e.g. `investor`; recipients carry it as their vulcanKey.' },
    description: Type.Optional(Type.String()),
    primary: Type.Optional(
      Type.Boolean({
        description: 'The recipient named by noticeName/noticeEmail at creation. Exactly one role.',
      }),
    ),
    sender: Type.Optional(
      Type.Boolean({ description: "Filled by the transaction's sender entity (e.g. to countersign)." }),
    ),
  },
  { additionalProperties: false },
);

const Action = Type.Union(
  [
    Type.Object(
      { createProcess: Key },
      { additionalProperties: false, description: 'Create a process (revision 1).' },
    ),
    Type.Object(
      { openRevision: Key },
      {
        additionalProperties: false,
        description: 'Open a new revision of a process, carrying its data forward.',
      },
    ),
    Type.Object(
      { addRecipient: Key },
      {
        additionalProperties: false,
        description: 'Add the recipient of a role (a sender role: the sender entity).',
      },
    ),
  ],
  { description: 'What entering a state does.' },
);

const State = Type.Object(
  {
    key: { ...Key, description: 'The state key, unique in the workflow.' },
    title: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'How people read it ("In review"), in the console and its refusals; the key in words when absent.',
      }),
    ),
    description: Type.Optional(Type.String()),
    final: Type.Optional(
      Type.Boolean({ description: 'The workflow ends here. At least one state is final.' }),
    ),
    onEnter: Type.Optional(Type.Array(Action)),
  },
  { additionalProperties: false },
);

export const GUARDS = ['all_processes_complete'] as const;

const Event = Type.Object(
  {
    key: {
      ...Key,
      description: 'The event key clients send to triggerTransactionEvent, unique in the workflow.',
    },
    title: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'How people read it ("Request changes"), on buttons and in refusals; the key in words when absent.',
      }),
    ),
    description: Type.Optional(Type.String()),
    from: Type.Array(Key, { minItems: 1, uniqueItems: true, description: 'The states the event may leave.' }),
    to: { ...Key, description: 'The state the event enters.' },
    guard: Type.Optional(
      Type.Union(
        GUARDS.map((guard) => Type.Literal(guard)),
        { description: '`all_processes_complete`: every process that exists is complete.' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const TemplateSchema = Type.Object(
  {
    key: { ...Key, description: 'The template key, shared by all its versions.' },
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    recipientRoles: Type.Array(Role, { minItems: 1 }),
    processes: Type.Array(Process, { minItems: 1 }),
    invitations: Type.Optional(
      Type.Object(
        {
          linkValidDays: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 365,
              description: "Days a recipient's link works after it is made. @default 90",
            }),
          ),
          reminders: Type.Optional(
            Type.Object(
              {
                afterDays: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    maximum: 90,
                    description: 'Days from the invitation to the first reminder. @default 3',
                  }),
                ),
                everyDays: Type.Optional(
                  Type.Integer({
                    minimum: 1,
                    maximum: 90,
                    description: 'Days between reminders. @default 7',
                  }),
                ),
                max: Type.Optional(
                  Type.Integer({
                    minimum: 0,
                    maximum: 20,
                    description: 'How many reminders at most; 0 sends none. @default 3',
                  }),
                ),
              },
              { additionalProperties: false },
            ),
          ),
        },
        {
          additionalProperties: false,
          description:
            'The mail inviting the primary recipient, and its reminders (sent while the recipient has a revision to submit).',
        },
      ),
    ),
    disclosure: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20_000,
        description:
          "The Electronic Record and Signature Disclosure (Markdown: paragraphs, `**bold**`, `- ` lists) the primary recipient reads and accepts before their first signature, replacing Portico's default (docs/esign-consent.md). HTML is shown as text.",
      }),
    ),
    prefill: Type.Optional(
      Type.Array(AnswerReference, {
        uniqueItems: true,
        maxItems: 50,
        description:
          "The answers the sender may fill in when starting a transaction (the console's form, a closing's CSV columns), each a top-level field of an item as `<item vulcanKey>.<field>`; checked like `createTransaction`'s `inputData`. Not an upload or a consent: only the recipient gives those.",
      }),
    ),
    commitment: Type.Optional({
      ...AnswerReference,
      description:
        'The money answer that is what the investor commits, as `<item vulcanKey>.<field>` (a money field), e.g. `subscription_amount.amount`; a closing sums it per currency.',
    }),
    workflow: Type.Object(
      {
        initialState: Key,
        states: Type.Array(State, { minItems: 2 }),
        events: Type.Array(Event, { minItems: 1 }),
        void: Type.Optional(
          Type.Boolean({
            description:
              'Whether the workflow has the built-in event `void` (from every state that is not final to the final state `voided`, with a required message: the reason, mailed to the primary recipient). `false` leaves it out; an event of your own keyed `void` replaces it. @default true',
          }),
        ),
        secondPerson: Type.Optional(
          Type.Array(Key, {
            uniqueItems: true,
            description:
              'The events (`void` included) that a person of the console only asks for: a second person of the organization approves the request before the event runs (four eyes). API keys run them directly.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  {
    $id: 'https://portico.dev/schemas/template.schema.json',
    title: 'Portico transaction template',
    additionalProperties: false,
  },
);

export type TemplateDefinition = Static<typeof TemplateSchema>;
export type WorkflowDefinition = TemplateDefinition['workflow'];
export type WorkflowAction = Static<typeof Action>;
export type ItemDefinition = Static<typeof Item>;
export type UiHints = Static<typeof UiHints>;
export type ProcessDefinition = Static<typeof Process>;
export type UploadDefinition = Static<typeof Upload>;
export type DocumentDefinition = Static<typeof Document>;
export type AgreementDefinition = Static<typeof Agreement>;
export type SignaturePlacement = Static<typeof SignaturePlace>;
export type InvitationSettings = NonNullable<TemplateDefinition['invitations']>;

/** What a template's `invitations` leaves out. */
export const DEFAULT_INVITATIONS = {
  linkValidDays: 90,
  reminders: { afterDays: 3, everyDays: 7, max: 3 },
} as const;
