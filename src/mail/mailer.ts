import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';

/** One message to one person: a plain-text part and an HTML part saying the same. */
export interface MailMessage {
  /** The recipient's address. */
  to: string;
  subject: string;
  text: string;
  html: string;
  /**
   * The links the message carries (an invitation, a password reset). Without an SMTP server they are logged,
   * so that whoever runs Portico on the embedded default can follow them.
   */
  links?: readonly string[];
  /**
   * What the message's log line says besides, to follow it back to its cause: the request that caused it and
   * the transaction it is about (`{ requestId, transactionId }`). Never a secret: it is logged as it is.
   */
  log?: Readonly<Record<string, string | undefined>>;
  /**
   * Headers of the message besides those every message has, e.g. RFC 8058's `List-Unsubscribe` and
   * `List-Unsubscribe-Post` of the console's alerts.
   */
  headers?: Readonly<Record<string, string>>;
}

/** Where a message went. */
export type SentMail =
  | { via: 'smtp'; messageId: string }
  /** `file`: the `.eml` file in `<data dir>/mail/`. */
  | { via: 'file'; messageId: string; file: string };

export interface Mailer {
  /**
   * Sends the message, or writes it to the mail folder. Rejects with a SERVICE_UNAVAILABLE {@link AppError}
   * when the SMTP server does not take it, saying why without credentials.
   */
  send(message: MailMessage): Promise<SentMail>;
  /** Closes the SMTP connections, if any. */
  close(): void;
}

/** How long to wait for the SMTP server to connect, greet, and answer each command. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** The folder of the data dir that holds the messages written without an SMTP server. */
export function mailDir(dataDir: string): string {
  return join(dataDir, 'mail');
}

/**
 * Portico's outgoing mail: through the SMTP server of `PORTICO_SMTP_URL` (STARTTLS whenever the server offers
 * it, or TLS from the start with `smtps://`), or, without one, as `.eml` files in `<data dir>/mail/`, readable
 * only by their owner, with their subject and links logged. Each message is logged once, with its `log` fields;
 * its links only when it went to a file, never when an SMTP server took it. Every message is from
 * `PORTICO_MAIL_FROM`.
 *
 * @example
 * const mailer = createMailer(config, logger);
 * await mailer.send({ to: 'ada@example.com', subject: 'Welcome', text, html, links: [inviteUrl] });
 */
export function createMailer(
  config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>,
  logger: Logger,
): Mailer {
  const { smtpUrl, mailFrom } = config;
  if (smtpUrl !== undefined) {
    const smtp = once(async () =>
      (await import('nodemailer')).createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS }),
    );
    return {
      async send(message) {
        try {
          const sent = await (await smtp.get()).sendMail({ ...content(message), from: mailFrom });
          // Never the links: with an SMTP server they reach only the recipient.
          logger.info({ ...message.log, messageId: sent.messageId, subject: message.subject }, 'mail sent');
          return { via: 'smtp', messageId: sent.messageId };
        } catch (error) {
          throw new AppError('SERVICE_UNAVAILABLE', notSent(error), undefined, {
            cause: error,
            forOperators: `the SMTP server of PORTICO_SMTP_URL did not take the message: ${reason(error)}`,
          });
        }
      },
      close: () => {
        void smtp.made?.then((transport) => {
          transport.close();
        });
      },
    };
  }
  const files = once(async () =>
    (await import('nodemailer')).createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
  );
  const folder = mailDir(config.dataDir);
  return {
    async send(message) {
      // Base64 text parts, never quoted-printable: its soft line breaks and `=3D` cut a link copied from the file.
      const written = await (
        await files.get()
      ).sendMail({
        ...content(message),
        from: mailFrom,
        textEncoding: 'base64',
      });
      const file = join(folder, `${fileStamp(new Date())}-${randomBytes(4).toString('hex')}.eml`);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      // The links in it are as good as a password: only the owner of the data dir may read it.
      await writeFile(file, written.message, { mode: 0o600 });
      logger.info(
        { ...message.log, to: message.to, subject: message.subject, links: message.links ?? [], file },
        'mail written to a file (no PORTICO_SMTP_URL)',
      );
      return { via: 'file', messageId: written.messageId, file };
    },
    close: () => undefined,
  };
}

/**
 * `make` run on the first `get()` and its result kept: nodemailer is loaded with the first message rather than
 * at start-up (importing it takes about 130 ms, and most runs send no mail). `made` is that result, once asked.
 */
function once<T>(make: () => Promise<T>): { get(): Promise<T>; readonly made: Promise<T> | undefined } {
  let made: Promise<T> | undefined;
  return {
    get: () => (made ??= make()),
    get made() {
      return made;
    },
  };
}

function content(message: MailMessage) {
  const { to, subject, text, html, headers } = message;
  return { to, subject, text, html, ...(headers && { headers: { ...headers } }) };
}

/** `2026-11-23T19-40-05-123Z`: sorts by time, and is a valid file name everywhere. */
function fileStamp(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

/** Why nodemailer failed, in its words (its errors name the server and the SMTP reply, never the password). */
/**
 * Why a message was not sent, for whoever asked for it: the server's answer when it refused the address (a
 * mailbox that does not exist is theirs to correct); else only that it could not be sent, since a connection's
 * failure names hosts and settings that are for operators (`forOperators`).
 */
function notSent(error: unknown): string {
  const { code, response } = (error ?? {}) as { code?: unknown; response?: unknown };
  if (code === 'EENVELOPE' && typeof response === 'string') {
    return `The mail server refused the address: ${response.slice(0, 200)}`;
  }
  return 'The mail could not be sent just now: try again later.';
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
