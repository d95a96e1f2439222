// The frame of every page of the portal: who asks what (the organization, the template, the recipient), the
// steps, the page, and until when the link works.

import { Flex, Link as ThemeLink, Text } from '@radix-ui/themes';
import { useEffect, type ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { SiteHeader } from '../../shared/site-header.tsx';
import { formatDate } from '../format.ts';
import { usePortal } from '../portal-state.tsx';
import { allSubmitted } from '../steps.ts';
import { StepNav } from './step-nav.tsx';
import { ESIGN_PAGE } from './esign-disclosure.tsx';

/** `, until 22 February 2027` (links that never expire say nothing). */
const until = (expiresAt: string) =>
  new Date(expiresAt).getFullYear() < 9999 ? `, until ${formatDate(expiresAt)}` : '';

export function PortalLayout({ children }: { children: ReactNode }) {
  const { view, href } = usePortal();
  const { pathname } = useLocation();
  // A new step starts at its top, as a new page would.
  useEffect(() => {
    window.scrollTo({ top: 0 });
  }, [pathname]);
  return (
    <>
      <SiteHeader
        surface="portal"
        owner={view.organization.name}
        end={
          <Text size="2" color="gray" truncate className="hide-on-phone">
            {view.recipient.name || view.recipient.email}
          </Text>
        }
      />
      <div className="portal-body">
        <aside className="portal-aside" aria-label="What is asked of you">
          <Flex direction="column" gap="1" className="portal-intro">
            <Text size="2" color="gray">
              {view.organization.name} asks you to complete:
            </Text>
            <ThemeLink asChild size="4" weight="bold" highContrast underline="hover">
              <Link to={href()}>{view.template.name}</Link>
            </ThemeLink>
            <Text size="2" color="gray">
              For {view.recipient.name || view.recipient.email}
              {view.recipient.name && view.recipient.email ? ` (${view.recipient.email})` : ''}
            </Text>
          </Flex>
          <StepNav />
        </aside>
        <main id="main" className="portal-main">
          {children}
        </main>
      </div>
      <footer className="portal-footer">
        <Text as="p" size="1" color="gray">
          {allSubmitted(view)
            ? 'Keep the e-mail: its link shows this page'
            : 'Your answers are saved as you go. Come back with the link in your e-mail'}
          {until(view.link.expiresAt)}. Do not forward it: anyone with the link can act for you.
        </Text>
        <Text as="p" size="1">
          <ThemeLink asChild color="gray" underline="always">
            <Link to={href(ESIGN_PAGE)}>Electronic records: your agreement, or signing on paper</Link>
          </ThemeLink>
        </Text>
      </footer>
    </>
  );
}
