import { DesktopIcon, ExitIcon, LockClosedIcon, MobileIcon } from '@radix-ui/react-icons';
import { Avatar, Box, Button, DropdownMenu, Flex, TabNav, Text } from '@radix-ui/themes';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { useAccountActions } from '../accounts/session.tsx';
import { ErrorCallout } from '../error-callout.tsx';
import { SiteHeader } from '../site-header.tsx';
import { useApiAction } from '../use-api-action.ts';

/**
 * The person's menu's dialogs, each a chunk of its own loaded when first opened: a signed-in page does not load nor
 * run them before it paints (the authenticator's and the passkeys' code among them).
 */
const ChangePasswordDialog = lazy(async () => ({
  default: (await import('../accounts/change-password-dialog.tsx')).ChangePasswordDialog,
}));
const AuthenticatorDialog = lazy(async () => ({
  default: (await import('../accounts/factors/authenticator-dialog.tsx')).AuthenticatorDialog,
}));
const SessionsDialog = lazy(async () => ({
  default: (await import('../accounts/sessions/sessions-dialog.tsx')).SessionsDialog,
}));

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

/** A section of the shell's navigation: its page, and when it counts as the current one (its path by default). */
export interface ShellSection {
  to: string;
  label: string;
  active?: boolean;
}

/**
 * The frame of every signed-in page: a skip link, the header (the tenant, its sections, the person's menu with
 * their account, their role, their own pages, "Change password" and Sign out) and the page (the route's `<Outlet>`) in `<main>`,
 * with `children` after it (a dialog above the page).
 *
 * @example
 * <AppShell tenant={organization.name} user={user} role={<RoleBadge … />} sections={[{ to: '/team', label: 'Team' }]} signOut={signOut} />
 */
export function AppShell({
  tenant,
  user,
  role,
  sections,
  personal = [],
  signOut,
  children,
}: {
  /** The name of the instance or organization whose pages these are. */
  tenant: string;
  user: { name: string; email: string };
  /** The person's role, as a badge. */
  role: ReactNode;
  sections: readonly ShellSection[];
  /** The person's own pages (their mail alerts), linked from their menu rather than the sections. */
  personal?: readonly ShellSection[];
  signOut: () => Promise<void>;
  children?: ReactNode;
}) {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const signingOut = useApiAction();
  const account = useAccountActions();
  const [changingPassword, setChangingPassword] = useState(false);
  const [addingFactor, setAddingFactor] = useState(false);
  const [seeingSessions, setSeeingSessions] = useState(false);

  const leave = () =>
    signingOut.run(async () => {
      await signOut();
      void navigate('/sign-in');
    });

  return (
    <>
      <SiteHeader
        surface="app"
        owner={tenant}
        end={
          <DropdownMenu.Root>
            <DropdownMenu.Trigger>
              <Button variant="ghost" color="gray">
                <Avatar size="1" radius="full" fallback={initials(user.name, user.email)} aria-hidden />
                <span className="hide-on-phone">{user.name || user.email}</span>
                <span className="visually-hidden">account menu</span>
                <DropdownMenu.TriggerIcon />
              </Button>
            </DropdownMenu.Trigger>
            <DropdownMenu.Content
              align="end"
              onCloseAutoFocus={(event) => {
                // The password's dialog takes the focus, not the menu's button.
                if (changingPassword || addingFactor || seeingSessions) event.preventDefault();
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
              {account === undefined ? null : (
                <DropdownMenu.Item
                  onSelect={() => {
                    setChangingPassword(true);
                  }}
                >
                  <LockClosedIcon aria-hidden /> Change password
                </DropdownMenu.Item>
              )}
              {account === undefined ? null : (
                <DropdownMenu.Item
                  onSelect={() => {
                    setAddingFactor(true);
                  }}
                >
                  <MobileIcon aria-hidden /> Two-step sign-in
                </DropdownMenu.Item>
              )}
              {account === undefined ? null : (
                <DropdownMenu.Item
                  onSelect={() => {
                    setSeeingSessions(true);
                  }}
                >
                  <DesktopIcon aria-hidden /> Sessions
                </DropdownMenu.Item>
              )}
              <DropdownMenu.Item onSelect={() => void leave()}>
                <ExitIcon aria-hidden /> Sign out
              </DropdownMenu.Item>
            </DropdownMenu.Content>
          </DropdownMenu.Root>
        }
      >
        <TabNav.Root aria-label="Sections" className="app-sections">
          {sections.map((section) => (
            <TabNav.Link key={section.to} asChild active={section.active ?? pathname.startsWith(section.to)}>
              <Link to={section.to}>{section.label}</Link>
            </TabNav.Link>
          ))}
        </TabNav.Root>
      </SiteHeader>
      <main id="main" className="app-main">
        <Box className="app-content">
          <ErrorCallout error={signingOut.error} />
          <Outlet />
        </Box>
      </main>
      <Suspense fallback={null}>
        {changingPassword ? (
          <ChangePasswordDialog open setOpen={setChangingPassword} email={user.email} />
        ) : null}
        {addingFactor ? <AuthenticatorDialog open setOpen={setAddingFactor} /> : null}
        {seeingSessions ? <SessionsDialog open setOpen={setSeeingSessions} /> : null}
      </Suspense>
      {children}
    </>
  );
}
