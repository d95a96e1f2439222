import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../errors.ts';
import { mailDir } from './mailer.ts';

/** A mail of the data dir's outbox, as `portico mail list` shows it. */
export interface MailSummary {
  /** Its place among the folder's mails, oldest first, from 1: what `portico mail show <n>` takes. */
  number: number;
  /** Its file in `<data dir>/mail/`. */
  file: string;
  date: string | null;
  to: string;
  subject: string;
}

/** A mail decoded: its summary, its sender, and its plain-text body (made from the HTML part when it has none). */
export interface MailContent extends MailSummary {
  from: string;
  text: string;
}

/** The `.eml` files of `<data dir>/mail/`, oldest first (their names begin with the time they were written). */
async function mailFiles(dataDir: string): Promise<string[]> {
  const folder = mailDir(dataDir);
  const names = await readdir(folder).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  });
  return names
    .filter((name) => name.endsWith('.eml'))
    .sort()
    .map((name) => join(folder, name));
}

/**
 * Decodes one `.eml` file with mailparser (quoted-printable and base64 bodies, encoded-word headers): soft line
 * breaks are joined, so a long link comes out whole.
 */
async function decode(file: string, number: number): Promise<MailContent> {
  // Loaded by the two commands that read mail, not with the CLI.
  const { simpleParser } = await import('mailparser');
  const parsed = await simpleParser(await readFile(file));
  const addresses = (field: typeof parsed.to) =>
    (Array.isArray(field) ? field : field ? [field] : []).map((address) => address.text).join(', ');
  return {
    number,
    file,
    date: parsed.date?.toISOString() ?? null,
    from: addresses(parsed.from),
    to: addresses(parsed.to),
    subject: parsed.subject ?? '',
    text: (parsed.text ?? '').replace(/\n+$/, ''),
  };
}

/** The mails Portico wrote to `<data dir>/mail/` (no PORTICO_SMTP_URL), oldest first. */
export async function listMailFiles(dataDir: string): Promise<MailSummary[]> {
  const files = await mailFiles(dataDir);
  const summaries: MailSummary[] = [];
  // A few at a time: a data dir may hold thousands, and each is a file to open.
  for (let start = 0; start < files.length; start += 16) {
    const batch = files.slice(start, start + 16);
    const mails = await Promise.all(batch.map((file, index) => decode(file, start + index + 1)));
    for (const { number, file, date, to, subject } of mails)
      summaries.push({ number, file, date, to, subject });
  }
  return summaries;
}

/** The `number`th mail of `<data dir>/mail/` (as `listMailFiles` numbers them), decoded; NOT_FOUND past the last. */
export async function readMailFile(dataDir: string, number: number): Promise<MailContent> {
  const files = await mailFiles(dataDir);
  const file = Number.isInteger(number) && number >= 1 ? files[number - 1] : undefined;
  if (file === undefined) {
    throw new AppError(
      'NOT_FOUND',
      `there is no mail number ${String(number)} in ${mailDir(dataDir)} (it holds ${String(files.length)}): see "portico mail list"`,
    );
  }
  return decode(file, number);
}
