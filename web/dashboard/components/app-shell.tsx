import { ExitIcon } from '@radix-ui/react-icons';
import { Avatar, Box, Button, DropdownMenu, Flex, TabNav, Text } from '@radix-ui/themes';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { useSignedIn, useSession } from '../session.tsx';
import { RoleBadge } from './role-badge.tsx';
import { useApiAction } from '../../shared/use-api-action.ts';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { SiteHeader } from '../../shared/site-header.tsx';

/** The initials of a name (or of an e-mail address's local part), for the avatar. */
function initials(name: string, email: string): string {
  const words = (name.trim() === '' ? (email.split('@')[0] ?? '') : name).split(/[\s._-]+/).filter(Boolean);
  return words
    .slice(0, 2)
    .map((word) => word.charAt(0).toUpperCase())
    .join('');
}

/**
 * The frame of every signed-in page: a skip link, the header (the instance, its sections, the person's menu
 * with Sign out) and the page in `<main>`.
 */
export function AppShell() {
  const { user, instance } = useSignedIn();
  const { signOut } = useSession();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const signingOut = useApiAction();
  const base = `/${instance.slug}`;
  const sections = [
    { to: `${base}/companies`, label: 'Companies' },
    { to: `${base}/settings/api-keys`, label: 'Settings', active: pathname.startsWith(`${base}/settings`) },
  ];

  const leave = () =>
    signingOut.run(async () => {
      await signOut();
      void navigate('/sign-in');
    });

  return (
    <>
      <SiteHeader
        surface="app"
        owner={instance.name}
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
            <DropdownMenu.Content align="end">
              <DropdownMenu.Label>
                <Flex direction="column">
                  <Text size="2" weight="medium" highContrast>
                    {user.name || user.email}
                  </Text>
                  <Text size="1">{user.email}</Text>
                </Flex>
              </DropdownMenu.Label>
              <DropdownMenu.Label>
                <RoleBadge role={user.role} />
              </DropdownMenu.Label>
              <DropdownMenu.Separator />
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
    </>
  );
}
