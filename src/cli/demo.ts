import type { Command } from 'commander';
import { demoFactsPath, readDemoFacts } from '../demo/demo-facts.ts';
import { AppError } from '../errors.ts';
import type { CliContext } from './context.ts';
import { jsonOption, printResult } from './output.ts';

/** `portico demo`: where the demo runs and what to try it with, from `<data dir>/demo.json`. */
export function registerDemoCommand(program: Command, context: CliContext): void {
  program
    .command('demo')
    .description('print the demo facts: addresses, demo API key, demo ids, CA certificate')
    .addOption(jsonOption('print them as JSON (the shape of <data dir>/demo.json)'))
    .action(async (options: { json?: boolean }, command: Command) => {
      const config = context.config(command);
      const facts = await readDemoFacts(config.dataDir);
      if (!facts) {
        throw new AppError(
          'NOT_FOUND',
          `no demo data in ${config.dataDir}: start Portico once with "npm start" (portico serve)`,
        );
      }
      printResult(context.io, facts, options, () =>
        [
          `Transactions  ${facts.transactions.url}`,
          `  API key     ${facts.transactions.apiKey}`,
          `  transaction ${facts.transactions.transactionId}`,
          ...(facts.transactions.recipientUrl ? [`  recipient   ${facts.transactions.recipientUrl}`] : []),
          `Portfolio     ${facts.portfolio.url}`,
          `  API key     ${facts.portfolio.apiKey ?? '(none)'}`,
          `  company     ${facts.portfolio.companyId ?? '(none)'}`,
          `CA cert       ${facts.caCertPath}`,
          `(from ${demoFactsPath(config.dataDir)})`,
        ].join('\n'),
      );
    });
}
