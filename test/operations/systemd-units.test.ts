// The systemd units of docs/examples, checked by systemd itself (`systemd-analyze verify`) where it is installed,
// and read for what docs/operations.md says of them: Node run directly, the drain's signal, and a stop timeout
// above the drain's bound.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config.ts';
import { ROOT } from '../support/cli.ts';

const UNITS = ['portico.service', 'portico-worker.service'];
const ANALYZE = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((path) => existsSync(path));

/** The `Key=value` settings of a unit file (the last one of a key). */
async function settingsOf(unit: string): Promise<Map<string, string>> {
  const text = await readFile(join(ROOT, 'docs/examples', unit), 'utf8');
  const settings = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) settings.set(match[1], match[2]);
  }
  return settings;
}

describe('the systemd units', () => {
  it.each(UNITS)('%s runs Node directly and waits longer than the drain before SIGKILL', async (unit) => {
    const settings = await settingsOf(unit);
    expect(settings.get('ExecStart')).toMatch(/^\/usr\/bin\/node bin\/portico\.js (serve|worker)$/);
    expect(settings.get('KillSignal')).toBe('SIGTERM');
    expect(settings.get('Restart')).toBe('on-failure');
    const bound =
      Number(CONFIG_VARIABLES.shutdownDelay.default) + Number(CONFIG_VARIABLES.shutdownTimeout.default);
    expect(Number(settings.get('TimeoutStopSec'))).toBeGreaterThan(bound);
    expect(settings.get('ProtectSystem')).toBe('strict');
    expect(settings.get('ReadWritePaths')).toBe('/var/lib/portico');
  });

  it.skipIf(ANALYZE === undefined)('are valid units to systemd-analyze verify', async () => {
    const { stdout, stderr } = await promisify(execFile)(ANALYZE ?? '', [
      'verify',
      ...UNITS.map((unit) => join(ROOT, 'docs/examples', unit)),
    ]);
    // It warns on stderr about what it could not check here (the portico user, /opt/portico), never errs.
    expect(`${stdout}${stderr}`).not.toMatch(/error|invalid|unknown/i);
  });
});
