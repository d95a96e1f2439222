// The floor of `npm run bench:pages`: the least a page on our stack can be, a Vite + React + Radix Themes page
// set up as Radix's guide says (its whole styles.css, from floor.css), showing a card with a heading, a line and a button, like
// a sign-in page without its form. Written without JSX, so that the root tsconfig checks it as it is.
import { Button, Card, Flex, Heading, Text, Theme } from '@radix-ui/themes';
import { createElement as h, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

const element = document.getElementById('floor');
if (!element) throw new Error('the page has no #floor element');
createRoot(element).render(
  h(
    StrictMode,
    null,
    h(
      Theme,
      { accentColor: 'indigo', grayColor: 'slate' },
      h(
        Flex,
        { justify: 'center', p: '4' },
        h(
          Card,
          { size: '3', style: { maxWidth: 400 } },
          h(Heading, { as: 'h1', size: '6', mb: '2' }, 'Sign in to Portico'),
          h(
            Text,
            { as: 'p', color: 'gray', mb: '4' },
            'The floor page: a bare Vite + React + Radix Themes page.',
          ),
          h(Button, { size: '3' }, 'Continue'),
        ),
      ),
    ),
  ),
);
