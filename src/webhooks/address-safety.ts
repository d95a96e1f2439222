import { lookup as dnsLookupAll } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError, hostDoesNotResolve, quote } from '../errors.ts';

/**
 * Outbound address safety for webhooks (SSRF protection): an endpoint URL is a request our servers make on an
 * integrator's behalf, so it must never reach our own network — loopback, private ranges, link-local (where
 * cloud metadata services answer), and the like. Checked twice: when a URL is saved (`checkDestination`, so the
 * integrator hears why at once) and when connecting (`safeDispatcher`, because what a name resolves to can
 * change in between: DNS rebinding; see `safe-dispatcher.ts`, which alone loads undici).
 */

/** Resolves a host name to all its addresses (A and AAAA), as `dns.promises.lookup(name, { all: true })`. */
export type LookupAll = (hostname: string) => Promise<readonly LookupAddress[]>;

/** A `dns.lookup`-compatible resolver, as `net.connect` and `tls.connect` take it in their `lookup` option. */
export type LookupFn = LookupFunction;

/** The `code` of the error the dispatcher's lookup fails with when a name has no allowed address. */
export const FORBIDDEN_ADDRESS_CODE = 'EFORBIDDEN_ADDRESS';

// ipaddr.js names the special-purpose ranges of IANA's IPv4 and IPv6 registries; an address outside all of
// them is 'unicast'. Some of those ranges are globally reachable (AS112, AMT, ORCHIDv2), but no webhook
// receiver lives there, so anything but 'unicast' is refused: when in doubt, do not connect.
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
// The well-known NAT64 prefix: a translator forwards to the IPv4 address in the last 32 bits. Its neighbour
// 64:ff9b:1::/48 (local-use translation, RFC 8215) is a network's own and is refused with the rest.
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function isForbiddenIPv4(address: ipaddr.IPv4): boolean {
  return address.range() !== 'unicast';
}

/** The IPv4 address in the 32 bits of `parts` from the 16-bit group at `from`. */
function ipv4At(parts: readonly number[], from: number): ipaddr.IPv4 {
  const high = parts[from] ?? 0;
  const low = parts[from + 1] ?? 0;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function isForbiddenIPv6(address: ipaddr.IPv6): boolean {
  const range: string = address.range();
  // ::ffff:0:0/96, IPv4-mapped: the connection goes to the embedded IPv4 address.
  if (range === 'ipv4Mapped') return isForbiddenIPv4(address.toIPv4Address());
  // 64:ff9b::/96 (NAT64) goes to its embedded IPv4 address; 64:ff9b:1::/48 is refused whatever it holds.
  if (range === 'rfc6052') {
    return !address.match(NAT64_WELL_KNOWN) || isForbiddenIPv4(ipv4At(address.parts, 6));
  }
  // 2002::/16, 6to4: a relay forwards to the IPv4 address in bits 16-48.
  if (range === '6to4') return isForbiddenIPv4(ipv4At(address.parts, 1));
  // Outside 2000::/3 nothing is allocated for global unicast: ::/96 (with :: and ::1), 100::/64 (discard),
  // 5f00::/16 (SRv6), unique local, link-local, site-local, multicast. Teredo (2001::/32), benchmarking,
  // documentation and the rest of 2001::/23 are special ranges of their own, so not 'unicast' either.
  return range !== 'unicast' || !address.match(IPV6_GLOBAL_UNICAST);
}

/**
 * Whether an IP address (v4, v6, or IPv4-mapped v6 like ::ffff:10.0.0.1) is one webhooks must never reach:
 * anything IANA's special-purpose address registries list, or that is not allocated for global unicast.
 * Anything that is not an IP address counts as forbidden: when in doubt, do not connect.
 */
export function isForbiddenAddress(address: string): boolean {
  let text = address.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  // isIP first: ipaddr.js also reads forms such as 0x7f.1 or 127.1, which no resolver or URL hands us.
  const version = isIP(text);
  if (version === 4) return isForbiddenIPv4(ipaddr.IPv4.parse(text));
  if (version !== 6) return true;
  // A zone (`fe80::1%eth0`) only names the interface; the address is what counts.
  const bare = text.split('%')[0] ?? text;
  // `::` followed by one group or a dotted IPv4 address lies in ::/96 (IPv4-compatible, deprecated), which is
  // never global; and ipaddr.js would read `::10.0.0.1` as the IPv4-mapped `::ffff:10.0.0.1`.
  if (bare.startsWith('::') && !bare.slice(2).includes(':')) return true;
  try {
    return isForbiddenIPv6(ipaddr.IPv6.parse(bare));
  } catch {
    // isIP accepted it, so ipaddr.js should too; if not, refuse rather than throw inside a resolver callback.
    return true;
  }
}

/** A host name as messages show it: quoted, and cut short if it is long (URLs do not bound it). */
function shownHost(host: string): string {
  return quote(host, 100);
}

function refusal(host: string, address: string): string {
  const which = host === address ? host : `${shownHost(host)} (${address})`;
  return (
    `Webhooks may not be sent to ${which}: it is not a public address ` +
    '(private, loopback, link-local, reserved or special-purpose).'
  );
}

const defaultLookupAll: LookupAll = (hostname) => dnsLookupAll(hostname, { all: true });

/**
 * Resolves a URL's host (all A and AAAA records; an IP literal as is) and throws AppError('BAD_USER_INPUT',
 * message naming the host and the address, { field: 'url' }) if any address is forbidden or the name does not
 * resolve. With allowPrivate, nothing is forbidden (development and tests), and the name is not resolved at
 * all: loopback and made-up names are what those settings register.
 */
export async function checkDestination(
  url: URL,
  options: { allowPrivate: boolean; lookup?: LookupAll },
): Promise<void> {
  if (options.allowPrivate) return;
  // URL keeps the brackets of an IPv6 literal; and it has already normalised IPv4 forms such as 0x7f.1.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0) {
    if (isForbiddenAddress(host)) throw new AppError('BAD_USER_INPUT', refusal(host, host), { field: 'url' });
    return;
  }
  let addresses: readonly LookupAddress[];
  try {
    addresses = await (options.lookup ?? defaultLookupAll)(host);
  } catch (error) {
    throw hostDoesNotResolve(shownHost(host), error);
  }
  if (addresses.length === 0) throw hostDoesNotResolve(shownHost(host));
  // Every address, not just the first: a connection may go to any of them.
  const forbidden = addresses.find(({ address }) => isForbiddenAddress(address));
  if (forbidden) {
    throw new AppError('BAD_USER_INPUT', refusal(host, forbidden.address), { field: 'url' });
  }
}

/** The error a connection to a forbidden address fails with, naming the host and what it resolved to. */
export function forbiddenAddressError(host: string, addresses: readonly string[]): NodeJS.ErrnoException {
  const which = addresses.length === 1 && addresses[0] === host ? host : `${host} (${addresses.join(', ')})`;
  const error: NodeJS.ErrnoException = new Error(
    `Refused to connect to ${which}: ` +
      'webhooks may not reach private, loopback, link-local or reserved addresses.',
  );
  error.code = FORBIDDEN_ADDRESS_CODE;
  return error;
}
