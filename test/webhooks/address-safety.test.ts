import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { checkDestination, isForbiddenAddress, type LookupAll } from '../../src/webhooks/address-safety.ts';
import { safeDispatcher } from '../../src/webhooks/safe-dispatcher.ts';
import { fakeLookup, fakeLookupAll } from '../support/peers/dns.ts';

/** Addresses a webhook may never reach, each with the range or form that forbids it. */
const FORBIDDEN: [address: string, why: string][] = [
  ['0.0.0.0', '"this network" 0.0.0.0/8'],
  ['0.255.1.2', '"this network" 0.0.0.0/8'],
  ['10.0.0.1', 'private 10/8'],
  ['10.255.255.255', 'private 10/8'],
  ['100.64.0.1', 'carrier-grade NAT 100.64/10'],
  ['100.127.255.254', 'carrier-grade NAT 100.64/10'],
  ['127.0.0.1', 'loopback 127/8'],
  ['127.53.0.9', 'loopback 127/8'],
  ['169.254.0.1', 'link-local 169.254/16'],
  ['169.254.169.254', 'cloud metadata'],
  ['172.16.0.1', 'private 172.16/12'],
  ['172.31.255.255', 'private 172.16/12'],
  ['192.0.0.8', 'IETF protocol assignments 192.0.0/24'],
  ['192.0.2.1', 'documentation 192.0.2/24'],
  ['192.168.1.1', 'private 192.168/16'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['198.19.255.1', 'benchmarking 198.18/15'],
  ['198.51.100.7', 'documentation 198.51.100/24'],
  ['203.0.113.9', 'documentation 203.0.113/24'],
  ['224.0.0.1', 'multicast 224/4'],
  ['239.255.255.250', 'multicast 224/4'],
  ['240.0.0.1', 'reserved 240/4'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'unspecified ::/128'],
  ['::1', 'loopback ::1/128'],
  ['[::1]', 'loopback in URL brackets'],
  ['fc00::1', 'unique local fc00::/7'],
  ['fd12:3456::1', 'unique local fc00::/7'],
  ['fd00:ec2::254', 'AWS metadata'],
  ['fe80::1', 'link-local fe80::/10'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['febf::1', 'link-local fe80::/10'],
  ['ff02::1', 'multicast ff00::/8'],
  ['2001:db8::1', 'documentation 2001:db8::/32'],
  ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
  ['64:ff9b::127.0.0.1', 'NAT64 of 127.0.0.1, dotted'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private, dotted'],
  ['::ffff:a00:1', 'IPv4-mapped private, hex'],
  ['::FFFF:A9FE:A9FE', 'IPv4-mapped cloud metadata, upper case hex'],
  ['0:0:0:0:0:ffff:c0a8:101', 'IPv4-mapped 192.168.1.1, written out'],
  ['::8.8.8.8', 'IPv4-compatible ::/96'],
  ['::a00:1', 'IPv4-compatible ::/96'],
  ['::8.8.8.8%eth0', 'IPv4-compatible ::/96 with a zone'],
  ['0:0:0:0:0:0:8.8.8.8', 'IPv4-compatible ::/96, written out'],
  ['2002:a00:1::1', '6to4 of 10.0.0.1'],
  ['2002:7f00:1::', '6to4 of 127.0.0.1'],
  ['192.88.99.1', 'deprecated 6to4 relay anycast 192.88.99/24'],
  ['192.0.0.9', 'IETF protocol assignments 192.0.0/24, port control anycast'],
  ['192.31.196.1', 'AS112 192.31.196/24'],
  ['192.52.193.1', 'AMT 192.52.193/24'],
  ['192.175.48.1', 'AS112 direct delegation 192.175.48/24'],
  ['::ffff:100.64.0.1', 'IPv4-mapped carrier-grade NAT'],
  ['::ffff:192.88.99.1', 'IPv4-mapped 6to4 relay anycast'],
  ['::ffff:0:808:808', 'IPv4-translated ::ffff:0:0:0/96, even of a public address'],
  ['64:ff9b::ffff:ffff', 'NAT64 of the broadcast address'],
  ['64:ff9b::c058:6301', 'NAT64 of 192.88.99.1'],
  ['64:ff9b:1::808:808', 'local-use NAT64 64:ff9b:1::/48, even of a public address'],
  ['64:ff9b:1:ffff::1', 'local-use NAT64 64:ff9b:1::/48'],
  ['100::1', 'discard-only 100::/64'],
  ['100::ffff:ffff:ffff:ffff', 'discard-only 100::/64'],
  ['100:0:0:1::1', 'dummy prefix 100:0:0:1::/64'],
  ['2001::1', 'Teredo 2001::/32'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a Teredo address'],
  ['2001:1::1', 'IETF protocol assignments 2001::/23'],
  ['2001:2::1', 'benchmarking 2001:2::/48'],
  ['2001:10::1', 'deprecated ORCHID 2001:10::/28'],
  ['2001:20::1', 'ORCHIDv2 2001:20::/28'],
  ['2001:1ff::1', 'IETF protocol assignments 2001::/23, its last /32'],
  ['3fff::1', 'documentation 3fff::/20'],
  ['5f00::1', 'segment routing 5f00::/16'],
  ['4000::1', 'outside global unicast 2000::/3'],
  ['1::1', 'outside global unicast 2000::/3'],
  ['fec0::1', 'site-local fec0::/10'],
  ['127.1', 'a shorthand of loopback that no resolver returns'],
  ['0x7f.0.0.1', 'a hexadecimal form of loopback'],
  ['[::1', 'an unclosed bracket'],
  ['not an address', 'not an IP address at all'],
  ['', 'nothing'],
];

/** Public addresses, among them the nearest neighbours of the forbidden ranges. */
const ALLOWED: [address: string, why: string][] = [
  ['8.8.8.8', 'Google DNS'],
  ['1.1.1.1', 'Cloudflare DNS'],
  ['93.184.215.14', 'a public host'],
  ['100.63.255.255', 'just below carrier-grade NAT'],
  ['100.128.0.1', 'just above carrier-grade NAT'],
  ['172.15.255.255', 'just below 172.16/12'],
  ['172.32.0.1', 'just above 172.16/12'],
  ['198.20.0.1', 'just above 198.18/15'],
  ['223.255.255.254', 'just below multicast'],
  ['2606:4700:4700::1111', 'Cloudflare DNS over IPv6'],
  ['2001:4860:4860::8888', 'Google DNS over IPv6'],
  ['64:ff9b::808:808', 'NAT64 of 8.8.8.8'],
  ['::ffff:8.8.8.8', 'IPv4-mapped 8.8.8.8, dotted'],
  ['::ffff:808:808', 'IPv4-mapped 8.8.8.8, hex'],
  ['2002:808:808::1', '6to4 of 8.8.8.8'],
  ['[2606:4700:4700::1111]', 'Cloudflare DNS over IPv6, in URL brackets'],
  ['2a00:1450:4001:80b::200e', 'a public IPv6 host'],
  ['2001:200::1', 'just above IETF protocol assignments 2001::/23'],
  ['192.88.98.255', 'just below 192.88.99/24'],
  ['192.88.100.1', 'just above 192.88.99/24'],
  ['64:ff9b::1.1.1.1', 'NAT64 of 1.1.1.1, dotted'],
];

describe('isForbiddenAddress', () => {
  it.each([
    ...FORBIDDEN.map(([address, why]) => ['refuses', address, why, true] as const),
    ...ALLOWED.map(([address, why]) => ['allows', address, why, false] as const),
  ])('%s %s (%s)', (_verdict, address, _why, forbidden) => {
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });
});

/** The AppError `checkDestination` throws, for assertions on its code, message and field. */
async function refusalOf(promise: Promise<void>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

/** `checkDestination` as a production deployment runs it (private addresses refused), with a resolver of names. */
function checkPublic(url: string, lookup: LookupAll = fakeLookupAll({})): Promise<void> {
  return checkDestination(new URL(url), { allowPrivate: false, lookup });
}

describe('checkDestination', () => {
  it('refuses a name that resolves to a private address, naming the host and the address', async () => {
    const lookup = fakeLookupAll({ 'hooks.example.com': ['10.1.2.3'] });
    const error = await refusalOf(checkPublic('https://hooks.example.com/x', lookup));
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'url' } });
    expect(error.message).toContain('hooks.example.com');
    expect(error.message).toContain('10.1.2.3');
  });

  it('refuses a name when any one of its addresses is forbidden, even if the first is public', async () => {
    const lookup = fakeLookupAll({ 'mixed.example.com': ['93.184.215.14', 'fd00:ec2::254'] });
    const error = await refusalOf(checkPublic('https://mixed.example.com/', lookup));
    expect(error.message).toContain('fd00:ec2::254');
  });

  it('accepts a name whose addresses are all public', async () => {
    const lookup = fakeLookupAll({
      'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    });
    await expect(checkPublic('https://hooks.example.com/', lookup)).resolves.toBeUndefined();
  });

  it('refuses an IP literal in the URL without resolving anything', async () => {
    const asked: string[] = [];
    const lookup: LookupAll = (hostname) => {
      asked.push(hostname);
      return Promise.resolve([]);
    };
    const error = await refusalOf(checkPublic('https://10.0.0.1/', lookup));
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'url' } });
    expect(error.message).toContain('10.0.0.1');
    expect(asked).toEqual([]);
  });

  it.each([
    ['https://[::1]/', '::1'],
    ['https://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe'],
    ['https://0x7f.1/', '127.0.0.1'],
    ['https://2130706433/', '127.0.0.1'],
  ])('refuses the literal %s, however it is spelled', async (url, address) => {
    const error = await refusalOf(checkPublic(url));
    expect(error.message).toContain(address);
  });

  it.each([
    ['https://[2001::1]/', '2001::1'],
    ['https://[64:ff9b:1::808:808]/', '64:ff9b:1::808:808'],
    ['https://192.88.99.1/', '192.88.99.1'],
  ])('refuses the special-purpose literal %s', async (url, address) => {
    const error = await refusalOf(checkPublic(url));
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'url' } });
    expect(error.message).toContain(address);
  });

  it('names a long host by its beginning only, never echoing it whole', async () => {
    const host = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.example.com`;
    const error = await refusalOf(checkPublic(`https://${host}/`));
    expect(error.message).toContain('a'.repeat(60));
    expect(error.message).toContain(`(${host.length} characters)`);
    expect(error.message).not.toContain(host);
  });

  it('accepts a public IP literal', async () => {
    await expect(checkPublic('https://8.8.8.8/')).resolves.toBeUndefined();
  });

  it('allows private addresses and loopback literals when allowPrivate is set', async () => {
    const lookup = fakeLookupAll({ 'hooks.internal': ['10.1.2.3'] });
    await expect(
      checkDestination(new URL('http://hooks.internal/'), { allowPrivate: true, lookup }),
    ).resolves.toBeUndefined();
    await expect(
      checkDestination(new URL('http://127.0.0.1:8080/'), { allowPrivate: true, lookup }),
    ).resolves.toBeUndefined();
  });

  it('refuses a name that does not resolve', async () => {
    const error = await refusalOf(checkPublic('https://nowhere.example.com/'));
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'url' } });
    expect(error.message).toContain('nowhere.example.com');
  });

  it('refuses a name that resolves to no address at all', async () => {
    const error = await refusalOf(checkPublic('https://empty.example.com/', () => Promise.resolve([])));
    expect(error.message).toContain('empty.example.com');
  });

  it('uses the system resolver when none is given, so localhost is refused', async () => {
    const error = await refusalOf(checkDestination(new URL('https://localhost/'), { allowPrivate: false }));
    expect(error.message).toContain('localhost');
  });
});

describe('safeDispatcher', () => {
  let server: Server;
  let port: number;
  let received = 0;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      received += 1;
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('reached');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  });

  beforeEach(() => {
    received = 0;
  });

  /**
   * What a request through a dispatcher made with `options` rejects with: its message and its cause's, joined.
   * The dispatcher is closed afterwards.
   */
  async function failureOf(
    url: string,
    options: Parameters<typeof safeDispatcher>[0],
  ): Promise<{ code?: unknown; text: string }> {
    const dispatcher = safeDispatcher(options);
    try {
      await request(url, { dispatcher });
    } catch (error) {
      const text = [error, (error as { cause?: unknown }).cause]
        .filter((part): part is Error => part instanceof Error)
        .map((part) => part.message)
        .join(' / ');
      return { code: (error as { code?: unknown }).code, text };
    } finally {
      await dispatcher.close();
    }
    throw new Error(`the request to ${url} went through`);
  }

  it('refuses to connect when a name resolves to a private address at send time (DNS rebinding)', async () => {
    const asked: string[] = [];
    const failure = await failureOf(`http://rebind.test:${port}/`, {
      allowPrivate: false,
      lookup: fakeLookup({ 'rebind.test': ['127.0.0.1'] }, asked),
    });
    expect(failure.code).toBe('EFORBIDDEN_ADDRESS');
    expect(failure.text).toContain('rebind.test');
    expect(failure.text).toContain('127.0.0.1');
    expect(asked).toContain('rebind.test');
    expect(received).toBe(0);
  });

  it('refuses an IP literal URL, which no lookup ever sees', async () => {
    const failure = await failureOf(`http://127.0.0.1:${port}/`, {
      allowPrivate: false,
      lookup: fakeLookup({}),
    });
    expect(failure.code).toBe('EFORBIDDEN_ADDRESS');
    expect(failure.text).toContain('127.0.0.1');
    expect(received).toBe(0);
  });

  it('refuses an IPv4-mapped IPv6 literal pointing at loopback', async () => {
    const failure = await failureOf(`http://[::ffff:127.0.0.1]:${port}/`, {
      allowPrivate: false,
      lookup: fakeLookup({}),
    });
    expect(failure.code).toBe('EFORBIDDEN_ADDRESS');
    expect(received).toBe(0);
  });

  it('passes on a resolver error, so an unknown name fails as it would without the check', async () => {
    const failure = await failureOf(`http://unknown.test:${port}/`, {
      allowPrivate: false,
      lookup: fakeLookup({}),
    });
    expect(failure.code).toBe('ENOTFOUND');
    expect(received).toBe(0);
  });

  it('reaches a loopback receiver when allowPrivate is set, through the same resolver', async () => {
    const dispatcher = safeDispatcher({
      allowPrivate: true,
      lookup: fakeLookup({ 'rebind.test': ['127.0.0.1'] }),
    });
    const response = await request(`http://rebind.test:${port}/`, { dispatcher });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('reached');
    expect(received).toBe(1);
    await dispatcher.close();
  });
});
