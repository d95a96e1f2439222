// What starts every page: its style sheets, Radix Themes' theme as every page of Portico wears it, and React
// rendering into the page's element.
import './theme.css';
import './base.css';
import { Theme } from '@radix-ui/themes';
import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { useAppearance } from './appearance.ts';

/** Portico's theme: indigo on slate, light or dark as the device is set. */
function PorticoTheme({ children }: { children: ReactNode }) {
  return (
    <Theme appearance={useAppearance()} accentColor="indigo" grayColor="slate" radius="medium" hasBackground>
      {children}
    </Theme>
  );
}

/** Renders `page` into the page's element `#<id>` (which index.html has), in strict mode. */
export function mount(id: string, page: ReactNode): void {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id} element`);
  createRoot(element).render(<StrictMode>{page}</StrictMode>);
}

/** Renders `page` into `#<id>`, in Portico's theme. */
export function mountThemed(id: string, page: ReactNode): void {
  mount(id, <PorticoTheme>{page}</PorticoTheme>);
}
