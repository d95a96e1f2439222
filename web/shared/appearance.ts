import { useEffect, useState } from 'react';

/** The device's dark scheme, asked when first needed: a page drawn on the server has no device to ask. */
let darkScheme: MediaQueryList | undefined;
const darkSchemeOf = () => (darkScheme ??= window.matchMedia('(prefers-color-scheme: dark)'));

/**
 * Light or dark, as the device is set, following a change while the page is open. `drawn`: the appearance a page
 * drawn on the server was drawn in (the reader's browser told it), for a render where there is no device.
 */
export function useAppearance(drawn?: 'light' | 'dark'): 'light' | 'dark' {
  const [dark, setDark] = useState(() =>
    typeof window === 'undefined' ? drawn === 'dark' : darkSchemeOf().matches,
  );
  useEffect(() => {
    const scheme = darkSchemeOf();
    const follow = (event: MediaQueryListEvent) => {
      setDark(event.matches);
    };
    scheme.addEventListener('change', follow);
    return () => {
      scheme.removeEventListener('change', follow);
    };
  }, []);
  return dark ? 'dark' : 'light';
}
