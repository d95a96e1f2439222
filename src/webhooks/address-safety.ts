import { lookup as dnsLookup } from 'node:dns';
import { lookup as dnsLookupAll } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { AppError } from '../errors.ts';

/**
 * Outbound address safety for webhooks (SSRF protection): an endpoint URL is a request our servers make on an
 * integrator's behalf, so it must never reach our own network — loopback, private ranges, link-local (where
 * cloud metadata services answer), and the like. Checked twice: when a URL is saved (`checkDestination`, so the
 * integrator hears why at once) and when connecting (`safeDispatcher`, because what a name resolves to can
 * change in between: DNS rebinding).
 */

/** Resolves a host name to all its addresses (A and AAAA), as `dns.promises.lookup(name, { all: true })`. */
export type LookupAll = (hostname: string) => Promise<readonly LookupAddress[]>;

/** A `dns.lookup`-compatible resolver, as `net.connect` and `tls.connect` take it in their `lookup` option. */
export type LookupFn = LookupFunction;

/** The `code` of the error the dispatcher's lookup fails with when a name has no allowed address. */
export const FORBIDDEN_ADDRESS_CODE = 'EFORBIDDEN_ADDRESS';

const IPV4_FORBIDDEN: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host on most systems
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, where cloud metadata (169.254.169.254) answers
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast within it
];

const IPV6_FORBIDDEN: readonly (readonly [string, number])[] = [
  ['fc00::', 7], // unique local, where AWS metadata (fd00:ec2::254) answers
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local: deprecated, but still routed locally by some stacks
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
];

const ipv4BlockList = new BlockList();
for (const [network, prefix] of IPV4_FORBIDDEN) ipv4BlockList.addSubnet(network, prefix, 'ipv4');
const ipv6BlockList = new BlockList();
for (const [network, prefix] of IPV6_FORBIDDEN) ipv6BlockList.addSubnet(network, prefix, 'ipv6');

/** The eight 16-bit groups of a valid IPv6 address (zone already removed), dotted IPv4 tails included. */
function ipv6Groups(address: string): number[] {
  let text = address;
  const tailStart = text.lastIndexOf(':') + 1;
  const tail = text.slice(tailStart);
  if (tail.includes('.')) {
    // `::ffff:10.0.0.1` → `::ffff:a00:1`
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, tailStart)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const [head = '', rest] = text.split('::');
  if (rest === undefined) return parse(head);
  const before = parse(head);
  const after = parse(rest);
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function embeddedIPv4(groups: readonly number[]): string {
  const high = groups[6] ?? 0;
  const low = groups[7] ?? 0;
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * Whether an IP address (v4, v6, or IPv4-mapped v6 like ::ffff:10.0.0.1) is one webhooks must never reach.
 * Anything that is not an IP address counts as forbidden: when in doubt, do not connect.
 */
export function isForbiddenAddress(address: string): boolean {
  const trimmed = address.trim().replace(/^\[(.*)\]$/, '$1');
  const version = isIP(trimmed);
  if (version === 4) return ipv4BlockList.check(trimmed, 'ipv4');
  if (version !== 6) return true;
  // A zone (`fe80::1%eth0`) only names the interface; the address is what counts.
  const bare = trimmed.split('%')[0] ?? trimmed;
  const groups = ipv6Groups(bare.toLowerCase());
  const [g0, g1, g2, g3, g4, g5] = groups;
  const highZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  // ::ffff:0:0/96, IPv4-mapped: the connection goes to the embedded IPv4 address.
  if (highZero && g5 === 0xffff) return isForbiddenAddress(embeddedIPv4(groups));
  // ::/96, IPv4-compatible (deprecated), which holds :: and ::1 too.
  if (highZero && g5 === 0) return true;
  // 64:ff9b::/96, NAT64: a translator on our network forwards to the embedded IPv4 address.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return isForbiddenAddress(embeddedIPv4(groups));
  }
  // 2002::/16, 6to4: a relay forwards to the IPv4 address in bits 16-48.
  if (g0 === 0x2002) return isForbiddenAddress(embeddedIPv4([0, 0, 0, 0, 0, 0, g1 ?? 0, g2 ?? 0]));
  return ipv6BlockList.check(bare, 'ipv6');
}

function refusal(host: string, address: string): string {
  const which = host === address ? host : `${host} (${address})`;
  return `Webhooks may not be sent to ${which}: it is a private, loopback, link-local or reserved address.`;
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
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    if (isForbiddenAddress(host)) throw new AppError('BAD_USER_INPUT', refusal(host, host), { field: 'url' });
    return;
  }
  let addresses: readonly LookupAddress[];
  try {
    addresses = await (options.lookup ?? defaultLookupAll)(host);
  } catch (error) {
    throw new AppError(
      'BAD_USER_INPUT',
      `The webhook host ${host} does not resolve.`,
      { field: 'url' },
      {
        cause: error,
      },
    );
  }
  if (addresses.length === 0) {
    throw new AppError('BAD_USER_INPUT', `The webhook host ${host} does not resolve.`, { field: 'url' });
  }
  // Every address, not just the first: a connection may go to any of them.
  const forbidden = addresses.find(({ address }) => isForbiddenAddress(address));
  if (forbidden) {
    throw new AppError('BAD_USER_INPUT', refusal(host, forbidden.address), { field: 'url' });
  }
}

function forbiddenAddressError(host: string, addresses: readonly string[]): NodeJS.ErrnoException {
  const which = addresses.length === 1 && addresses[0] === host ? host : `${host} (${addresses.join(', ')})`;
  const error: NodeJS.ErrnoException = new Error(
    `Refused to connect to ${which}: ` +
      'webhooks may not reach private, loopback, link-local or reserved addresses.',
  );
  error.code = FORBIDDEN_ADDRESS_CODE;
  return error;
}

/** Wraps a resolver so that it only ever answers with allowed addresses, and fails when there is none. */
function allowedOnly(lookup: LookupFn): LookupFn {
  return (hostname, options, callback) => {
    // Ask for every address, whatever the caller wants, so that a forbidden first one does not hide the rest.
    lookup(hostname, { ...options, all: true }, (error, result, family) => {
      if (error) {
        callback(error, options.all ? [] : '');
        return;
      }
      const found: LookupAddress[] =
        typeof result === 'string' ? [{ address: result, family: family ?? isIP(result) }] : result;
      const allowed = found.filter(({ address }) => !isForbiddenAddress(address));
      const first = allowed[0];
      if (!first) {
        callback(
          forbiddenAddressError(
            hostname,
            found.map(({ address }) => address),
          ),
          options.all ? [] : '',
        );
      } else if (options.all) {
        callback(null, allowed);
      } else {
        callback(null, first.address, first.family);
      }
    });
  };
}

/**
 * An undici dispatcher whose connections only go to allowed addresses: its connect-time DNS lookup drops
 * forbidden addresses and fails when none is left, so a name that resolved to a public address at save time
 * and to a private one at send time (DNS rebinding) is refused at send. With allowPrivate it is a plain Agent.
 * Redirects are never followed (undici's request does not follow them anyway).
 *
 * The connection attempt fails with an error whose `code` is `EFORBIDDEN_ADDRESS` and whose message names the
 * host and its addresses; undici's `request` rejects with that very error.
 */
export function safeDispatcher(options: { allowPrivate: boolean; lookup?: LookupFn }): Dispatcher {
  const lookup = options.lookup ?? dnsLookup;
  if (options.allowPrivate) return new Agent(options.lookup ? { connect: { lookup } } : {});
  const connect = buildConnector({ lookup: allowedOnly(lookup) });
  return new Agent({
    connect(connectOptions, callback) {
      // net.connect skips the lookup for an IP literal, so an address in the URL itself is checked here.
      const host = connectOptions.hostname;
      if (isIP(host) !== 0 && isForbiddenAddress(host)) {
        callback(forbiddenAddressError(host, [host]), null);
        return;
      }
      connect(connectOptions, callback);
    },
  });
}
