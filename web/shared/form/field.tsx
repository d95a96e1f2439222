import { Flex, Text, TextField } from '@radix-ui/themes';
import type { ComponentProps, ReactNode } from 'react';

/**
 * A labelled text field with its hint and its error, tied to it for screen readers (`aria-describedby`,
 * `aria-invalid`). The error replaces nothing: the hint stays, the error comes after it in red.
 */
export function Field({
  id,
  label,
  aside,
  hint,
  error,
  ...input
}: {
  id: string;
  label: string;
  /** Shown beside the label, outside it (a "Forgot your password?" link). */
  aside?: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
} & Omit<ComponentProps<typeof TextField.Root>, 'id'>) {
  const described = [
    hint === undefined ? undefined : `${id}-hint`,
    error === undefined ? undefined : `${id}-error`,
  ]
    .filter((part) => part !== undefined)
    .join(' ');
  return (
    <Flex direction="column" gap="1">
      <Flex justify="between" align="baseline" gap="2">
        <Text as="label" htmlFor={id} size="2" weight="medium">
          {label}
        </Text>
        {aside}
      </Flex>
      <TextField.Root
        id={id}
        size="3"
        aria-invalid={error === undefined ? undefined : true}
        aria-describedby={described === '' ? undefined : described}
        color={error === undefined ? undefined : 'red'}
        {...input}
      />
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
    </Flex>
  );
}
