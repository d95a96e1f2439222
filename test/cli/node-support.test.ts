import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { supportsNode, warnIfNodeUnsupported } from '../../src/cli/context.ts';
import { createLogger } from '../../src/logger.ts';
import { ROOT } from '../support/cli.ts';

/** A logger at info whose lines are kept, parsed. */
function keptLogger(): {
  logger: ReturnType<typeof createLogger>;
  lines: { level: number; msg: string; node?: string }[];
} {
  const lines: { level: number; msg: string; node?: string }[] = [];
  const logger = createLogger('info', {
    write: (line: string) => {
      lines.push(JSON.parse(line) as { level: number; msg: string; node?: string });
    },
  });
  return { logger, lines };
}

describe('the Node.js releases Portico runs on', () => {
  it('supports Node 22.22 and newer 22s, and 24 and newer, and nothing older or in between', () => {
    expect(['22.22.0', '22.23.3', '24.0.0', '24.21.0', '26.1.0'].filter((v) => !supportsNode(v))).toEqual([]);
    expect(['20.20.2', '22.21.1', '23.11.0', '18.20.8'].filter(supportsNode)).toEqual([]);
  });

  it('is the range package.json names in "engines", which npm checks at install', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(manifest.engines.node).toBe('^22.22.0 || >=24.0.0');
  });

  it('has serve and worker warn at start on an unsupported Node, naming it, and say nothing on a supported one', () => {
    const old = keptLogger();
    warnIfNodeUnsupported(old.logger, '20.20.2');
    expect(old.lines).toHaveLength(1);
    expect(old.lines[0]).toMatchObject({ level: 40, node: '20.20.2' });
    expect(old.lines[0]?.msg).toMatch(
      /^Node\.js 20\.20\.2 is not supported: run Portico on Node\.js 22 \(22\.22 or newer\) or 24/,
    );

    const current = keptLogger();
    warnIfNodeUnsupported(current.logger, '24.21.0');
    expect(current.lines).toEqual([]);
  });
});
