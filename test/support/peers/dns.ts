import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupAll, LookupFn } from '../../../src/webhooks/address-safety.ts';

/** A resolver for `checkDestination` that knows only the names it is given. */
export function fakeLookupAll(table: Record<string, string[]>): LookupAll {
  return (hostname) => {
    const addresses = table[hostname];
    if (!addresses)
      return Promise.reject(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
      );
    return Promise.resolve(addresses.map((address) => ({ address, family: isIP(address) })));
  };
}

/** The same, shaped like `dns.lookup` for the dispatcher; it records the names it was asked for. */
export function fakeLookup(table: Record<string, string[]>, asked: string[] = []): LookupFn {
  return (hostname, options, callback) => {
    asked.push(hostname);
    const found: LookupAddress[] = (table[hostname] ?? []).map((address) => ({
      address,
      family: isIP(address),
    }));
    const first = found[0];
    if (!first) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
    } else if (options.all) {
      callback(null, found);
    } else {
      callback(null, first.address, first.family);
    }
  };
}
