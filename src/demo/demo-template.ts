/**
 * The definition of the demo's subscription template: one process with three items and one document signed by
 * the investor and countersigned by the sender, and the workflow that moves it from draft to completed.
 */
export const demoSubscriptionTemplate = {
  key: 'subscription',
  name: 'Fund subscription',
  description:
    'An investor subscribes to a fund: details, tax forms, amount, signature, sponsor review, countersignature.',
  recipientRoles: [
    { key: 'investor', description: 'The subscribing investor.' },
    {
      key: 'countersigner',
      description: 'The sender, who countersigns at the end.',
      sender: true,
      addedAt: 'countersigning',
    },
  ],
  processes: [
    {
      key: 'subscription',
      items: [
        {
          vulcanKey: 'investor_details',
          schema: {
            type: 'object',
            required: ['legalName', 'email', 'address'],
            properties: {
              legalName: { type: 'string', minLength: 1 },
              email: { type: 'string', format: 'email' },
              address: { type: 'string', minLength: 1 },
              dateOfBirth: { type: 'string', format: 'date' },
            },
          },
        },
        {
          vulcanKey: 'tax_forms',
          schema: {
            type: 'object',
            required: ['taxResidency', 'w9FileId'],
            properties: {
              taxResidency: { type: 'string', pattern: '^[A-Z]{2}$' },
              w9FileId: { type: 'string' },
            },
          },
        },
        {
          vulcanKey: 'subscription_amount',
          schema: {
            type: 'object',
            required: ['amountCents', 'currency'],
            properties: {
              amountCents: { type: 'string', pattern: '^[1-9][0-9]*$' },
              currency: { type: 'string', pattern: '^[A-Z]{3}$' },
            },
          },
        },
      ],
      documents: [{ key: 'subscription_agreement', signedBy: ['investor', 'countersigner'] }],
    },
  ],
  workflow: {
    initialState: 'draft',
    states: ['draft', 'in_progress', 'in_review', 'countersigning', 'completed'],
    events: [
      { key: 'send', from: ['draft'], to: 'in_progress' },
      { key: 'submit', from: ['in_progress'], to: 'in_review' },
      { key: 'request_changes', from: ['in_review'], to: 'in_progress' },
      { key: 'approve', from: ['in_review'], to: 'countersigning' },
      { key: 'countersign', from: ['countersigning'], to: 'completed', guard: 'all_processes_complete' },
    ],
  },
} as const;
