// An item's answers as a list to read (review before submitting, a submitted revision): each field's label and
// its answer in words, the answers changed since the last submission marked, with what they were.

import { Badge, DataList, Flex, Text } from '@radix-ui/themes';
import { Fragment, type ReactNode } from 'react';
import { formatMoney } from '../../../src/transactions/money.ts';
import { declaredProperties, isConditional } from '../../../src/transactions/templates/schema-properties.ts';
import { changedPaths } from '../form/changes.ts';
import { humanize } from '../form/ui-schema.ts';
import { pathKey } from '../form/validator.ts';
import { formatBytes, formatDateTime } from '../format.ts';
import type { Item } from '../types.ts';

type SchemaObject = Record<string, unknown>;

const isObject = (value: unknown): value is SchemaObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const dateOnly = new Intl.DateTimeFormat(typeof navigator === 'undefined' ? 'en' : navigator.language, {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** The properties of an object schema (an item's own with its conditional ones), in the template's order. */
function orderedKeys(schema: SchemaObject, order: readonly string[] | undefined): string[] {
  const keys = Object.keys(propertiesOf(schema, order !== undefined));
  if (!order) return keys;
  const first = order.filter((key) => key !== '*' && keys.includes(key));
  return [...first, ...keys.filter((key) => !first.includes(key))];
}

/** The properties of an object schema; an item's (`top`) with those of its conditional parts too. */
function propertiesOf(schema: SchemaObject, top: boolean): SchemaObject {
  if (top) return declaredProperties(schema);
  return isObject(schema.properties) ? schema.properties : {};
}

/** The label of an option (`oneOf`/`anyOf` of `const` with a `title`), or the value itself. */
function optionLabel(schema: SchemaObject, value: unknown): string {
  const options: unknown[] = [
    ...(Array.isArray(schema.oneOf) ? (schema.oneOf as unknown[]) : []),
    ...(Array.isArray(schema.anyOf) ? (schema.anyOf as unknown[]) : []),
  ];
  for (const option of options) {
    if (isObject(option) && option.const === value && typeof option.title === 'string') return option.title;
  }
  return String(value);
}

/** An answer in words: "Yes", a date, an option's label, a file's name… */
function answerText(
  schema: SchemaObject,
  value: unknown,
  item: Item,
  kind: 'upload' | 'money' | 'country' | 'answer',
): ReactNode {
  if (value === undefined || value === null || value === '') {
    return (
      <Text color="gray" as="span">
        Not answered
      </Text>
    );
  }
  if (kind === 'money' && isObject(value)) {
    const { currency, amount } = value;
    return typeof currency === 'string' && typeof amount === 'number'
      ? formatMoney({ currency, amount })
      : 'Not a complete amount yet';
  }
  if (kind === 'country' && typeof value === 'string') {
    const name = new Intl.DisplayNames([navigator.language, 'en'], { type: 'region', fallback: 'none' }).of(
      value,
    );
    return name === undefined ? value : `${name} (${value})`;
  }
  if (kind === 'upload') {
    const file = item.files.find((each) => each.id === value);
    return file ? `${file.originalFilename} (${formatBytes(file.byteSize)})` : 'A file';
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) {
    const itemSchema = isObject(schema.items) ? schema.items : {};
    if (value.length === 0) return 'None';
    return (
      <ul className="answer-list">
        {value.map((each, index) => (
          <li key={index}>{isObject(each) ? JSON.stringify(each) : optionLabel(itemSchema, each)}</li>
        ))}
      </ul>
    );
  }
  if (typeof value === 'string' && schema.format === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
    return dateOnly.format(new Date(`${value}T00:00:00Z`));
  }
  if (isObject(value)) return JSON.stringify(value);
  return <span className="answer-text">{optionLabel(schema, value)}</span>;
}

function valueAt(data: unknown, path: readonly string[]): unknown {
  let node = data;
  for (const key of path) node = isObject(node) ? node[key] : undefined;
  return node;
}

/**
 * The answers of an item, field by field (nested objects as their own lists). With `compare`, the answers
 * that differ from the last submission are marked "Changed" with what they were.
 */
export function Answers({ item, data, compare }: { item: Item; data: unknown; compare: boolean }) {
  const changed = compare
    ? changedPaths(item.previousData, data, Object.keys(item.money))
    : new Set<string>();
  const list = (schema: SchemaObject, path: string[]): ReactNode => (
    <DataList.Root orientation={{ initial: 'vertical', sm: 'horizontal' }} size="2" className="answers">
      {orderedKeys(schema, path.length === 0 ? (item.ui?.order ?? []) : undefined).flatMap((key) => {
        const properties = propertiesOf(schema, path.length === 0);
        const sub = isObject(properties[key]) ? properties[key] : {};
        const at = [...path, key];
        const label = typeof sub.title === 'string' ? sub.title : humanize(key);
        const value = valueAt(data, at);
        // A field the form asks only under a condition (a date of birth for people) is listed once answered.
        if (path.length === 0 && isConditional(schema, key) && (value === undefined || value === ''))
          return [];
        const money = path.length === 0 && key in item.money;
        if (!money && sub.type === 'object' && isObject(sub.properties)) {
          return (
            <DataList.Item key={key}>
              <DataList.Label>{label}</DataList.Label>
              <DataList.Value>{list(sub, at)}</DataList.Value>
            </DataList.Item>
          );
        }
        const field = pathKey(at);
        const isChanged = changed.has(field);
        const kind = money
          ? 'money'
          : field in item.uploads
            ? 'upload'
            : item.ui?.fields?.[field]?.widget === 'country'
              ? 'country'
              : 'answer';
        return (
          <DataList.Item key={key}>
            <DataList.Label>{label}</DataList.Label>
            <DataList.Value>
              <Flex direction="column" gap="1">
                <Fragment>{answerText(sub, value, item, kind)}</Fragment>
                {path.length === 0 && value === true && item.consents[key] !== undefined ? (
                  <Text size="1" color="gray">
                    Given {formatDateTime(item.consents[key])}
                  </Text>
                ) : null}
                {isChanged ? (
                  <Flex gap="2" align="center" wrap="wrap">
                    <Badge color="amber" variant="soft" highContrast>
                      Changed
                    </Badge>
                    <Text size="1" color="gray">
                      Before: {answerText(sub, valueAt(item.previousData, at), item, kind)}
                    </Text>
                  </Flex>
                ) : null}
              </Flex>
            </DataList.Value>
          </DataList.Item>
        );
      })}
    </DataList.Root>
  );
  return <>{list(item.schema as SchemaObject, [])}</>;
}
