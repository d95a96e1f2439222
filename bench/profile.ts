import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/** `BENCH_PROFILE=<dir>`: write a CPU profile of the main thread during each measurement into `dir`. */
const PROFILE_DIR = process.env.BENCH_PROFILE;

/**
 * Runs `work`, sampling the main thread's CPU meanwhile when `BENCH_PROFILE` is set, into
 * `<dir>/<name>.cpuprofile` (open it in Chrome DevTools or speedscope).
 */
export async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (PROFILE_DIR === undefined || PROFILE_DIR === '') return work();
  await mkdir(PROFILE_DIR, { recursive: true });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(join(PROFILE_DIR, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
