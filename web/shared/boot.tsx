// What starts every page: its style sheets, Radix Themes' theme as every page of Portico wears it, and React
// rendering into the page's element.
import './theme.css';
import './base.css';
import { Theme } from '@radix-ui/themes';
import { render, type ComponentChild } from 'preact';
import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { useAppearance } from './appearance.ts';

/**
 * Portico's theme: indigo on slate, light or dark as the device is set (`drawn`: as the reader's browser told the
 * server, where it draws the page).
 */
export function PorticoTheme({ drawn, children }: { drawn?: 'light' | 'dark'; children: ReactNode }) {
  return (
    <Theme
      appearance={useAppearance(drawn)}
      accentColor="indigo"
      grayColor="slate"
      radius="medium"
      hasBackground
    >
      {children}
    </Theme>
  );
}

/**
 * Renders `page` into the page's element `#<id>` (which index.html has), in strict mode. Over a page the server
 * drew (`data-drawn`), the render keeps the drawn elements where they match and corrects what differs: React's
 * `createRoot` would empty the element first, and its words would leave the screen until the render.
 */
export function mount(id: string, page: ReactNode): void {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id} element`);
  const tree = <StrictMode>{page}</StrictMode>;
  if (element.hasAttribute('data-drawn')) render(tree as ComponentChild, element);
  else createRoot(element).render(tree);
}

/** Renders `page` into `#<id>`, in Portico's theme. */
export function mountThemed(id: string, page: ReactNode): void {
  mount(id, <PorticoTheme>{page}</PorticoTheme>);
}
