// How an item's form looks, for react-jsonschema-form: the template's hints (`ui`) and upload fields turned
// into an rjsf uiSchema, and a label for every field (its schema's title, or its key in words).

import type { UiSchema } from '@rjsf/utils';
import type { FieldHints, Item, MoneyRule, UploadRule } from '../types.ts';
import { declaredProperties } from '../../../src/transactions/templates/schema-properties.ts';

/** What the upload widget is told about its field, through `ui:options`. */
export interface UploadOptions {
  /** The field's key as the upload route names it (`w9FileId`, or `address.proof` when nested). */
  uploadField: string;
  upload: UploadRule;
}

/** What the money field is told about its field, through `ui:options`. */
export interface MoneyOptions {
  money: MoneyRule;
}

type SchemaObject = Record<string, unknown>;

const isObject = (value: unknown): value is SchemaObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A field's key in words, for a field whose schema has no title: `legalName` → `Legal name`, `tax_id` → `Tax
 * id`, `w9FileId` → `W9 file id`.
 */
export function humanize(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .split(/\s+/)
    .map((word, index) => (index > 0 && /^[A-Z][a-z]/.test(word) ? word.toLowerCase() : word));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The schema of the field at `path` (object keys; array indexes go through `items`), or undefined. */
export function schemaAt(schema: unknown, path: readonly (string | number)[]): SchemaObject | undefined {
  let node: unknown = schema;
  for (const segment of path) {
    if (!isObject(node)) return undefined;
    if (typeof segment === 'number') {
      node = Array.isArray(node.items) ? node.items[segment] : node.items;
    } else {
      const properties = node === schema ? declaredProperties(node) : node.properties;
      node = isObject(properties) ? properties[segment] : undefined;
    }
  }
  return isObject(node) ? node : undefined;
}

/** The label of the field at `path`: its schema's title, or its key in words. */
export function labelAt(schema: unknown, path: readonly (string | number)[]): string {
  const title = schemaAt(schema, path)?.title;
  if (typeof title === 'string' && title.trim() !== '') return title;
  const key = [...path].reverse().find((segment) => typeof segment === 'string');
  return key === undefined ? 'This answer' : humanize(key);
}

/** The uiSchema node for the field at `path` (made on the way). */
function nodeAt(ui: UiSchema, path: readonly string[]): UiSchema {
  let node = ui;
  for (const key of path) {
    const next = node[key] as UiSchema | undefined;
    if (next === undefined) {
      const made: UiSchema = {};
      node[key] = made;
      node = made;
    } else {
      node = next;
    }
  }
  return node;
}

/** Titles for the fields whose schema has none, all the way down (an item's conditional fields too). */
function titles(schema: unknown, ui: UiSchema, top = false): void {
  if (!isObject(schema)) return;
  const properties = top ? declaredProperties(schema) : schema.properties;
  if (isObject(properties)) {
    for (const [key, sub] of Object.entries(properties)) {
      const node = nodeAt(ui, [key]);
      if (!isObject(sub) || typeof sub.title !== 'string') node['ui:title'] = humanize(key);
      titles(sub, node);
    }
  }
  if (isObject(schema.items)) {
    const node = (ui.items as UiSchema | undefined) ?? {};
    ui.items = node;
    titles(schema.items, node);
  }
}

function hintsOf(hints: FieldHints): Record<string, string> {
  return {
    ...(hints.widget === undefined ? {} : { 'ui:widget': hints.widget }),
    ...(hints.help === undefined ? {} : { 'ui:help': hints.help }),
    ...(hints.placeholder === undefined ? {} : { 'ui:placeholder': hints.placeholder }),
    ...(hints.autocomplete === undefined ? {} : { 'ui:autocomplete': hints.autocomplete }),
  };
}

/**
 * The uiSchema of an item's form: labels for untitled fields, the template's order and field hints (widget,
 * help, placeholder, autocomplete; dotted keys for nested fields), and the upload widget on upload fields.
 *
 * @example
 * itemUiSchema({ ...item, ui: { fields: { 'address.city': { autocomplete: 'address-level2' } } } });
 * // { address: { city: { 'ui:title': 'City', 'ui:autocomplete': 'address-level2' } }, … }
 */
export function itemUiSchema(item: Pick<Item, 'schema' | 'ui' | 'uploads' | 'money'>): UiSchema {
  const ui: UiSchema = {};
  titles(item.schema, ui, true);
  const order = item.ui?.order;
  if (order !== undefined && order.length > 0) ui['ui:order'] = order.includes('*') ? order : [...order, '*'];
  for (const [dotted, hints] of Object.entries(item.ui?.fields ?? {})) {
    Object.assign(nodeAt(ui, dotted.split('.')), hintsOf(hints));
  }
  for (const [dotted, upload] of Object.entries(item.uploads)) {
    const node = nodeAt(ui, dotted.split('.'));
    node['ui:widget'] = 'upload';
    node['ui:options'] = {
      ...(node['ui:options'] as object | undefined),
      uploadField: dotted,
      upload,
    } satisfies UploadOptions;
  }
  // An amount of money is one field (money-field.tsx), however its value is stored ({currency, amount}).
  for (const [field, money] of Object.entries(item.money)) {
    const node = nodeAt(ui, [field]);
    node['ui:field'] = 'money';
    node['ui:options'] = { ...(node['ui:options'] as object | undefined), money } satisfies MoneyOptions;
  }
  return ui;
}

/** The hints the template gave the field at `path` (through its uiSchema). */
export function hintsAt(
  ui: UiSchema,
  path: readonly (string | number)[],
): FieldHints & { upload: boolean; money?: MoneyRule } {
  let node: unknown = ui;
  for (const segment of path) {
    if (!isObject(node)) break;
    node = typeof segment === 'number' ? node.items : node[segment];
  }
  const at = isObject(node) ? node : {};
  const text = (key: string) => (typeof at[key] === 'string' ? at[key] : undefined);
  const widget = text('ui:widget');
  return {
    ...(widget === undefined || widget === 'upload' ? {} : { widget: widget as FieldHints['widget'] }),
    ...(text('ui:help') === undefined ? {} : { help: text('ui:help') }),
    ...(text('ui:placeholder') === undefined ? {} : { placeholder: text('ui:placeholder') }),
    upload: widget === 'upload',
    ...(at['ui:field'] === 'money' && isObject(at['ui:options']) && isObject(at['ui:options'].money)
      ? { money: at['ui:options'].money as unknown as MoneyRule }
      : {}),
  };
}
