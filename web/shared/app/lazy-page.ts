import { createElement, useState, type ComponentType } from 'react';
import { lazyChunk } from './chunk.tsx';
import type { PageLoader } from './early-reads.ts';

/**
 * A page in a chunk of its own (`pick` finds it in the chunk's module), as `lazyChunk` makes one, but rendered at once
 * when its chunk has already come (`pageLoader`): the app rendering over a page drawn on the server then keeps its
 * words on screen, where `lazyChunk` would first show the route's "Loading" in their place. Each instance chooses
 * once, so the page is never mounted twice.
 *
 * @example
 * const TransactionPage = lazyPage(loadTransactionPage, (module) => module.default);
 */
export function lazyPage<Module, Props extends object>(
  load: PageLoader<Module>,
  pick: (module: Module) => ComponentType<Props>,
): ComponentType<Props> {
  const Lazy = lazyChunk(async () => ({ default: pick(await load()) }));
  return function Page(props: Props) {
    const [loaded] = useState(() => (load.loaded === undefined ? undefined : pick(load.loaded)));
    return loaded ? createElement(loaded, props) : createElement(Lazy, props);
  };
}
