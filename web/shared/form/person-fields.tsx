// The fields that say who someone is: their e-mail address, their password, their name. Each is a `Field`
// with what the browser and password managers need to fill it in (type, keyboard, autocomplete).

import type { ComponentProps } from 'react';
import { Field } from './field.tsx';

type FieldProps = ComponentProps<typeof Field>;

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
}: Omit<FieldProps, 'id' | 'label' | 'type' | 'inputMode' | 'autoComplete'> & {
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

/** A required password field: the one a person has (`current-password`), or, when `isNew`, one they choose. */
export function PasswordField({
  isNew = false,
  ...field
}: Omit<FieldProps, 'type' | 'autoComplete'> & { isNew?: boolean }) {
  return (
    <Field type="password" autoComplete={isNew ? 'new-password' : 'current-password'} required {...field} />
  );
}

/** The field of a person's name: one's `own` (the browser may fill it in), or somebody else's. */
export function NameField({ own = false, ...field }: Omit<FieldProps, 'autoComplete'> & { own?: boolean }) {
  return <Field autoComplete={own ? 'name' : 'off'} {...field} />;
}
