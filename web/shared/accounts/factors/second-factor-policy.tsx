import { Button, CheckboxGroup, Flex, RadioGroup, Text } from '@radix-ui/themes';
import { useEffect, useState } from 'react';
import { ErrorCallout } from '../../error-callout.tsx';
import { Form } from '../../form/submit-form.tsx';
import { HeadedSection } from '../../layout/headed-section.tsx';
import { Notice } from '../../notice.tsx';
import { useApiAction } from '../../use-api-action.ts';
import type { RoleTexts } from '../roles.tsx';

/** Who must sign in with a second factor, as the surface's `GET`/`PUT …/security/second-factor` take it. */
export interface SecondFactorPolicy<Role extends string> {
  required: 'nobody' | 'everyone' | 'roles';
  roles: Role[];
}

/**
 * "Two-step sign-in" for the admins of a tenant: whether nobody, everyone, or the people of chosen roles must
 * sign in with an authenticator app as well as their password. Those it covers who have none are led to add one
 * at their next request, and can do nothing else until they have (the server enforces it).
 */
export function SecondFactorPolicyForm<Role extends string>({
  roles,
  read,
  save,
  onSaved,
}: {
  roles: RoleTexts<Role>;
  /** Told once a change is saved (the team's activity reads it again). */
  onSaved?: (() => void) | undefined;
  read: () => Promise<{ policy: SecondFactorPolicy<Role> }>;
  save: (policy: SecondFactorPolicy<Role>) => Promise<{ policy: SecondFactorPolicy<Role> }>;
}) {
  const [policy, setPolicy] = useState<SecondFactorPolicy<Role>>();
  const [saved, setSaved] = useState<string>();
  const action = useApiAction();
  useEffect(() => {
    void action.run(async () => {
      setPolicy((await read()).policy);
    });
    // Read once, when the section shows.
  }, []);

  const submit = async () => {
    if (!policy) return;
    setSaved(undefined);
    await action.run(async () => {
      const answer = await save(policy);
      setPolicy(answer.policy);
      onSaved?.();
      setSaved(
        answer.policy.required === 'nobody'
          ? 'Saved: two-step sign-in is up to each person.'
          : 'Saved: those it covers who have no app or passkey are asked to add one as soon as they go on.',
      );
    });
  };

  return (
    <HeadedSection id="second-factor-heading" title="Two-step sign-in" size="3">
      <ErrorCallout error={action.error} />
      {policy === undefined ? null : (
        <Form onSubmit={submit}>
          <Text as="p" size="2" color="gray">
            Require a second step at sign-in, as well as the password: a code from an authenticator app, or a
            passkey. People it covers who have neither are asked to add one before they can do anything else.
            Those who sign in through single sign-on use their identity provider&apos;s instead.
          </Text>
          <RadioGroup.Root
            aria-labelledby="second-factor-heading"
            value={policy.required}
            onValueChange={(value) => {
              setSaved(undefined);
              setPolicy({ ...policy, required: value as SecondFactorPolicy<Role>['required'] });
            }}
          >
            <RadioGroup.Item value="nobody">Not required: each person chooses</RadioGroup.Item>
            <RadioGroup.Item value="everyone">Required for everyone</RadioGroup.Item>
            <RadioGroup.Item value="roles">Required for chosen roles</RadioGroup.Item>
          </RadioGroup.Root>
          {policy.required === 'roles' ? (
            <Flex direction="column" gap="1">
              <Text as="p" size="2" weight="medium" id="second-factor-roles">
                Roles that must use it
              </Text>
              <CheckboxGroup.Root
                aria-labelledby="second-factor-roles"
                value={policy.roles}
                onValueChange={(value) => {
                  setSaved(undefined);
                  setPolicy({ ...policy, roles: value as Role[] });
                }}
              >
                {(Object.keys(roles) as Role[]).map((role) => (
                  <CheckboxGroup.Item key={role} value={role}>
                    {roles[role].label}
                  </CheckboxGroup.Item>
                ))}
              </CheckboxGroup.Root>
            </Flex>
          ) : null}
          <Flex justify="start">
            <Button type="submit" loading={action.busy}>
              Save two-step sign-in
            </Button>
          </Flex>
          <div role="status">
            {saved === undefined ? null : (
              <Notice tone="done" highContrast>
                {saved}
              </Notice>
            )}
          </div>
        </Form>
      )}
    </HeadedSection>
  );
}
