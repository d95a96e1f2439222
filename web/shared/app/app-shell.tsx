import { Box, TabNav } from '@radix-ui/themes';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Chunked, lazyChunk } from './chunk.tsx';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { useAccountActions } from '../accounts/session.tsx';
import { ErrorCallout } from '../error-callout.tsx';
import { SiteHeader } from '../site-header.tsx';
import { useApiAction } from '../use-api-action.ts';
import { AccountMenuButton } from './account-menu-button.tsx';
import type { default as AccountMenu, AccountMenuActions } from './account-menu.tsx';

/**
 * The person's menu's dialogs, each a chunk of its own loaded when first opened: a signed-in page does not load nor
 * run them before it paints (the authenticator's and the passkeys' code among them).
 */
const ChangePasswordDialog = lazyChunk(async () => ({
  default: (await import('../accounts/change-password-dialog.tsx')).ChangePasswordDialog,
}));
const AuthenticatorDialog = lazyChunk(async () => ({
  default: (await import('../accounts/factors/authenticator-dialog.tsx')).AuthenticatorDialog,
}));
const SessionsDialog = lazyChunk(async () => ({
  default: (await import('../accounts/sessions/sessions-dialog.tsx')).SessionsDialog,
}));

/**
 * The person's menu: a chunk of its own, loaded when the person comes to its button (see `PersonMenu`), then kept
 * here, so that the button becomes the menu's in one render, the focus moved with it.
 */
let accountMenu: { default: typeof AccountMenu } | undefined;
const loadAccountMenu = async () => (accountMenu ??= await import('./account-menu.tsx'));

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
          <PersonMenu
            user={user}
            role={role}
            personal={personal}
            keepFocus={changingPassword || addingFactor || seeingSessions}
            actions={{
              ...(account === undefined
                ? {}
                : {
                    changePassword: () => {
                      setChangingPassword(true);
                    },
                    addFactor: () => {
                      setAddingFactor(true);
                    },
                    seeSessions: () => {
                      setSeeingSessions(true);
                    },
                  }),
              signOut: () => void leave(),
            }}
          />
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
      <Chunked what="This dialog" fallback={null}>
        {changingPassword ? (
          <ChangePasswordDialog open setOpen={setChangingPassword} email={user.email} />
        ) : null}
        {addingFactor ? <AuthenticatorDialog open setOpen={setAddingFactor} /> : null}
        {seeingSessions ? <SessionsDialog open setOpen={setSeeingSessions} /> : null}
      </Chunked>
      {children}
    </>
  );
}

/**
 * The person's menu in the header. Its button shows at once; the menu's chunk loads when the person moves to the
 * button (a pointer over it, the focus), or a few seconds after the page has come, and the button then becomes the
 * menu's, drawn alike. Chosen before that (pressed, as Radix's menu opens, or Enter, Space or the down arrow), the
 * button opens the menu as it comes; the focus stays on the button meanwhile, and goes where the open menu puts it.
 * Loaded while the page still builds, the menu would take the phone's CPU from the page's first paint.
 */
function PersonMenu({
  user,
  role,
  personal,
  actions,
  keepFocus,
}: {
  user: { name: string; email: string };
  role: ReactNode;
  personal: readonly ShellSection[];
  actions: AccountMenuActions;
  keepFocus: boolean;
}) {
  const [menu, setMenu] = useState<'button' | 'loaded' | 'open'>('button');
  const chosen = useRef(false);
  const focused = useRef(false);
  const mounted = useRef(true);
  const prepare = useCallback(() => {
    loadAccountMenu().then(
      () => {
        if (mounted.current)
          setMenu((shown) => (shown !== 'button' ? shown : chosen.current ? 'open' : 'loaded'));
      },
      // Its chunk did not come (the page was left while it loaded, the network failed): the button stays, and
      // loads it again when the person comes to it.
      () => undefined,
    );
  }, []);
  useEffect(() => {
    mounted.current = true;
    // Unasked, once the page has long come and the browser has nothing else to do.
    let idle: number | undefined;
    const later = window.setTimeout(() => {
      idle = typeof requestIdleCallback === 'function' ? requestIdleCallback(prepare) : undefined;
      if (idle === undefined) prepare();
    }, 5000);
    return () => {
      mounted.current = false;
      window.clearTimeout(later);
      if (idle !== undefined) cancelIdleCallback(idle);
    };
  }, [prepare]);
  const choose = () => {
    chosen.current = true;
    prepare();
  };
  const placeholder = (
    <AccountMenuButton
      user={user}
      type="button"
      aria-haspopup="menu"
      aria-expanded={false}
      onPointerEnter={prepare}
      onPointerDown={(event) => {
        // As Radix's menu does, which opens on the press of the main button.
        if (event.button === 0 && !event.ctrlKey) choose();
        else prepare();
      }}
      onFocus={() => {
        focused.current = true;
        prepare();
      }}
      onBlur={() => {
        focused.current = false;
      }}
      onClick={choose}
      onKeyDown={(event) => {
        if (event.key === 'ArrowDown') {
          event.preventDefault();
          choose();
        }
      }}
    />
  );
  if (menu === 'button' || accountMenu === undefined) return placeholder;
  const { default: Menu } = accountMenu;
  return (
    <Menu
      user={user}
      role={role}
      personal={personal}
      actions={actions}
      defaultOpen={menu === 'open'}
      keepFocus={keepFocus}
      focusTrigger={focused.current && menu === 'loaded'}
    />
  );
}
