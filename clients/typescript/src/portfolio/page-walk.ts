/** One page of a list, as the Portfolio API answers it. */
export interface Page<Item> {
  /** The records of this page, in the list's order. */
  data: Item[];
  /** How many records the whole walk covers (the same on every page of one walk). */
  total: number;
  /** Whether another page follows. */
  hasNextPage: boolean;
  /** Pass it as `cursor` to read the next page; null on the last page. */
  nextCursor: string | null;
}

/**
 * A walk through a list: iterate it for every record (`for await (const company of walk)`), or its `pages()` for
 * page after page. Nothing is fetched until it is iterated, and each iteration walks again from the start (or
 * from the cursor it was given).
 */
export class PageWalk<Item> implements AsyncIterable<Item> {
  readonly #readPage: (cursor: string | null) => Promise<Page<Item>>;
  readonly #startCursor: string | null;

  /** @param readPage reads the page at `cursor` (null: the first page). */
  constructor(readPage: (cursor: string | null) => Promise<Page<Item>>, startCursor: string | null = null) {
    this.#readPage = readPage;
    this.#startCursor = startCursor;
  }

  /**
   * Every page of the walk, following `nextCursor` until a page has none.
   *
   * @example
   * for await (const page of client.companies.list({ limit: 200 }).pages()) {
   *   await store(page.data);
   *   await saveCursor(page.nextCursor); // resume from here with list({ cursor })
   * }
   */
  async *pages(): AsyncGenerator<Page<Item>, void, undefined> {
    let cursor = this.#startCursor;
    do {
      const page = await this.#readPage(cursor);
      yield page;
      cursor = page.nextCursor;
    } while (cursor !== null);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }
}
