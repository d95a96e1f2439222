import { Flex, TabNav } from '@radix-ui/themes';
import { Link, Outlet, useLocation } from 'react-router';
import { useSignedIn } from '../session.tsx';

/** Settings: its tabs (API keys, People) over the tab's page. */
export function SettingsLayout() {
  const { tenant: instance } = useSignedIn();
  const { pathname } = useLocation();
  const tabs = [
    { to: `/${instance.slug}/settings/api-keys`, label: 'API keys' },
    { to: `/${instance.slug}/settings/people`, label: 'People' },
  ];
  return (
    <Flex direction="column" gap="4">
      <TabNav.Root aria-label="Settings">
        {tabs.map((tab) => (
          <TabNav.Link key={tab.to} asChild active={pathname.startsWith(tab.to)}>
            <Link to={tab.to}>{tab.label}</Link>
          </TabNav.Link>
        ))}
      </TabNav.Root>
      <Outlet />
    </Flex>
  );
}
