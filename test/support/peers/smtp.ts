import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A message as the SMTP server received it: the envelope, and the message parsed. */
export interface ReceivedMail {
  /** MAIL FROM and RCPT TO, as the client sent them. */
  envelope: { from: string; to: string[] };
  /** Who signed in to send it (undefined without AUTH). */
  user: string | undefined;
  parsed: ParsedMail;
  raw: string;
}

export interface TestSmtpServer {
  /** `smtp://…` for PORTICO_SMTP_URL, with `user:password@` when given. */
  url(credentials?: { user: string; password: string }): string;
  /** Every message received so far, in order. */
  received: ReceivedMail[];
  /** Resolves with the `count`-th message once it has arrived (1 = the first). */
  nth(count: number, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/**
 * A real SMTP server (nodemailer's `smtp-server`) on a free loopback port that keeps what it receives. Without
 * `credentials` it takes mail from anyone; with them, only after AUTH with that user and password. Plain SMTP
 * on loopback (no STARTTLS offered), so AUTH is allowed without TLS.
 */
export async function startSmtpServer(credentials?: {
  user: string;
  password: string;
}): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const waiting: (() => void)[] = [];
  const server = new SMTPServer({
    hideSTARTTLS: true,
    allowInsecureAuth: true,
    authOptional: credentials === undefined,
    logger: false,
    onAuth(auth, _session, callback) {
      if (credentials && auth.username === credentials.user && auth.password === credentials.password) {
        callback(null, { user: auth.username });
      } else {
        callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw).then(
          (parsed) => {
            const { mailFrom, rcptTo } = session.envelope;
            received.push({
              envelope: {
                from: mailFrom === false ? '' : mailFrom.address,
                to: rcptTo.map((recipient) => recipient.address),
              },
              user: typeof session.user === 'string' ? session.user : undefined,
              parsed,
              raw,
            });
            for (const wake of waiting.splice(0)) wake();
            callback();
          },
          (error: unknown) => {
            callback(error instanceof Error ? error : new Error(String(error)));
          },
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: (login) =>
      login === undefined
        ? `smtp://127.0.0.1:${port}`
        : `smtp://${encodeURIComponent(login.user)}:${encodeURIComponent(login.password)}@127.0.0.1:${port}`,
    received,
    async nth(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`message ${count} did not arrive within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      const message = received[count - 1];
      if (!message) throw new Error(`message ${count} is missing`);
      return message;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(resolve);
      }),
  };
}
