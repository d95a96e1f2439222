// The console's live updates: a change committed through one node reaches a console whose event stream is
// open on another node of the same database, through LISTEN/NOTIFY (migration 0017's triggers) and server-sent
// events over real HTTPS; a change of another organization never does. A stream ends when its session does,
// whichever node ended it, and a person holds a few streams at most.
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { issueLink } from '../../../src/accounts/links.ts';
import { DEFAULT_SESSION_LIMITS } from '../../../src/accounts/sessions.ts';
import { buildTransactionsApp } from '../../../src/transactions/app.ts';
import { CONSOLE_SESSION_COOKIE } from '../../../src/transactions/console/console.ts';
import { CONSOLE_API_PATH } from '../../../src/transactions/console/links.ts';
import {
  Browser,
  createPerson,
  sessionIdHash,
  smtpMailer,
  type DashboardPerson,
} from '../../support/data/dashboard.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import { organizationStory, type OrganizationStory } from '../../support/data/stories.ts';
import { listenHttps, testTls } from '../../support/peers/tls-listener.ts';
import {
  CREATE_TRANSACTION,
  graphql,
  testDatabaseAndFiles,
  transactionInput,
} from '../../support/data/transactions.ts';

const LIVE = `${CONSOLE_API_PATH}/live`;
/** The console as a simulated browser signs in to it. */
const CONSOLE = { apiPath: CONSOLE_API_PATH, cookie: CONSOLE_SESSION_COOKIE };

const world = madeBeforeAll('two nodes', async (closeAfterAll) => {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const tls = await testTls();
  const mailer = smtpMailer('smtp://127.0.0.1:9');
  closeAfterAll(() => {
    mailer.close();
  });
  const node = (heartbeatMs?: number) =>
    buildTransactionsApp({
      db,
      files,
      environment: 'staging',
      tls,
      // Nodes are also called in-process "behind a TLS-terminating proxy", as the session cookie is Secure.
      trustProxy: true,
      console: { mailer, transactionsUrl: () => 'https://transactions.test', live: { heartbeatMs } },
    });
  const first = await node();
  closeAfterAll(() => first.close());
  // The second node checks its streams' sessions every 100 ms; the third, as good as never (an hour).
  const second = await node(100);
  closeAfterAll(() => second.close());
  const third = await node(3600_000);
  closeAfterAll(() => third.close());
  const listening = await listenHttps(second);
  const thirdListening = await listenHttps(third);
  return {
    db,
    files,
    first,
    second,
    third,
    origin: listening.origin,
    thirdOrigin: thirdListening.origin,
    ca: tls.cert,
  };
});

/** An open event stream of the second node: the events it has received so far, and how to stop it. */
interface Stream {
  status: number;
  text: () => string;
  /** Resolves once the stream's text holds `needle`; rejects after 10 s. */
  until: (needle: string) => Promise<void>;
  /** Resolves once the server has ended the stream; rejects after 10 s. */
  ended: () => Promise<void>;
  close: () => void;
}

function openStream(cookie: string | undefined, origin = world.origin): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(
      `${origin}${LIVE}`,
      {
        ca: world.ca,
        agent: false,
        headers: cookie === undefined ? {} : { cookie: `${CONSOLE_SESSION_COOKIE}=${cookie}` },
      },
      (response: IncomingMessage) => {
        let text = '';
        let over = false;
        const waiting = new Set<() => void>();
        const tell = () => {
          for (const check of waiting) check();
        };
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          tell();
        });
        response.on('end', () => {
          over = true;
          tell();
        });
        /** Resolves once `done()` holds, checked at each chunk and at the end; rejects after 10 s. */
        const whenever = (done: () => boolean, what: string) =>
          new Promise<void>((found, timedOut) => {
            const check = () => {
              if (!done()) return;
              waiting.delete(check);
              clearTimeout(timer);
              found();
            };
            const timer = setTimeout(() => {
              waiting.delete(check);
              timedOut(new Error(`the stream did not ${what}; it holds: ${text}`));
            }, 10_000);
            waiting.add(check);
            check();
          });
        resolve({
          status: response.statusCode ?? 0,
          text: () => text,
          until: (needle) => whenever(() => text.includes(needle), `bring ${needle}`),
          ended: () => whenever(() => over, 'end'),
          close: () => {
            outgoing.destroy();
          },
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** Opens the console's API of `app` as a browser signed in as the person. */
function signedIn(app: typeof world.first, person: DashboardPerson): Promise<Browser> {
  return new Browser(app, undefined, CONSOLE).signInOrThrow({
    email: person.email,
    password: person.password,
  });
}

/** A new transaction of the organization, created through the first node's API; its id. */
async function createTransaction(organization: OrganizationStory): Promise<string> {
  const { body } = await graphql(world.first, organization.apiKey, CREATE_TRANSACTION, {
    input: transactionInput(organization),
  });
  const id = (body.data?.createTransaction as { transactionId?: string } | undefined)?.transactionId;
  if (id === undefined) throw new Error(JSON.stringify(body));
  return id;
}

/** An open stream of a session, ready: the server has said it listens. */
async function listening(browser: Browser, origin?: string): Promise<Stream> {
  const stream = await openStream(browser.cookie, origin);
  expect(stream.status).toBe(200);
  await stream.until(': listening');
  return stream;
}

type Ending = (ending: { browser: Browser; person: DashboardPerson; admin: Browser }) => Promise<void>;
/** What ends a viewer's session (`browser`), done through the first node or the database, as each happens. */
const ENDINGS: [how: string, end: Ending][] = [
  [
    'signs out',
    async ({ browser }) => {
      expect((await browser.request('DELETE', `${CONSOLE_API_PATH}/session`)).status).toBe(200);
    },
  ],
  [
    'is deactivated by an admin',
    async ({ person, admin }) => {
      const answer = await admin.request('POST', `${CONSOLE_API_PATH}/team/${person.id}/deactivate`);
      expect(answer.status).toBe(200);
    },
  ],
  [
    'sets a new password through a reset link',
    async ({ person }) => {
      const { token } = await issueLink(world.db, { userId: person.id, purpose: 'password_reset' });
      const page = new Browser(world.first, undefined, CONSOLE);
      await page.session();
      const answer = await page.request('POST', `${CONSOLE_API_PATH}/password-reset/confirm`, {
        token,
        password: 'a brand new passphrase',
      });
      expect(answer.status).toBe(200);
    },
  ],
  [
    'has been idle past the idle limit',
    async ({ browser }) => {
      await world.db.query(
        `update user_sessions set expires_at = clock_timestamp() - interval '1 second' where id_hash = $1`,
        [sessionIdHash(browser.sessionId())],
      );
    },
  ],
  [
    'signed in longer ago than the absolute limit',
    async ({ browser }) => {
      await world.db.query(
        `update user_sessions set data = jsonb_set(data, '{signedInAt}', to_jsonb($2::bigint))
         where id_hash = $1`,
        [sessionIdHash(browser.sessionId()), Date.now() - DEFAULT_SESSION_LIMITS.absoluteMs - 60_000],
      );
    },
  ],
];

describe('live updates of the console', () => {
  it('brings a transaction created through one node to a console streaming from another, and none of another organization', async () => {
    const mine = await organizationStory(world.db, world.files, { transactions: [] });
    const theirs = await organizationStory(world.db, world.files, { transactions: [] });
    const person = await createPerson(world.db, {
      tenant: { kind: 'organization', id: mine.organizationId },
      role: 'viewer',
    });
    // Signed in through the first node: the second reads the same session from the database.
    const stream = await listening(await signedIn(world.first, person));
    try {
      const made = await createTransaction(mine);
      await stream.until(`"transactions":["${made}"]`);
      expect(stream.text()).toContain('event: change\ndata: {"transactions":[');

      const other = await createTransaction(theirs);
      const next = await createTransaction(mine);
      // Notifications arrive in commit order: had the other organization's reached this stream, it would be here.
      await stream.until(next);
      expect(stream.text()).not.toContain(other);
    } finally {
      stream.close();
    }
  });

  it.each(ENDINGS)(
    'ends a stream on another node within a heartbeat once its person %s, and delivers no change after',
    async (_how, end) => {
      const mine = await organizationStory(world.db, world.files, { transactions: [] });
      const tenant = { kind: 'organization', id: mine.organizationId } as const;
      const [person, colleague, adminPerson] = await Promise.all([
        createPerson(world.db, { tenant, role: 'viewer' }),
        createPerson(world.db, { tenant, role: 'viewer' }),
        createPerson(world.db, { tenant, role: 'admin' }),
      ]);
      const browser = await signedIn(world.first, person);
      const admin = await signedIn(world.first, adminPerson);
      const stream = await listening(browser);
      // A colleague's stream on the same node witnesses that the change reached that node.
      const witness = await listening(await signedIn(world.first, colleague));
      try {
        await end({ browser, person, admin });
        const made = await createTransaction(mine);
        await witness.until(made);
        await stream.ended();
        expect(stream.text()).toContain('event: signed-out\ndata: {}');
        expect(stream.text()).not.toContain(made);
      } finally {
        stream.close();
        witness.close();
      }
    },
  );

  it('ends the streams of a session signed out on their own node at once, without waiting for a heartbeat', async () => {
    const mine = await organizationStory(world.db, world.files, { transactions: [] });
    const person = await createPerson(world.db, {
      tenant: { kind: 'organization', id: mine.organizationId },
      role: 'viewer',
    });
    // Signed in and out through the third node, whose heartbeat comes once an hour.
    const browser = await signedIn(world.third, person);
    const stream = await listening(browser, world.thirdOrigin);
    try {
      expect((await browser.request('DELETE', `${CONSOLE_API_PATH}/session`)).status).toBe(200);
      await stream.ended();
      expect(stream.text()).toContain('event: signed-out');
    } finally {
      stream.close();
    }
  });

  it('keeps three streams of a person: a fourth ends their oldest, and the others go on', async () => {
    const mine = await organizationStory(world.db, world.files, { transactions: [] });
    const person = await createPerson(world.db, {
      tenant: { kind: 'organization', id: mine.organizationId },
      role: 'viewer',
    });
    // Two browsers of one person (a laptop and a phone): the cap is the person's, not a session's.
    const laptop = await signedIn(world.first, person);
    const phone = await signedIn(world.first, person);
    const streams = [await listening(laptop), await listening(laptop), await listening(phone)];
    try {
      const [oldest, ...others] = streams;
      const fourth = await listening(phone);
      streams.push(fourth);
      await oldest?.ended();
      expect(oldest?.text()).toContain('event: replaced\ndata: {}');
      const made = await createTransaction(mine);
      for (const stream of [...others, fourth]) await stream.until(made);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('refuses the stream without a signed-in session', async () => {
    const stream = await openStream(undefined);
    try {
      expect(stream.status).toBe(401);
    } finally {
      stream.close();
    }
  });
});
