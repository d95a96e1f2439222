import { Flex, RadioCards, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { api } from '../api.ts';
import { emailProblem, personNameProblem } from '../../shared/form/checks.ts';
import { EmailField, NameField } from '../../shared/form/person-fields.tsx';
import { useFormFields } from '../../shared/form/use-form-fields.ts';
import { DialogForm, FormDialog } from '../../shared/list/form-dialog.tsx';
import { errorsOfFields, useApiAction } from '../../shared/use-api-action.ts';
import type { InvitedAnswer, Person, Role } from '../types.ts';
import { ROLE_TEXT } from './role-badge.tsx';

/** "Invite": an e-mail address, a name (optional) and a role; the server mails the invitation. */
export function InviteDialog({ slug, onInvited }: { slug: string; onInvited: (person: Person) => void }) {
  const [open, setOpen] = useState(false);
  const form = useFormFields({ email: '', name: '' });
  const [role, setRole] = useState<Role>('member');
  const action = useApiAction();

  const reset = () => {
    form.reset();
    setRole('member');
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
        const { person } = await api<InvitedAnswer>('POST', `/instances/${slug}/people`, {
          email: address,
          role,
          ...(name === '' ? {} : { name }),
        });
        setOpen(false);
        reset();
        onInvited(person);
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
        <Flex direction="column" gap="2">
          <Text id="invite-role-label" size="2" weight="medium">
            Role
          </Text>
          <RadioCards.Root
            columns={{ initial: '1', sm: '2' }}
            value={role}
            onValueChange={(value) => {
              setRole(value === 'admin' ? 'admin' : 'member');
            }}
            aria-labelledby="invite-role-label"
          >
            {(['member', 'admin'] as const).map((each) => (
              <RadioCards.Item key={each} value={each}>
                <Flex direction="column" gap="1">
                  <Text weight="medium">{ROLE_TEXT[each].label}</Text>
                  <Text size="1" color="gray">
                    {ROLE_TEXT[each].can}
                  </Text>
                </Flex>
              </RadioCards.Item>
            ))}
          </RadioCards.Root>
        </Flex>
      </DialogForm>
    </FormDialog>
  );
}
