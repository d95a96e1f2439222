// The console's live updates: a change committed through one node reaches a console whose event stream is
// open on another node of the same database, through LISTEN/NOTIFY (migration 0017's triggers) and server-sent
// events over real HTTPS; a change of another organization never does.
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { CONSOLE_SESSION_COOKIE } from '../../src/transactions/console/console.ts';
import { CONSOLE_API_PATH } from '../../src/transactions/console/links.ts';
import { Browser, createPerson, smtpMailer } from '../support/dashboard.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { organizationStory } from '../support/stories.ts';
import { listenHttps, testTls } from '../support/tls-listener.ts';
import {
  CREATE_TRANSACTION,
  graphql,
  testDatabaseAndFiles,
  transactionInput,
} from '../support/transactions.ts';

const LIVE = `${CONSOLE_API_PATH}/live`;

const world = madeBeforeAll('two nodes', async (closeAfterAll) => {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const tls = await testTls();
  const mailer = smtpMailer('smtp://127.0.0.1:9');
  closeAfterAll(() => {
    mailer.close();
  });
  const node = () =>
    buildTransactionsApp({
      db,
      files,
      environment: 'staging',
      tls,
      // The first node is called in-process "behind a TLS-terminating proxy", as the session cookie is Secure.
      trustProxy: true,
      console: { mailer, transactionsUrl: () => 'https://transactions.test' },
    });
  const first = await node();
  closeAfterAll(() => first.close());
  const second = await node();
  closeAfterAll(() => second.close());
  const listening = await listenHttps(second);
  return { db, files, first, second, origin: listening.origin, ca: tls.cert };
});

/** An open event stream of the second node: the events it has received so far, and how to stop it. */
interface Stream {
  status: number;
  text: () => string;
  /** Resolves once the stream's text holds `needle`; rejects after 10 s. */
  until: (needle: string) => Promise<void>;
  close: () => void;
}

function openStream(cookie: string | undefined): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(
      `${world.origin}${LIVE}`,
      {
        ca: world.ca,
        agent: false,
        headers: cookie === undefined ? {} : { cookie: `${CONSOLE_SESSION_COOKIE}=${cookie}` },
      },
      (response: IncomingMessage) => {
        let text = '';
        const waiting = new Set<() => void>();
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          for (const check of waiting) check();
        });
        resolve({
          status: response.statusCode ?? 0,
          text: () => text,
          until: (needle) =>
            new Promise((found, timedOut) => {
              const check = () => {
                if (!text.includes(needle)) return;
                waiting.delete(check);
                clearTimeout(timer);
                found();
              };
              const timer = setTimeout(() => {
                waiting.delete(check);
                timedOut(new Error(`the stream did not bring ${needle}; it holds: ${text}`));
              }, 10_000);
              waiting.add(check);
              check();
            }),
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

describe('live updates of the console', () => {
  it('brings a transaction created through one node to a console streaming from another, and none of another organization', async () => {
    const mine = await organizationStory(world.db, world.files, { transactions: [] });
    const theirs = await organizationStory(world.db, world.files, { transactions: [] });
    const person = await createPerson(world.db, {
      tenant: { kind: 'organization', id: mine.organizationId },
      role: 'viewer',
    });
    // Signed in through the first node: the second reads the same session from the database.
    const browser = await new Browser(world.first, undefined, {
      apiPath: CONSOLE_API_PATH,
      cookie: CONSOLE_SESSION_COOKIE,
    }).signInOrThrow({ email: person.email, password: person.password });
    const stream = await openStream(browser.cookie);
    try {
      expect(stream.status).toBe(200);
      await stream.until(': listening');

      const create = async (organization: typeof mine) => {
        const { body } = await graphql(world.first, organization.apiKey, CREATE_TRANSACTION, {
          input: transactionInput(organization),
        });
        const id = (body.data?.createTransaction as { transactionId?: string } | undefined)?.transactionId;
        if (id === undefined) throw new Error(JSON.stringify(body));
        return id;
      };
      const made = await create(mine);
      await stream.until(`"transactions":["${made}"]`);
      expect(stream.text()).toContain('event: change\ndata: {"transactions":[');

      const other = await create(theirs);
      const next = await create(mine);
      // Notifications arrive in commit order: had the other organization's reached this stream, it would be here.
      await stream.until(next);
      expect(stream.text()).not.toContain(other);
    } finally {
      stream.close();
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
