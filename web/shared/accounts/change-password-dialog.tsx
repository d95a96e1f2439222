import { Button, Dialog, Flex } from '@radix-ui/themes';
import { useState } from 'react';
import { NewPasswordFields } from '../form/new-password-fields.tsx';
import { PasswordField } from '../form/person-fields.tsx';
import { useFormFields } from '../form/use-form-fields.ts';
import { DialogForm } from '../list/form-dialog.tsx';
import { errorsOfFields, useApiAction } from '../use-api-action.ts';
import { useAccountActions } from './session.tsx';
import { newPasswordProblems } from './password-rules.ts';

/**
 * "Change your password", opened from the person's menu of a surface's shell: the current password, the new one
 * twice (the rules of a mailed link's page), then what happened: the person's other sessions have ended, this one
 * stays. Closing it forgets what was typed.
 */
export function ChangePasswordDialog({
  open,
  setOpen,
  email,
}: {
  open: boolean;
  setOpen: (open: boolean) => void;
  /** The signed-in person's address: said, and given to password managers with the new password. */
  email: string;
}) {
  const account = useAccountActions();
  const form = useFormFields({ currentPassword: '', password: '', confirmation: '' });
  const action = useApiAction();
  const [ended, setEnded] = useState<number>();

  const close = (next: boolean) => {
    setOpen(next);
    if (!next) {
      form.reset();
      action.clear();
      setEnded(undefined);
    }
  };

  const submit = async () => {
    const { currentPassword, password, confirmation } = form.values;
    const found = {
      currentPassword: currentPassword === '' ? 'Enter your current password.' : undefined,
      ...newPasswordProblems(password, confirmation),
    };
    if (!form.check(found) || !account) return;
    await action.run(
      async () => {
        const answer = await account.changePassword({ currentPassword, password });
        setEnded(answer.otherSessionsEnded);
      },
      errorsOfFields(['currentPassword', 'password'], form.setProblems),
    );
  };

  return (
    <Dialog.Root open={open} onOpenChange={close}>
      <Dialog.Content maxWidth="460px">
        {ended === undefined ? (
          <DialogForm
            title="Change your password"
            description={`For ${email}: the password of every account you sign in to here with this address. Your other sessions end; this one stays.`}
            action={action}
            onSubmit={submit}
            submit="Change password"
          >
            {/* For password managers: whose password this is. */}
            <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />
            <PasswordField
              id="current-password"
              label="Current password"
              {...form.field('currentPassword')}
            />
            <NewPasswordFields
              form={form}
              ids={{ password: 'changed-password', confirmation: 'changed-password-again' }}
            />
          </DialogForm>
        ) : (
          <Flex direction="column" gap="3">
            <Dialog.Title mb="0">Your password is changed</Dialog.Title>
            <Dialog.Description size="2" role="status">
              Use it from now on. This browser stays signed in
              {ended === 0
                ? '; you were signed in nowhere else.'
                : `; ${String(ended)} other ${ended === 1 ? 'session was' : 'sessions were'} signed out.`}
            </Dialog.Description>
            <Flex justify="end">
              <Dialog.Close>
                <Button>Close</Button>
              </Dialog.Close>
            </Flex>
          </Flex>
        )}
      </Dialog.Content>
    </Dialog.Root>
  );
}
