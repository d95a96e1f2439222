import { Heading } from '@radix-ui/themes';
import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A page's one h1, and the document's title. It takes the focus when the page opens, so that a screen reader
 * announces the new page and the keyboard starts from it, as after a full page load.
 */
export function PageHeading({
  title,
  documentTitle,
  children,
}: {
  title: string;
  documentTitle?: string;
  children?: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${documentTitle ?? title} · Portico`;
  }, [title, documentTitle]);
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <Heading as="h1" size="7" ref={heading} tabIndex={-1} className="page-heading">
      {children ?? title}
    </Heading>
  );
}
