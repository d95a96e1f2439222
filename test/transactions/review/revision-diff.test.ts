// What changed between two revisions of a process, field by field (src/transactions/review/revision-diff.ts).
import { describe, expect, it } from 'vitest';
import { diffRevisions } from '../../../src/transactions/review/revision-diff.ts';

describe('the changes between two revisions', () => {
  it('names each field changed, added or removed, item by item in the later revision’s order', () => {
    const before = [
      { vulcanKey: 'investor', data: { name: 'Ada', city: 'London', phone: '1' } },
      { vulcanKey: 'amount', data: { value: 100 } },
    ];
    const after = [
      { vulcanKey: 'amount', data: { value: 200 } },
      { vulcanKey: 'investor', data: { name: 'Ada', city: 'Paris', email: 'ada@example.com', phone: '' } },
    ];
    expect(diffRevisions(before, after)).toEqual([
      { vulcanKey: 'amount', field: 'value', change: 'changed', before: 100, after: 200 },
      { vulcanKey: 'investor', field: 'city', change: 'changed', before: 'London', after: 'Paris' },
      { vulcanKey: 'investor', field: 'email', change: 'added', before: undefined, after: 'ada@example.com' },
      { vulcanKey: 'investor', field: 'phone', change: 'removed', before: '1', after: '' },
    ]);
  });

  it('sees no change in an object written with its keys in another order, nor between empty and absent', () => {
    const before = [
      { vulcanKey: 'a', data: { money: { currency: 'USD', amount: 5 }, note: null, list: [1, 2] } },
    ];
    const after = [{ vulcanKey: 'a', data: { money: { amount: 5, currency: 'USD' }, list: [1, 2] } }];
    expect(diffRevisions(before, after)).toEqual([]);
  });

  it('reads a list in another order, or an item only one side has, as a change', () => {
    expect(
      diffRevisions(
        [{ vulcanKey: 'a', data: { list: [1, 2] } }],
        [{ vulcanKey: 'a', data: { list: [2, 1] } }],
      ),
    ).toEqual([{ vulcanKey: 'a', field: 'list', change: 'changed', before: [1, 2], after: [2, 1] }]);
    expect(diffRevisions([], [{ vulcanKey: 'b', data: { x: true } }])).toEqual([
      { vulcanKey: 'b', field: 'x', change: 'added', before: undefined, after: true },
    ]);
  });
});
