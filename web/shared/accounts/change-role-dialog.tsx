import { Button, Dialog } from '@radix-ui/themes';
import { useState } from 'react';
import { DialogForm } from '../list/form-dialog.tsx';
import { useApiAction } from '../use-api-action.ts';
import { RoleChoice, type RoleTexts } from './roles.tsx';

/**
 * "Change role" on a person's row and the dialog it opens: the roles to choose from, the person's own first
 * chosen, which `change` sends to the surface's route; the dialog closes once it has, and shows the route's
 * refusal otherwise. Greyed, with the id of the text that says why, when the server says it cannot work now.
 */
export function ChangeRoleDialog<Role extends string>({
  person,
  self,
  roles,
  unavailable,
  change,
}: {
  person: { id: string; role: Role; label: string };
  /** Whether it is the signed-in person's own role. */
  self: boolean;
  roles: RoleTexts<Role>;
  unavailable: { reasonId: string } | undefined;
  /** Sends the new role (and says what was done). */
  change: (role: Role) => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const [role, setRole] = useState<Role>(person.role);
  const action = useApiAction();
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        setRole(person.role);
        action.clear();
      }}
    >
      <Dialog.Trigger>
        <Button
          variant="soft"
          size="1"
          aria-label={self ? 'Change role (yours)' : `Change role of ${person.label}`}
          disabled={unavailable !== undefined}
          aria-describedby={unavailable?.reasonId}
        >
          Change role
        </Button>
      </Dialog.Trigger>
      <Dialog.Content maxWidth="520px">
        <DialogForm
          title={self ? 'Change your role' : `Change the role of ${person.label}`}
          description={
            self
              ? 'It counts from your next click: what your new role may not do is gone at once.'
              : 'It counts from their next click, on every page they have open.'
          }
          action={action}
          onSubmit={() =>
            action.run(async () => {
              await change(role);
              setOpen(false);
            })
          }
          submit="Change role"
        >
          <RoleChoice id={`role-of-${person.id}`} roles={roles} value={role} onChange={setRole} />
        </DialogForm>
      </Dialog.Content>
    </Dialog.Root>
  );
}
