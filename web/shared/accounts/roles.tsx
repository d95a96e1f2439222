import { Badge, Flex, RadioCards, Text } from '@radix-ui/themes';

/** What a role is called, and what it lets a person do, in one short sentence. */
export interface RoleText {
  label: string;
  can: string;
}

/** A surface's roles, in the order a choice lists them, each with its {@link RoleText}. */
export type RoleTexts<Role extends string> = Readonly<Record<Role, RoleText>>;

/** A person's role, admins in indigo. */
export function RoleBadge<Role extends string>({ role, roles }: { role: Role; roles: RoleTexts<Role> }) {
  return <Badge color={role === 'admin' ? 'indigo' : 'gray'}>{roles[role].label}</Badge>;
}

/**
 * The choice of one of `roles`, each a card with what it lets a person do: an invitation's, and a person's new
 * role. `id` names its label.
 */
export function RoleChoice<Role extends string>({
  id,
  roles,
  value,
  onChange,
}: {
  id: string;
  roles: RoleTexts<Role>;
  value: Role;
  onChange: (role: Role) => void;
}) {
  const choices = Object.keys(roles) as Role[];
  return (
    <Flex direction="column" gap="2">
      <Text id={`${id}-label`} size="2" weight="medium">
        Role
      </Text>
      <RadioCards.Root
        columns={{ initial: '1', sm: '2' }}
        value={value}
        onValueChange={(chosen) => {
          onChange(choices.find((each) => each === chosen) ?? value);
        }}
        aria-labelledby={`${id}-label`}
      >
        {choices.map((each) => (
          <RadioCards.Item key={each} value={each}>
            <Flex direction="column" gap="1">
              <Text weight="medium">{roles[each].label}</Text>
              <Text size="1" color="gray">
                {roles[each].can}
              </Text>
            </Flex>
          </RadioCards.Item>
        ))}
      </RadioCards.Root>
    </Flex>
  );
}
