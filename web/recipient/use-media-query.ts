import { useEffect, useState } from 'react';

/** Whether the media query matches, following changes (a phone turned, a window resized). */
export function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const follow = () => {
      setMatches(list.matches);
    };
    follow();
    list.addEventListener('change', follow);
    return () => {
      list.removeEventListener('change', follow);
    };
  }, [query]);
  return matches;
}
