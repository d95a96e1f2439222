import type { ComponentProps } from 'react';
import { Field } from './field.tsx';

/**
 * The field of an e-mail address (required; the phone's e-mail keyboard), labelled "E-mail address" unless
 * `label` says otherwise. `autoComplete` says which address: `username` to sign in, `email` one's own, `off`
 * somebody else's.
 */
export function EmailField({
  id = 'email',
  label = 'E-mail address',
  autoComplete,
  ...field
}: Omit<ComponentProps<typeof Field>, 'id' | 'label' | 'type' | 'inputMode' | 'autoComplete'> & {
  id?: string;
  label?: string;
  autoComplete: 'username' | 'email' | 'off';
}) {
  return (
    <Field
      id={id}
      label={label}
      type="email"
      inputMode="email"
      autoComplete={autoComplete}
      required
      {...field}
    />
  );
}
