import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { forbiddenAddressError, isForbiddenAddress, type LookupFn } from './address-safety.ts';

// The send-time half of the webhooks' address safety (`address-safety.ts` has the rules and the save-time
// check): a module of its own so that only what sends webhooks loads undici.

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
