import type { Command } from 'commander';
import { createCliLogger } from '../logger.ts';
import { listMailFiles, readMailFile } from '../mail/mail-files.ts';
import { createMailer, mailDir } from '../mail/mailer.ts';
import type { CliContext } from './context.ts';
import { jsonOption, printList, printResult } from './output.ts';

/** One address, as `--to` takes it: no display name, no spaces, one @. */
const ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/;

/** `portico mail`: outgoing mail, as configured by PORTICO_SMTP_URL and PORTICO_MAIL_FROM. */
export function registerMailCommands(program: Command, context: CliContext): void {
  const mail = program
    .command('mail')
    .description('outgoing mail (PORTICO_SMTP_URL, or .eml files in <data dir>/mail/ without it)');
  mail
    .command('test')
    .description('send a test message, to check the mail settings before anyone depends on them')
    .requiredOption('--to <address>', 'who gets the test message')
    .addOption(jsonOption())
    .action(async (options: { to: string; json?: boolean }, command: Command) => {
      if (!ADDRESS.test(options.to)) {
        command.error(
          `--to must be one e-mail address, like ada@example.com (got ${JSON.stringify(options.to)})`,
        );
      }
      const config = context.config(command);
      const mailer = createMailer(config, createCliLogger(config.logLevel));
      try {
        const sent = await mailer.send({
          to: options.to,
          subject: 'Portico test message',
          text: `This is a test message from Portico, sent by "portico mail test" from ${config.mailFrom}.\n\nIf you can read it, Portico's mail settings work.\n`,
          html: `<p>This is a test message from Portico, sent by <code>portico mail test</code>.</p><p>If you can read it, Portico's mail settings work.</p>`,
        });
        printResult(context.io, { to: options.to, ...sent }, options, () =>
          sent.via === 'smtp'
            ? `Sent a test message to ${options.to} through PORTICO_SMTP_URL (message id ${sent.messageId}).`
            : `Wrote a test message to ${options.to} as ${sent.file}: PORTICO_SMTP_URL is not set.`,
        );
      } finally {
        mailer.close();
      }
    });

  mail
    .command('list')
    .description('list the mails written to <data dir>/mail/ (no PORTICO_SMTP_URL), oldest first')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }, command: Command) => {
      const config = context.config(command);
      context.io.err(`Reading the mail written to ${mailDir(config.dataDir)}`);
      if (config.smtpUrl !== undefined) {
        context.io.err('PORTICO_SMTP_URL is set: new mail goes to that server, not to this folder.');
      }
      const mails = await listMailFiles(config.dataDir);
      printList(
        context.io,
        mails,
        options,
        'There is no mail: Portico has written none to this data dir.',
        (m) => [String(m.number).padStart(4), (m.date ?? '').slice(0, 16).replace('T', ' '), m.to, m.subject],
      );
    });
  mail
    .command('show')
    .description('print one mail of <data dir>/mail/, decoded: its headers and its text, links whole')
    .argument('<n>', 'its number in "portico mail list"')
    .addOption(jsonOption())
    .action(async (n: string, options: { json?: boolean }, command: Command) => {
      const config = context.config(command);
      const mail = await readMailFile(config.dataDir, Number(n));
      printResult(context.io, mail, options, () =>
        [
          `Date:    ${mail.date ?? ''}`,
          `From:    ${mail.from}`,
          `To:      ${mail.to}`,
          `Subject: ${mail.subject}`,
          `File:    ${mail.file}`,
          '',
          mail.text,
        ].join('\n'),
      );
    });
}
