/**
 * The other process of the console live suite (console-live.ts): it commits `BENCH_LIVE_CHANGES` changes to one
 * transaction through a connection of its own, one every `BENCH_LIVE_GAP_MS`, and prints, once each committed,
 * when its statement was sent (`committed <n> <epoch ms>`), for the suite to measure how long each took to reach an open console.
 */
import pg from 'pg';

const url = process.env.BENCH_LIVE_URL ?? '';
const options = process.env.BENCH_LIVE_OPTIONS ?? '';
const transactionId = process.env.BENCH_LIVE_TRANSACTION ?? '';
const changes = Number(process.env.BENCH_LIVE_CHANGES ?? '200');
const gapMs = Number(process.env.BENCH_LIVE_GAP_MS ?? '25');

const client = new pg.Client({ connectionString: url, options });
await client.connect();
try {
  for (let n = 0; n < changes; n += 1) {
    // One statement, its own transaction: one notification when it commits.
    await client.query('update transactions set updated_at = clock_timestamp() where id = $1', [
      transactionId,
    ]);
    console.log(`committed ${String(n)} ${String(performance.timeOrigin + performance.now())}`);
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
} finally {
  await client.end();
}
