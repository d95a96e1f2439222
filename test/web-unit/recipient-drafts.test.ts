import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  forgetDrafts,
  keepDraft,
  plain,
  savableData,
  startingData,
  type DraftPlace,
} from '../../web/recipient/form/drafts.ts';

/** The browser's localStorage, in memory (the tests run under Node). */
class MemoryStorage {
  readonly #items = new Map<string, string>();
  get length() {
    return this.#items.size;
  }
  key(index: number) {
    return [...this.#items.keys()][index] ?? null;
  }
  getItem(key: string) {
    return this.#items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.#items.set(key, value);
  }
  removeItem(key: string) {
    this.#items.delete(key);
  }
}

const place: DraftPlace = {
  transactionId: 'tx-1',
  processKey: 'subscription',
  revision: 1,
  vulcanKey: 'kyc',
};

describe('plain', () => {
  it('leaves out empty answers, as JSON carries them, and makes anything else an empty object', () => {
    expect(plain({ name: 'Ada', phone: undefined })).toEqual({ name: 'Ada' });
    expect(plain(undefined)).toEqual({});
    expect(plain(['a'])).toEqual({});
  });
});

describe('savableData', () => {
  const schema = {
    type: 'object',
    required: ['name', 'phone'],
    properties: {
      name: { type: 'string' },
      phone: { type: 'string', pattern: '^[0-9]+$' },
      address: {
        type: 'object',
        required: ['city'],
        properties: { street: { type: 'string' }, city: { type: 'string' } },
      },
      owners: { type: 'array', items: { type: 'string', minLength: 2 } },
    },
  };

  it('saves partial answers: the top-level required fields may be missing', () => {
    expect(savableData(schema, { name: 'Ada' })).toEqual({ data: { name: 'Ada' }, held: [], blocked: false });
  });

  it('holds back an answer that breaks the schema, and an object left incomplete, and keeps the rest', () => {
    const saved = savableData(schema, { name: 'Ada', phone: 'x1', address: { street: '1 Rue' } });
    expect(saved.data).toEqual({ name: 'Ada' });
    expect(saved.held.sort()).toEqual(['address', 'phone']);
    expect(saved.blocked).toBe(false);
  });

  it('holds back a list whole rather than shift its items', () => {
    const saved = savableData(schema, { name: 'Ada', owners: ['Bob', 'C', 'Dee'] });
    expect(saved).toEqual({ data: { name: 'Ada' }, held: ['owners'], blocked: false });
  });

  it('is blocked when a rule of the whole item breaks', () => {
    const whole = { type: 'object', properties: { a: { type: 'string' } }, minProperties: 2 };
    expect(savableData(whole, { a: 'x' }).blocked).toBe(true);
  });
});

describe('drafts kept on this device', () => {
  beforeEach(() => {
    vi.stubGlobal('localStorage', new MemoryStorage());
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("starts from what this device kept while the server's answers are the ones it was typed over", () => {
    keepDraft(place, { name: 'Ada L', phone: 'x' }, { name: 'Ada' });
    expect(startingData(place, { name: 'Ada' })).toEqual({ name: 'Ada L', phone: 'x' });
  });

  it("starts from the server's answers once they changed on another device", () => {
    keepDraft(place, { name: 'Ada L' }, { name: 'Ada' });
    expect(startingData(place, { name: 'Grace' })).toEqual({ name: 'Grace' });
  });

  it('forgets a draft once the server has all of it', () => {
    keepDraft(place, { name: 'Ada L' }, { name: 'Ada' });
    keepDraft(place, { name: 'Ada L' }, { name: 'Ada L' });
    expect(localStorage.length).toBe(0);
  });

  it('forgets every draft of a submitted transaction, and only those', () => {
    keepDraft(place, { name: 'a' }, {});
    keepDraft({ ...place, vulcanKey: 'tax' }, { name: 'b' }, {});
    keepDraft({ ...place, transactionId: 'tx-2' }, { name: 'c' }, {});
    forgetDrafts('tx-1');
    expect(localStorage.length).toBe(1);
    expect(startingData({ ...place, transactionId: 'tx-2' }, {})).toEqual({ name: 'c' });
  });

  it('keeps nothing, silently, where storage is forbidden', () => {
    vi.stubGlobal('localStorage', {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    });
    expect(() => {
      keepDraft(place, { name: 'Ada' }, {});
    }).not.toThrow();
    expect(startingData(place, { name: 'server' })).toEqual({ name: 'server' });
  });
});
