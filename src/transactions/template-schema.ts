import { Type, type Static } from '@sinclair/typebox';

/**
 * The template file format: what a kind of transaction is made of and how it moves. Published as
 * `docs/template.schema.json` (generated from this file; `npm test` checks it is current).
 */
const Key = Type.String({
  pattern: '^[a-z][a-z0-9_]{0,62}$',
  description: 'A lower-case key: letters, digits and underscores, starting with a letter.',
});

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
        description:
          'The JSON Schema (draft 2020-12) of the item data, an object. Its `required` fields decide the completion percentage.',
      },
    ),
  },
  { additionalProperties: false, description: 'One form of a process.' },
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
      description: 'The workflow event fired when a recipient submits a revision of this process.',
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
    workflow: Type.Object(
      {
        initialState: Key,
        states: Type.Array(State, { minItems: 2 }),
        events: Type.Array(Event, { minItems: 1 }),
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
