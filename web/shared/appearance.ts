import { useEffect, useState } from 'react';

const darkScheme = window.matchMedia('(prefers-color-scheme: dark)');

/** Light or dark, as the device is set, following a change while the page is open. */
export function useAppearance(): 'light' | 'dark' {
  const [dark, setDark] = useState(darkScheme.matches);
  useEffect(() => {
    const follow = (event: MediaQueryListEvent) => {
      setDark(event.matches);
    };
    darkScheme.addEventListener('change', follow);
    return () => {
      darkScheme.removeEventListener('change', follow);
    };
  }, []);
  return dark ? 'dark' : 'light';
}
