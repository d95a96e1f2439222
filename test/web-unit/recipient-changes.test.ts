import { describe, expect, it } from 'vitest';
import { changedPaths } from '../../web/recipient/form/changes.ts';

describe('changedPaths', () => {
  it('names the answers that differ, object by object down to the answers', () => {
    expect(
      changedPaths(
        { name: 'Ada', address: { city: 'Paris', street: '1 Rue' } },
        { name: 'Ada', address: { city: 'London', street: '1 Rue' } },
      ),
    ).toEqual(new Set(['address.city']));
  });

  it('counts a list as one answer, and an answer added or left out as changed', () => {
    expect(changedPaths({ owners: ['a', 'b'], phone: '1' }, { owners: ['a', 'c'], email: 'x' })).toEqual(
      new Set(['owners', 'phone', 'email']),
    );
  });

  it('compares an object answered on one side only with an empty one, field by field', () => {
    expect(changedPaths({}, { address: { city: 'Paris' } })).toEqual(new Set(['address.city']));
    expect(changedPaths({ address: 'Paris' }, { address: { city: 'Paris' } })).toEqual(
      new Set(['address', 'address.city']),
    );
  });

  it('marks an amount of money as one answer, changed when its currency or amount is', () => {
    const before = { amount: { currency: 'USD', amount: 500_000 }, name: 'Ada' };
    expect(
      changedPaths(before, { ...before, amount: { currency: 'USD', amount: 750_000 } }, ['amount']),
    ).toEqual(new Set(['amount']));
    expect(
      changedPaths(before, { ...before, amount: { currency: 'EUR', amount: 500_000 } }, ['amount']),
    ).toEqual(new Set(['amount']));
    expect(changedPaths(before, { ...before }, ['amount'])).toEqual(new Set());
    expect(changedPaths(before, { name: 'Ada' }, ['amount'])).toEqual(new Set(['amount']));
  });

  it('names nothing when there was no earlier submission, or nothing changed', () => {
    expect(changedPaths(null, { name: 'Ada' })).toEqual(new Set());
    expect(changedPaths({ name: 'Ada', empty: undefined }, { name: 'Ada' })).toEqual(new Set());
  });
});
