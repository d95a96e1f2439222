import { Avatar, Button, ChevronDownIcon } from '@radix-ui/themes';
import { forwardRef, type ComponentPropsWithoutRef } from 'react';

/** The initials of a name (or of an e-mail address's local part), for the avatar: letters and digits only. */
function initials(name: string, email: string): string {
  const words = (name.trim() === '' ? (email.split('@')[0] ?? '') : name).split(/[\s._-]+/);
  return words
    .map((word) => /[\p{L}\p{N}]/u.exec(word)?.[0] ?? '')
    .filter(Boolean)
    .slice(0, 2)
    .join('')
    .toUpperCase();
}

/**
 * The button of the person's menu: their avatar and name (the name hidden on a phone), named "account menu" to a
 * screen reader. The shell shows it alone until the menu's chunk has come (app-shell.tsx), then the menu
 * (account-menu.tsx) as its trigger, which gives it its ref and its props.
 */
export const AccountMenuButton = forwardRef<
  HTMLButtonElement,
  { user: { name: string; email: string } } & Omit<ComponentPropsWithoutRef<'button'>, 'color'>
>(function AccountMenuButton({ user, ...props }, ref) {
  return (
    <Button variant="ghost" color="gray" {...props} ref={ref}>
      <Avatar size="1" radius="full" fallback={initials(user.name, user.email)} aria-hidden />
      <span className="hide-on-phone">{user.name || user.email}</span>
      <span className="visually-hidden">account menu</span>
      <ChevronDownIcon />
    </Button>
  );
});
