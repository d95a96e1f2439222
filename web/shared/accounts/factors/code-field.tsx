import type { ComponentProps } from 'react';
import { Field } from '../../form/field.tsx';

/**
 * The field of a code of an authenticator app (the phone's number pad, and the code the browser or the app offers
 * to fill in), or of a recovery code (`recovery`: letters, so the full keyboard).
 */
export function CodeField({
  recovery = false,
  ...field
}: Omit<ComponentProps<typeof Field>, 'type' | 'inputMode' | 'autoComplete'> & { recovery?: boolean }) {
  return (
    <Field
      type="text"
      inputMode={recovery ? 'text' : 'numeric'}
      autoComplete="one-time-code"
      autoCapitalize="off"
      spellCheck={false}
      style={{ fontFamily: 'var(--code-font-family)' }}
      {...field}
    />
  );
}
