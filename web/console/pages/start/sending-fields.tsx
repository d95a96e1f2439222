// The fields a sender fills in both to start one transaction ("New transaction") and to make a closing ("New
// closing"): a labelled native menu with its hint and error, the menu's choices of template versions, and the
// invitation's personal line.

import { Flex, Text, TextArea } from '@radix-ui/themes';
import type { ComponentProps, ReactNode } from 'react';
import { locale } from '../../../shared/format.ts';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { Notice } from '../../../shared/notice.tsx';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import type { StartableTemplate, StartOptions } from './start-draft.ts';
import './start.css';

/** The ids of a field's hint and error for `aria-describedby`, or undefined when it has neither. */
export function describedBy(
  id: string,
  parts: { hint?: boolean; error?: string | undefined },
): string | undefined {
  const ids = [
    parts.hint === true ? `${id}-hint` : undefined,
    parts.error === undefined ? undefined : `${id}-error`,
  ]
    .filter((part) => part !== undefined)
    .join(' ');
  return ids === '' ? undefined : ids;
}

/** A field's hint and its error under it, with the ids {@link describedBy} ties them to it by. */
export function HintAndError({
  id,
  hint,
  error,
}: {
  id: string;
  hint?: ReactNode;
  error: string | undefined;
}) {
  return (
    <>
      {hint === undefined ? null : (
        <Text id={`${id}-hint`} size="1" color="gray">
          {hint}
        </Text>
      )}
      {error === undefined ? null : (
        <Text id={`${id}-error`} size="2" color="red" role="alert">
          {error}
        </Text>
      )}
    </>
  );
}

/**
 * A labelled native menu (small, keyboard- and phone-friendly) with its hint and its error tied to it, as a
 * `Field` is to its text box.
 */
export function SelectField({
  id,
  label,
  hint,
  error,
  children,
  ...select
}: {
  id: string;
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  children: ReactNode;
} & Omit<ComponentProps<'select'>, 'id' | 'children'>) {
  return (
    <Flex direction="column" gap="1">
      <Text as="label" htmlFor={id} size="2" weight="medium">
        {label}
      </Text>
      <select
        id={id}
        className="native-select start-select"
        aria-invalid={error === undefined ? undefined : true}
        aria-describedby={describedBy(id, { hint: hint !== undefined, error })}
        {...select}
      >
        {children}
      </select>
      <HintAndError id={id} hint={hint} error={error} />
    </Flex>
  );
}

/**
 * A template as the menu offers it: its name, and when its key has several versions which one it is (the menu
 * lists them latest first, as the server orders them).
 */
export function templateLabel(template: StartableTemplate, templates: readonly StartableTemplate[]): string {
  const versions = templates.filter((each) => each.key === template.key).length;
  if (versions === 1) return template.name;
  return `${template.name} (version ${String(template.version)}${template.latest ? ', the latest' : ''})`;
}

/** The choices of a template menu: every version the organization has, each by {@link templateLabel}. */
export function TemplateOptions({ templates }: { templates: readonly StartableTemplate[] }) {
  return (
    <>
      {templates.map((each) => (
        <option key={each.id} value={each.id}>
          {templateLabel(each, templates)}
        </option>
      ))}
    </>
  );
}

/** The personal line of the invitation: optional, as long as the server keeps, with what is left to write. */
export function NoteField({
  id,
  value,
  max,
  error,
  disabled,
  onChange,
}: {
  id: string;
  value: string;
  max: number;
  error: string | undefined;
  disabled: boolean;
  onChange: (note: string) => void;
}) {
  return (
    <Flex direction="column" gap="1">
      <Text as="label" htmlFor={id} size="2" weight="medium">
        Personal line in the invitation (optional)
      </Text>
      <TextArea
        id={id}
        size="3"
        rows={3}
        value={value}
        maxLength={max}
        disabled={disabled}
        aria-invalid={error === undefined ? undefined : true}
        aria-describedby={describedBy(id, { hint: true, error })}
        onChange={(event) => {
          onChange(event.target.value);
        }}
      />
      <Text id={`${id}-hint`} size="1" color="gray">
        The mail quotes it as your organization&apos;s words. {value.length.toLocaleString(locale)} of{' '}
        {max.toLocaleString(locale)} characters.
      </Text>
      {error === undefined ? null : (
        <Text id={`${id}-error`} size="2" color="red" role="alert">
          {error}
        </Text>
      )}
    </Flex>
  );
}

/**
 * What "New transaction" and "New closing" offer (the templates' versions, the senders), read; until then that
 * it is being read, or why it could not be; and, when the organization has no template or no sender yet, what an
 * admin does first. `doing` finishes the sentence "before anyone can …".
 */
export function WithStartOptions({
  doing,
  children,
}: {
  doing: string;
  children: (options: StartOptions) => ReactNode;
}) {
  const options = useResource(consoleApi, 'GET /start/options');
  if (options.data === undefined) {
    return options.error ? (
      <ErrorCallout error={options.error} />
    ) : (
      <Text color="gray" role="status">
        Reading your templates…
      </Text>
    );
  }
  const { templates, senders } = options.data;
  if (templates.length === 0 || senders.length === 0) {
    return (
      <Notice tone="aside">
        {templates.length === 0
          ? `Your organization has no template yet: an admin imports one (npx portico templates import) before anyone can ${doing}.`
          : `Your organization has no entity to send from yet: an admin adds one (npx portico entities create) before anyone can ${doing}.`}
      </Notice>
    );
  }
  return children(options.data);
}
