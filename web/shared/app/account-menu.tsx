// The person's menu in the shell's header, in a chunk of its own: the menu's code (Radix's menu, its popper and
// floating-ui, about 10 KiB compressed) is not needed to paint a page, only to open the menu. The shell
// (app-shell.tsx) shows its button, drawn alike, until this has come.
import { DesktopIcon, ExitIcon, LockClosedIcon, MobileIcon } from '@radix-ui/react-icons';
import { DropdownMenu, Flex, Text } from '@radix-ui/themes';
import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { AccountMenuButton } from './account-menu-button.tsx';
import type { ShellSection } from './app-shell.tsx';

/** What the menu does when one of its items is chosen; the actions the surface lacks are left out. */
export interface AccountMenuActions {
  changePassword?: () => void;
  addFactor?: () => void;
  seeSessions?: () => void;
  signOut: () => void;
}

/**
 * The person's menu: who they are and their role, their own pages, their account's actions and "Sign out".
 * `defaultOpen` opens it as it comes (the person chose its button before it had come); `focusTrigger` gives its
 * button the focus as it comes (the button it replaces had it). `keepFocus` is true while a dialog opened from it
 * holds the focus, which the menu then does not take back as it closes.
 */
export default function AccountMenu({
  user,
  role,
  personal,
  actions,
  defaultOpen,
  focusTrigger,
  keepFocus,
}: {
  user: { name: string; email: string };
  role: ReactNode;
  personal: readonly ShellSection[];
  actions: AccountMenuActions;
  defaultOpen: boolean;
  focusTrigger: boolean;
  keepFocus: boolean;
}) {
  const trigger = useRef<HTMLButtonElement>(null);
  const [focusOnMount] = useState(focusTrigger);
  // In the render that puts it in the button's place, before the page can take a key: the focus stays on it.
  useLayoutEffect(() => {
    if (focusOnMount) trigger.current?.focus();
  }, [focusOnMount]);
  return (
    <DropdownMenu.Root defaultOpen={defaultOpen}>
      <DropdownMenu.Trigger>
        <AccountMenuButton ref={trigger} user={user} />
      </DropdownMenu.Trigger>
      <DropdownMenu.Content
        align="end"
        onCloseAutoFocus={(event) => {
          // The dialog takes the focus, not the menu's button.
          if (keepFocus) event.preventDefault();
        }}
      >
        <DropdownMenu.Label>
          <Flex direction="column">
            <Text size="2" weight="medium" highContrast>
              {user.name || user.email}
            </Text>
            <Text size="1">{user.email}</Text>
          </Flex>
        </DropdownMenu.Label>
        <DropdownMenu.Label>{role}</DropdownMenu.Label>
        <DropdownMenu.Separator />
        {personal.map((page) => (
          <DropdownMenu.Item key={page.to} asChild>
            <Link to={page.to}>{page.label}</Link>
          </DropdownMenu.Item>
        ))}
        {actions.changePassword === undefined ? null : (
          <DropdownMenu.Item onSelect={actions.changePassword}>
            <LockClosedIcon aria-hidden /> Change password
          </DropdownMenu.Item>
        )}
        {actions.addFactor === undefined ? null : (
          <DropdownMenu.Item onSelect={actions.addFactor}>
            <MobileIcon aria-hidden /> Two-step sign-in
          </DropdownMenu.Item>
        )}
        {actions.seeSessions === undefined ? null : (
          <DropdownMenu.Item onSelect={actions.seeSessions}>
            <DesktopIcon aria-hidden /> Sessions
          </DropdownMenu.Item>
        )}
        <DropdownMenu.Item onSelect={actions.signOut}>
          <ExitIcon aria-hidden /> Sign out
        </DropdownMenu.Item>
      </DropdownMenu.Content>
    </DropdownMenu.Root>
  );
}
