import { createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider from 'oidc-provider';
import { Agent, fetch } from 'undici';
import { testTls } from './tls-listener.ts';

/**
 * A real OpenID Connect provider (`oidc-provider`) on loopback, over HTTPS with the tests' certificate (trusted by
 * Portico through `trustProviderCertificates`). Its client is registered with the callback URLs given; a sign-in
 * needs no page: the provider's interaction logs in the account its `login_hint` names (the address Portico sends),
 * with the claims {@link OidcPeer.account} set for it (by default that address, verified). It can spoil the next
 * ID token it issues, signed afresh with its own key, to try Portico's checks: an expired one, or one unsigned.
 */
export interface OidcPeer {
  /** The issuer: `https://127.0.0.1:<port>`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Sets what the provider says of the person signing in as `loginHint` (its e-mail, whether verified, name). */
  account: (loginHint: string, claims: { email?: string; email_verified?: boolean; name?: string }) => void;
  /** Spoils the next ID token the token endpoint issues. */
  spoilNextIdToken: (how: 'expired' | 'unsigned') => void;
  /**
   * Follows an authorization URL through the provider's redirects, as a browser would (keeping its cookies), and
   * answers where the provider sends the browser back: the client's callback with `code`, `state` and `iss`.
   */
  authorize: (url: string) => Promise<URL>;
  close: () => Promise<void>;
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An ID token with `change` made to its claims, signed again with `key` (or not signed at all). */
function spoiled(idToken: string, how: 'expired' | 'unsigned', key: KeyObject, kid: string): string {
  const [, payload = ''] = idToken.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  if (how === 'unsigned') return `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
  const now = Math.floor(Date.now() / 1000);
  const body = `${b64url({ alg: 'RS256', typ: 'JWT', kid })}.${b64url({ ...claims, iat: now - 7200, exp: now - 3600 })}`;
  return `${body}.${sign('sha256', Buffer.from(body), key).toString('base64url')}`;
}

/** Starts a provider whose one client may send people back to `redirectUris`. */
export async function startOidcPeer(options: {
  redirectUris: string[];
  /** Another provider's client, registered here too (a provider that answers for another's client). */
  client?: { clientId: string; clientSecret: string };
}): Promise<OidcPeer> {
  const tls = await testTls();
  const clientId = options.client?.clientId ?? `portico-${randomBytes(4).toString('hex')}`;
  const clientSecret = options.client?.clientSecret ?? randomBytes(24).toString('base64url');
  const kid = `key-${randomBytes(4).toString('hex')}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, { email?: string; email_verified?: boolean; name?: string }>();
  let spoil: 'expired' | 'unsigned' | undefined;

  const server: Server = createServer({ cert: tls.cert, key: tls.key });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://127.0.0.1:${String((server.address() as AddressInfo).port)}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) =>
      Promise.resolve({
        accountId: id,
        claims: () => {
          const said = accounts.get(id) ?? {};
          return Promise.resolve({
            sub: id,
            email: said.email ?? id,
            email_verified: said.email_verified ?? true,
            ...(said.name !== undefined && { name: said.name }),
          });
        },
      }),
    // Consent is not asked: the test's client is first-party, granted what it asks.
    loadExistingGrant: async (ctx) => {
      const { client, session, result, provider: self } = ctx.oidc;
      const clientIdOf = client?.clientId ?? '';
      const grantId = result?.consent?.grantId ?? session?.grantIdFor(clientIdOf);
      if (grantId !== undefined) return self.Grant.find(grantId);
      const grant = new self.Grant({ clientId: clientIdOf, accountId: session?.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();
  const signingKey = createPrivateKey({ key: jwk, format: 'jwk' });

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      if (request.url?.startsWith('/interaction/')) {
        const interaction = await provider.interactionDetails(request, response);
        const hint = interaction.params.login_hint;
        await provider.interactionFinished(
          request,
          response,
          { login: { accountId: typeof hint === 'string' ? hint : 'nobody@example.com' } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      if (request.url === '/token' && spoil !== undefined) {
        const how = spoil;
        spoil = undefined;
        const end = response.end.bind(response);
        response.end = ((chunk?: unknown) => {
          const text = Buffer.isBuffer(chunk)
            ? chunk.toString('utf8')
            : typeof chunk === 'string'
              ? chunk
              : '';
          const answer = JSON.parse(text) as { id_token?: string };
          if (answer.id_token !== undefined) answer.id_token = spoiled(answer.id_token, how, signingKey, kid);
          const body = JSON.stringify(answer);
          response.setHeader('content-length', Buffer.byteLength(body));
          return end(body);
        }) as typeof response.end;
      }
      await handle(request, response);
    })().catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  });

  const dispatcher = new Agent({ connect: { ca: tls.cert } });
  return {
    issuer,
    clientId,
    clientSecret,
    account: (hint, claims) => {
      accounts.set(hint, claims);
    },
    spoilNextIdToken: (how) => {
      spoil = how;
    },
    async authorize(url) {
      const cookies = new Map<string, string>();
      let next = new URL(url);
      for (let hop = 0; hop < 10; hop += 1) {
        if (next.origin !== issuer) return next;
        const answer = await fetch(next, {
          redirect: 'manual',
          dispatcher,
          headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
        });
        for (const line of answer.headers.getSetCookie()) {
          const [pair = ''] = line.split(';');
          const at = pair.indexOf('=');
          cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1));
        }
        const location = answer.headers.get('location');
        await answer.body?.cancel();
        if (location === null)
          throw new Error(`the provider answered ${String(answer.status)} without a redirect`);
        next = new URL(location, next);
      }
      throw new Error('the provider redirected more than 10 times');
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      await dispatcher.close();
    },
  };
}
