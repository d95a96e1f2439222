import { readdir, readFile, rm, stat, mkdtemp } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { createLogger } from '../../src/logger.ts';
import { createMailer, mailDir, type MailMessage } from '../../src/mail/mailer.ts';
import { runPortico } from '../support/cli.ts';
import { startSmtpServer, type TestSmtpServer } from '../support/peers/smtp.ts';

const FROM = 'Acme Funds <no-reply@acme.example>';
const LOGIN = { user: 'portico', password: 'correct horse battery staple' };
const INVITE = 'https://localhost:4001/dashboard/invitations/abc123';

const message: MailMessage = {
  to: 'ada@example.com',
  subject: 'You are invited to Acme Funds',
  text: `Set your password: ${INVITE}`,
  html: `<p><a href="${INVITE}">Set your password</a></p>`,
  links: [INVITE],
};

/** A logger whose lines this test reads. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', {
    write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
  });
  return { logger, lines };
}

/** A loopback port where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  return port;
}

let dataDir: string;
let open: TestSmtpServer;
let guarded: TestSmtpServer;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'portico-mail-'));
  open = await startSmtpServer();
  guarded = await startSmtpServer(LOGIN);
});

afterAll(async () => {
  await open.close();
  await guarded.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('mail through PORTICO_SMTP_URL', () => {
  it('hands the message to the SMTP server from PORTICO_MAIL_FROM, with a text part and an HTML part', async () => {
    const { logger, lines } = capturedLogger();
    const mailer = createMailer({ smtpUrl: open.url(), mailFrom: FROM, dataDir }, logger);
    const sent = await mailer.send(message);
    mailer.close();

    const arrived = await open.nth(1);
    expect(sent).toEqual({ via: 'smtp', messageId: arrived.parsed.messageId });
    expect(arrived.envelope).toEqual({ from: 'no-reply@acme.example', to: ['ada@example.com'] });
    expect(arrived.parsed.from?.text).toBe('"Acme Funds" <no-reply@acme.example>');
    expect(arrived.parsed.subject).toBe(message.subject);
    expect(arrived.parsed.text?.trim()).toBe(message.text);
    expect(arrived.parsed.html).toBe(message.html);
    // Logged by its id and subject; the link (a credential) is not.
    expect(lines.find((line) => line.msg === 'mail sent')).toMatchObject({
      messageId: sent.messageId,
      subject: message.subject,
    });
    expect(JSON.stringify(lines)).not.toContain(INVITE);
  });

  it('signs in to the SMTP server with the user and password of the URL', async () => {
    const mailer = createMailer(
      { smtpUrl: guarded.url(LOGIN), mailFrom: FROM, dataDir },
      capturedLogger().logger,
    );
    await mailer.send(message);
    mailer.close();
    const arrived = await guarded.nth(1);
    expect(arrived.user).toBe(LOGIN.user);
    expect(arrived.envelope.to).toEqual(['ada@example.com']);
  });

  it('rejects with SERVICE_UNAVAILABLE, quoting the server to operators only and never the password, when the server refuses the sign-in', async () => {
    const wrong = { user: LOGIN.user, password: 'hunter2-wrong' };
    const mailer = createMailer(
      { smtpUrl: guarded.url(wrong), mailFrom: FROM, dataDir },
      capturedLogger().logger,
    );
    const failed = await mailer.send(message).then(
      () => undefined,
      (error: unknown) => error,
    );
    mailer.close();
    expect(failed).toBeInstanceOf(AppError);
    expect(failed).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    // The person who asked is told to try later; the server's answer (hosts, settings) is for operators.
    expect((failed as AppError).message).toBe('The mail could not be sent just now: try again later.');
    const text = (failed as AppError).forOperators ?? '';
    expect(text).toContain('the SMTP server of PORTICO_SMTP_URL did not take the message');
    expect(text).toContain('535');
    expect(text).not.toContain('hunter2');
    expect(guarded.received).toHaveLength(1);
  });

  it('rejects with SERVICE_UNAVAILABLE when nothing answers at the SMTP address', async () => {
    const port = await closedPort();
    const mailer = createMailer(
      { smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: FROM, dataDir },
      capturedLogger().logger,
    );
    await expect(mailer.send(message)).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'The mail could not be sent just now: try again later.',
      forOperators: expect.stringContaining('ECONNREFUSED') as unknown,
    });
    mailer.close();
  });
});

describe('mail without PORTICO_SMTP_URL', () => {
  it('writes each message as an .eml file in <data dir>/mail/ that only its owner can read, and logs its subject and links', async () => {
    const { logger, lines } = capturedLogger();
    const mailer = createMailer({ smtpUrl: undefined, mailFrom: FROM, dataDir }, logger);
    const first = await mailer.send(message);
    const long = `${INVITE}?token=${'a1b2'.repeat(30)}`;
    const second = await mailer.send({
      ...message,
      to: 'grace@example.com',
      subject: 'Reset your password',
      text: `Reset your password: ${long}`,
    });

    if (first.via !== 'file' || second.via !== 'file') throw new Error('both were written to files');
    expect(first.file.startsWith(`${mailDir(dataDir)}/`)).toBe(true);
    expect((await readdir(mailDir(dataDir))).sort()).toEqual(
      [first.file, second.file].map((file) => file.slice(mailDir(dataDir).length + 1)).sort(),
    );
    expect((await stat(first.file)).mode & 0o777).toBe(0o600);
    expect((await stat(mailDir(dataDir))).mode & 0o777).toBe(0o700);

    const parsed = await simpleParser(await readFile(first.file));
    expect(parsed.messageId).toBe(first.messageId);
    expect(parsed.from?.text).toBe('"Acme Funds" <no-reply@acme.example>');
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : '').toBe('ada@example.com');
    expect(parsed.subject).toBe(message.subject);
    expect(parsed.text?.trim()).toBe(message.text);
    expect(parsed.html).toBe(message.html);
    // A long link's text part in base64, never quoted-printable, whose soft breaks and `=3D` cut a copied link.
    const raw = await readFile(second.file, 'utf8');
    expect(raw).not.toMatch(/quoted-printable/i);
    expect(raw).toMatch(/^Content-Transfer-Encoding: base64$/im);
    expect((await simpleParser(raw)).text?.trim()).toBe(`Reset your password: ${long}`);

    expect(lines.filter((line) => line.msg === 'mail written to a file (no PORTICO_SMTP_URL)')).toMatchObject(
      [
        { to: 'ada@example.com', subject: message.subject, links: [INVITE], file: first.file },
        { to: 'grace@example.com', subject: 'Reset your password', links: [INVITE], file: second.file },
      ],
    );
  });
});

describe('portico mail test', () => {
  it('sends a test message through PORTICO_SMTP_URL and prints its message id', async () => {
    const before = open.received.length;
    const ran = await runPortico(['mail', 'test', '--to', 'ops@example.com', '--json'], {
      env: { PORTICO_DATA_DIR: dataDir, PORTICO_SMTP_URL: open.url(), PORTICO_MAIL_FROM: FROM },
    });
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    const arrived = await open.nth(before + 1);
    expect(JSON.parse(ran.stdout)).toEqual({
      to: 'ops@example.com',
      via: 'smtp',
      messageId: arrived.parsed.messageId,
    });
    expect(arrived.parsed.subject).toBe('Portico test message');
    expect(arrived.parsed.text).toContain("Portico's mail settings work");
    expect(arrived.parsed.html).toContain("Portico's mail settings work");
  });

  it('writes the test message to the mail folder without PORTICO_SMTP_URL, and says where and why', async () => {
    const ran = await runPortico(['mail', 'test', '--to', 'ops@example.com'], {
      env: { PORTICO_DATA_DIR: dataDir },
    });
    expect(ran.code).toBe(0);
    const file = /as (\S+\.eml): PORTICO_SMTP_URL is not set\./.exec(ran.stdout)?.[1] ?? '';
    expect(ran.stdout).toContain('Wrote a test message to ops@example.com');
    expect((await simpleParser(await readFile(file))).subject).toBe('Portico test message');
  });

  it('exits non-zero naming the SMTP failure when the server refuses the sign-in', async () => {
    const ran = await runPortico(['mail', 'test', '--to', 'ops@example.com'], {
      env: {
        PORTICO_DATA_DIR: dataDir,
        PORTICO_SMTP_URL: guarded.url({ user: 'portico', password: 'nope-x1' }),
      },
    });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('portico: the SMTP server of PORTICO_SMTP_URL did not take the message');
    expect(ran.stderr).not.toContain('nope-x1');
  });

  it.each([
    'ops',
    'Ops <ops@example.com>',
    'a@example.com,b@example.com',
    'ops@example.com\r\nBcc: x@example.com',
  ])('refuses --to %j, which is not one e-mail address, and sends nothing', async (to) => {
    const before = open.received.length;
    const ran = await runPortico(['mail', 'test', '--to', to], {
      env: { PORTICO_DATA_DIR: dataDir, PORTICO_SMTP_URL: open.url() },
    });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('--to must be one e-mail address');
    expect(open.received).toHaveLength(before);
  });
});
