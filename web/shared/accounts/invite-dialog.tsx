import { useState } from 'react';
import { emailProblem, personNameProblem } from '../form/checks.ts';
import { EmailField, NameField } from '../form/person-fields.tsx';
import { useFormFields } from '../form/use-form-fields.ts';
import { DialogForm, FormDialog } from '../list/form-dialog.tsx';
import { errorsOfFields, useApiAction } from '../use-api-action.ts';
import { RoleChoice, type RoleTexts } from './roles.tsx';

/** What an invitation is sent with: the address, the role, and the name when one was typed. */
export interface Invitation<Role extends string> {
  email: string;
  role: Role;
  name?: string;
}

/**
 * "Invite someone": an e-mail address, a name (optional) and one of `roles` (`initialRole` first), which `invite`
 * sends to the surface's route (whose server mails the invitation); the dialog closes once it has.
 *
 * @example
 * <InviteDialog roles={ROLES} initialRole="viewer" invite={async (invitation) => {
 *   const { person } = await consoleApi('POST /team', { body: invitation });
 * }} />
 */
export function InviteDialog<Role extends string>({
  roles,
  initialRole,
  invite,
}: {
  roles: RoleTexts<Role>;
  initialRole: Role;
  invite: (invitation: Invitation<Role>) => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const form = useFormFields({ email: '', name: '' });
  const [role, setRole] = useState<Role>(initialRole);
  const action = useApiAction();

  const reset = () => {
    form.reset();
    setRole(initialRole);
    action.clear();
  };

  const submit = async () => {
    const address = form.values.email.trim();
    const name = form.values.name.trim();
    const found = {
      email: emailProblem(address, 'Enter the e-mail address to invite.'),
      name: personNameProblem(name),
    };
    if (!form.check(found)) return;
    await action.run(
      async () => {
        await invite({ email: address, role, ...(name === '' ? {} : { name }) });
        setOpen(false);
        reset();
      },
      errorsOfFields(['email', 'name'], form.setProblems),
    );
  };

  return (
    <FormDialog trigger="Invite someone" open={open} setOpen={setOpen} onClose={reset}>
      <DialogForm
        title="Invite someone"
        description="They get an e-mail with a link to set their password. The link works once, for 7 days."
        action={action}
        onSubmit={submit}
        submit="Send invitation"
      >
        <EmailField id="invite-email" autoComplete="off" {...form.field('email')} />
        <NameField
          id="invite-name"
          label="Name"
          hint="Optional: they can set it themselves."
          {...form.field('name')}
        />
        <RoleChoice id="invite-role" roles={roles} value={role} onChange={setRole} />
      </DialogForm>
    </FormDialog>
  );
}
