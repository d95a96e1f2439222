import { describe, expect, it } from 'vitest';
import {
  acceptAttribute,
  claimedKind,
  formatBytes,
  kindOf,
  listKinds,
  roleName,
} from '../../web/recipient/format.ts';

describe('formatBytes', () => {
  it('counts bytes, then binary kilobytes and megabytes, a tenth below 10 MB', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(840)).toBe('840 bytes');
    expect(formatBytes(312 * 1024)).toBe('312 KB');
    expect(formatBytes(2.4 * 1024 * 1024)).toMatch(/^2[.,]4 MB$/);
    expect(formatBytes(31 * 1024 * 1024)).toBe('31 MB');
  });
});

describe('kinds of files', () => {
  it('names the usual types, and others by their subtype in capitals', () => {
    expect(kindOf('application/pdf')).toBe('PDF');
    expect(kindOf('IMAGE/JPEG')).toBe('JPEG');
    expect(kindOf('image/x-foo')).toBe('X-FOO');
  });

  it('lists kinds once each, the last after "or"', () => {
    expect(listKinds([])).toBe('file');
    expect(listKinds(['application/pdf'])).toBe('PDF');
    expect(listKinds(['application/pdf', 'image/png', 'image/jpeg', 'image/png'])).toBe('PDF, PNG or JPEG');
  });

  it('accepts the types and their usual name endings in a file chooser', () => {
    expect(acceptAttribute(['application/pdf', 'image/jpeg'])).toBe(
      'application/pdf,image/jpeg,.pdf,.jpg,.jpeg',
    );
  });

  it('tells the kind a file name claims among the accepted types, if it claims one', () => {
    expect(claimedKind('W9.PDF', ['application/pdf', 'image/png'])).toBe('PDF');
    expect(claimedKind('scan.jpeg', ['application/pdf'])).toBeUndefined();
    expect(claimedKind('README', ['application/pdf'])).toBeUndefined();
  });
});

describe('roleName', () => {
  it('writes a template role as a capitalised word', () => {
    expect(roleName('investor')).toBe('Investor');
    expect(roleName('co_signer')).toBe('Co signer');
    expect(roleName('general-partner')).toBe('General partner');
  });
});
