// The two fields of a password a person chooses: the new password, with its rules under the label, and the same
// again. A mailed link's page and the signed-in person's own change ask for it alike.

import { NEW_PASSWORD_HINT } from '../accounts/password-rules.ts';
import { PasswordField } from './person-fields.tsx';
import type { FormFields } from './use-form-fields.ts';

/**
 * The new password and its repetition, tied to the form's fields `password` and `confirmation`: their problems
 * are the ones `newPasswordProblems` (password-rules.ts) finds, which the form checks before it sends. Both are
 * new passwords to the browser and password managers (`autocomplete="new-password"`).
 *
 * @example
 * <NewPasswordFields form={form} ids={{ password: 'new-password', confirmation: 'confirm-password' }} />
 */
export function NewPasswordFields({
  form,
  ids,
}: {
  form: Pick<FormFields<'password' | 'confirmation'>, 'field'>;
  /** The fields' ids, each unique on its page. */
  ids: { password: string; confirmation: string };
}) {
  return (
    <>
      <PasswordField
        id={ids.password}
        label="New password"
        hint={NEW_PASSWORD_HINT}
        isNew
        {...form.field('password')}
      />
      <PasswordField
        id={ids.confirmation}
        label="Repeat the new password"
        isNew
        {...form.field('confirmation')}
      />
    </>
  );
}
