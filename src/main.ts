import { runCli } from './cli/run-cli.ts';

process.exitCode = await runCli(
  process.argv,
  {
    env: process.env,
    out: (text) => void process.stdout.write(`${text}\n`),
    err: (text) => void process.stderr.write(`${text}\n`),
  },
  { from: 'node' },
);
