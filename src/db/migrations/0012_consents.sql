-- When the recipient gave each consent of an item (a boolean field with `const: true`): {"<field>": "<time>"}.
-- Set by the save that first sends the consent as true, kept while later saves keep it, dropped when one leaves it
-- out; carried forward with the data to a new revision. The signed document prints it beside the consent.
alter table transaction_items add column consents jsonb not null default '{}'::jsonb;
