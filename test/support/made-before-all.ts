/**
 * What a `use…` helper hands a test file before its `beforeAll` has made it: `made` stands in for the value,
 * and reading any field of it before `provide(value)` throws (saying that `what` is made in `beforeAll`), so a
 * field read at the top of a file fails loudly instead of reading undefined.
 *
 * @example
 * const { made, provide } = madeBeforeAll<{ db: Database }>('the database');
 * beforeAll(async () => provide({ db: (await createTestDatabase()).db }));
 * return made;
 */
export function madeBeforeAll<T extends object>(what: string): { made: T; provide: (value: T) => void } {
  let value: T | undefined;
  const made = new Proxy({} as T, {
    get(_target, field) {
      if (value === undefined)
        throw new Error(`${what} is made in beforeAll: read it inside tests and hooks`);
      return Reflect.get(value, field) as unknown;
    },
  });
  return {
    made,
    provide: (provided) => {
      value = provided;
    },
  };
}
