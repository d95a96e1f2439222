import { ExclamationTriangleIcon, ReloadIcon } from '@radix-ui/react-icons';
import { Button, Callout, Flex } from '@radix-ui/themes';
// The one place that uses React's own `lazy` and `Suspense` (eslint.config.js): the rest of the pages load their
// chunks through this module.
// eslint-disable-next-line no-restricted-imports
import { Component, lazy, Suspense, type ComponentType, type ReactNode } from 'react';

/** A chunk's load that failed: what {@link Chunked} says did not load, rather than a fault of the page's own. */
class ChunkNotLoaded extends Error {
  override name = 'ChunkNotLoaded';
}

/** How each component whose chunk did not come is made anew, so that its next render loads it again. */
const failed = new Set<() => void>();

/**
 * A component in a chunk of its own, as React's `lazy` makes one, but whose chunk, when it did not come (the
 * network dropped it, the person left the page while it loaded, Portico was updated since the page came), is
 * loaded again when {@link Chunked}'s "Try again" is pressed: `lazy` would keep the failure for good. The browser
 * fetches a module that failed again when it is imported again.
 *
 * @example
 * const TeamPage = lazyChunk(async () => ({ default: (await import('./pages/team.tsx')).TeamPage }));
 */
export function lazyChunk<Props extends object>(
  load: () => Promise<{ default: ComponentType<Props> }>,
): ComponentType<Props> {
  const make = () =>
    lazy(() =>
      load().catch((error: unknown) => {
        failed.add(makeAgain);
        throw new ChunkNotLoaded('a chunk of the page did not load', { cause: error });
      }),
    );
  // One per component, so that a chunk that failed twice before "Try again" is made anew once.
  const makeAgain = () => {
    Current = make();
  };
  let Current = make();
  return function Chunk(props: Props) {
    return <Current {...props} />;
  };
}

/** Makes every component whose chunk did not come anew: their next render loads it again. */
function loadFailedAgain() {
  for (const again of failed) again();
  failed.clear();
}

interface BoundaryProps {
  /** What did not load, as the message says it: "This page", "The drawing of the workflow". */
  what: string;
  children: ReactNode;
}

/**
 * Says that a chunk under it did not come, in place of what it would have shown, with "Try again" (which loads
 * it again) and "Reload the page" (for a Portico updated since the page came, whose old chunks are gone). Any other
 * error goes on to the boundary above, as it came.
 */
class ChunkBoundary extends Component<BoundaryProps, { error?: Error }> {
  override state: { error?: Error } = {};

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error), { cause: error }) };
  }

  override render() {
    const { error } = this.state;
    if (error === undefined) return this.props.children;
    if (!(error instanceof ChunkNotLoaded)) throw error;
    return (
      <Callout.Root color="red" role="alert" className="chunk-not-loaded">
        <Callout.Icon>
          <ExclamationTriangleIcon />
        </Callout.Icon>
        <Callout.Text>
          {this.props.what} did not load: the connection may have dropped, or Portico was updated since this
          page opened.
        </Callout.Text>
        <Flex gap="2" wrap="wrap">
          <Button
            size="1"
            onClick={() => {
              loadFailedAgain();
              this.setState({ error: undefined });
            }}
          >
            <ReloadIcon aria-hidden /> Try again
          </Button>
          <Button
            size="1"
            variant="soft"
            color="gray"
            onClick={() => {
              window.location.reload();
            }}
          >
            Reload the page
          </Button>
        </Flex>
      </Callout.Root>
    );
  }
}

/**
 * Where components of {@link lazyChunk} render: `fallback` while their chunk comes, then them; or, when it did not
 * come, a message saying `what` did not load, with "Try again", in their place alone. The rest of the page stays,
 * and nothing is left as an uncaught error.
 *
 * @example
 * <Chunked what="This page" fallback={<Loading />}><TeamPage /></Chunked>
 */
export function Chunked({ what, fallback, children }: BoundaryProps & { fallback: ReactNode }) {
  return (
    <Suspense fallback={fallback}>
      <ChunkBoundary what={what}>{children}</ChunkBoundary>
    </Suspense>
  );
}
