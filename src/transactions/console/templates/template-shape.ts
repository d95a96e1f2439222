import { label, words } from '../../templates/key-words.ts';
import { declaredProperties } from '../../templates/schema-properties.ts';
import type { ItemDefinition, TemplateDefinition } from '../../templates/schema.ts';
import { linkValidDays } from '../../recipients/transmit-tokens.ts';
import { effectiveWorkflow, VOID_EVENT } from '../../workflow.ts';
import type { TemplateChange, TemplateShape } from './templates-contract.ts';

/**
 * A template version as the console's template page shows it, in its titles (its workflow for the drawing, its
 * processes' fields with which are prefilled and which is the commitment), and the changes from one version to
 * another in words: states, events, processes, items, fields, documents, roles and settings added, removed or
 * changed, each change with its before and after. Pure: the definitions are read by templates-admin.ts.
 */

type Property = Record<string, unknown>;

function isObject(value: unknown): value is Property {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field's title: its schema's, else its key in words. */
function fieldTitle(property: unknown, field: string): string {
  return isObject(property) && typeof property.title === 'string' ? property.title : label(field);
}

/** The fields of an item in its form's order (`ui.order`, written by the import), then the rest. */
function fieldsOf(item: ItemDefinition): [string, unknown][] {
  const properties = declaredProperties(item.schema);
  const order = (item.ui?.order ?? []).filter((name) => Object.hasOwn(properties, name));
  const rest = Object.keys(properties).filter((name) => !order.includes(name));
  return [...order, ...rest].map((name) => [name, properties[name]]);
}

/** What a version is made of, in its titles. */
export function shapeOf(definition: TemplateDefinition, version: number): TemplateShape {
  const workflow = effectiveWorkflow(definition.workflow);
  const own = new Set(definition.workflow.events.map((event) => event.key));
  const prefill = new Set(definition.prefill ?? []);
  return {
    version,
    workflow: {
      initialState: workflow.initialState,
      states: workflow.states.map((state) => ({
        key: state.key,
        title: state.title ?? words(state.key),
        final: state.final === true,
      })),
      events: workflow.events.map((event) => ({
        key: event.key,
        title: event.title ?? label(event.key),
        from: event.from,
        to: event.to,
        builtIn: event.key === VOID_EVENT && !own.has(VOID_EVENT),
      })),
    },
    processes: definition.processes.map((process) => ({
      key: process.key,
      title: process.title ?? label(process.key),
      items: process.items.map((item) => {
        const required = new Set(
          Array.isArray((item.schema as Property).required)
            ? ((item.schema as Property).required as string[])
            : [],
        );
        return {
          key: item.vulcanKey,
          title: item.title ?? label(item.vulcanKey),
          fields: fieldsOf(item).map(([field, property]) => {
            const answer = `${item.vulcanKey}.${field}`;
            return {
              answer,
              title: fieldTitle(property, field),
              prefill: prefill.has(answer),
              commitment: definition.commitment === answer,
              required: required.has(field),
            };
          }),
        };
      }),
      documents: (process.documents ?? []).map((document) => document.title ?? label(document.key)),
    })),
    recipientRoles: definition.recipientRoles.map((role) => label(role.key)),
    linkValidDays: linkValidDays(definition),
  };
}

/** What is compared of a field besides its title: its bounds and kind, in words, each by what it is. */
function boundsOf(item: ItemDefinition, field: string, property: unknown): Record<string, string> {
  const shown: Record<string, string> = {};
  if (isObject(property)) {
    const describe: [string, string][] = [
      ['type', 'kind'],
      ['format', 'format'],
      ['minimum', 'minimum'],
      ['maximum', 'maximum'],
      ['minLength', 'shortest length'],
      ['maxLength', 'longest length'],
      ['pattern', 'pattern'],
    ];
    for (const [key, what] of describe) {
      const value = property[key];
      if (typeof value === 'string' || typeof value === 'number') shown[what] = String(value);
    }
    if (Array.isArray(property.enum)) shown.choices = property.enum.map(String).join(', ');
    const options = Array.isArray(property.oneOf) ? property.oneOf : property.anyOf;
    if (Array.isArray(options)) {
      shown.choices = options
        .filter(isObject)
        .map((option) => (typeof option.title === 'string' ? option.title : String(option.const)))
        .join(', ');
    }
  }
  const money = item.money?.[field];
  if (money !== undefined) {
    // The import writes a money field's schema from these: they say it in the template's own words.
    delete shown.minimum;
    delete shown.maximum;
    shown.kind = 'money';
    shown.currencies = (money.currencies ?? (money.currency === undefined ? [] : [money.currency])).join(
      ', ',
    );
    if (money.minimum !== undefined) shown['smallest amount'] = String(money.minimum);
    if (money.maximum !== undefined) shown['largest amount'] = String(money.maximum);
  }
  if (item.uploads?.[field] !== undefined) shown.kind = 'upload';
  return shown;
}

/** The changes of one part between two maps of its kind, by key. */
function compareParts<T>(
  changes: TemplateChange[],
  part: string,
  before: ReadonlyMap<string, T>,
  after: ReadonlyMap<string, T>,
  nameOf: (value: T) => string,
  facets: (value: T) => Record<string, string>,
): void {
  for (const [key, value] of after) {
    const old = before.get(key);
    if (old === undefined) {
      changes.push({ kind: 'added', part, name: nameOf(value), what: null, before: null, after: null });
      continue;
    }
    const was = facets(old);
    const is = facets(value);
    for (const what of new Set([...Object.keys(was), ...Object.keys(is)])) {
      if (was[what] === is[what]) continue;
      changes.push({
        kind: 'changed',
        part,
        name: nameOf(value),
        what,
        before: was[what] ?? null,
        after: is[what] ?? null,
      });
    }
  }
  for (const [key, value] of before) {
    if (!after.has(key)) {
      changes.push({ kind: 'removed', part, name: nameOf(value), what: null, before: null, after: null });
    }
  }
}

const byKey = <T>(list: readonly T[], keyOf: (value: T) => string) =>
  new Map(list.map((value) => [keyOf(value), value] as const));

interface FieldEntry {
  item: ItemDefinition;
  itemTitle: string;
  field: string;
  property: unknown;
  required: boolean;
}

/** The fields of a definition by `<item>.<field>`. */
function fieldEntries(definition: TemplateDefinition): Map<string, FieldEntry> {
  const entries = new Map<string, FieldEntry>();
  for (const process of definition.processes) {
    for (const item of process.items) {
      const schema = item.schema as Property;
      const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
      for (const [field, property] of fieldsOf(item)) {
        entries.set(`${item.vulcanKey}.${field}`, {
          item,
          itemTitle: item.title ?? label(item.vulcanKey),
          field,
          property,
          required: required.includes(field),
        });
      }
    }
  }
  return entries;
}

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** The changes from the version `from` to the version `to` of a template, in words, by the later titles. */
export function compareDefinitions(from: TemplateDefinition, to: TemplateDefinition): TemplateChange[] {
  const changes: TemplateChange[] = [];
  const settings = (definition: TemplateDefinition): Record<string, string> => {
    const reminders = definition.invitations?.reminders;
    return {
      name: definition.name,
      description: definition.description ?? '',
      'first state': words(definition.workflow.initialState),
      'link works for (days)': String(linkValidDays(definition)),
      reminders:
        reminders === undefined
          ? 'as by default'
          : `after ${String(reminders.afterDays ?? 3)} days, every ${String(reminders.everyDays ?? 7)}, at most ${String(reminders.max ?? 3)}`,
      'needs a second person': (definition.workflow.secondPerson ?? []).map(label).join(', ') || 'none',
      commitment: definition.commitment ?? 'none',
    };
  };
  compareParts(
    changes,
    'setting',
    new Map([['template', from]]),
    new Map([['template', to]]),
    () => 'The template',
    settings,
  );
  const effectiveFrom = effectiveWorkflow(from.workflow);
  const effectiveTo = effectiveWorkflow(to.workflow);
  compareParts(
    changes,
    'state',
    byKey(effectiveFrom.states, (state) => state.key),
    byKey(effectiveTo.states, (state) => state.key),
    (state) => state.title ?? words(state.key),
    (state) => ({ title: state.title ?? words(state.key), final: yesNo(state.final === true) }),
  );
  // An event's states are compared by their keys and named by their later titles: a state retitled is one change
  // of the state, not one of every event that enters or leaves it.
  const titles = new Map(
    [...effectiveFrom.states, ...effectiveTo.states].map((state) => [
      state.key,
      state.title ?? words(state.key),
    ]),
  );
  const stateTitle = (key: string) => titles.get(key) ?? words(key);
  compareParts(
    changes,
    'event',
    byKey(effectiveFrom.events, (event) => event.key),
    byKey(effectiveTo.events, (event) => event.key),
    (event) => event.title ?? label(event.key),
    (event) => ({
      title: event.title ?? label(event.key),
      'moves from': event.from.map(stateTitle).join(', '),
      'moves to': stateTitle(event.to),
      condition: event.guard === undefined ? 'none' : words(event.guard),
    }),
  );
  compareParts(
    changes,
    'process',
    byKey(from.processes, (process) => process.key),
    byKey(to.processes, (process) => process.key),
    (process) => process.title ?? label(process.key),
    (process) => ({ title: process.title ?? label(process.key) }),
  );
  const items = (definition: TemplateDefinition) =>
    byKey(
      definition.processes.flatMap((process) => process.items),
      (item) => item.vulcanKey,
    );
  compareParts(
    changes,
    'item',
    items(from),
    items(to),
    (item) => item.title ?? label(item.vulcanKey),
    (item) => ({ title: item.title ?? label(item.vulcanKey) }),
  );
  const prefillOf = (definition: TemplateDefinition) => new Set(definition.prefill ?? []);
  const prefillBefore = prefillOf(from);
  const prefillAfter = prefillOf(to);
  const fieldsBefore = fieldEntries(from);
  const fieldsAfter = fieldEntries(to);
  compareParts(
    changes,
    'field',
    fieldsBefore,
    fieldsAfter,
    (entry) => `${fieldTitle(entry.property, entry.field)}, in ${entry.itemTitle}`,
    (entry) => {
      const answer = `${entry.item.vulcanKey}.${entry.field}`;
      const prefill = fieldsAfter.get(answer) === entry ? prefillAfter : prefillBefore;
      return {
        title: fieldTitle(entry.property, entry.field),
        required: yesNo(entry.required),
        'sender may prefill': yesNo(prefill.has(answer)),
        ...boundsOf(entry.item, entry.field, entry.property),
      };
    },
  );
  const documents = (definition: TemplateDefinition) =>
    byKey(
      definition.processes.flatMap((process) =>
        (process.documents ?? []).map((document) => ({ process: process.key, document })),
      ),
      ({ process, document }) => `${process}.${document.key}`,
    );
  compareParts(
    changes,
    'document',
    documents(from),
    documents(to),
    ({ document }) => document.title ?? label(document.key),
    ({ document }) => ({
      title: document.title ?? label(document.key),
      'signed by': document.signedBy.map(label).join(', '),
      agreement:
        document.agreement?.pdf ?? (document.agreement?.text === undefined ? 'the answers' : 'a text'),
      'agreement text': document.agreement?.text ?? '',
    }),
  );
  compareParts(
    changes,
    'recipient role',
    byKey(from.recipientRoles, (role) => role.key),
    byKey(to.recipientRoles, (role) => role.key),
    (role) => label(role.key),
    (role) => ({ primary: yesNo(role.primary === true), sender: yesNo(role.sender === true) }),
  );
  return changes;
}
