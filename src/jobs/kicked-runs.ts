/**
 * Work that runs every `intervalMs` (an unref'd timer: it never keeps the process alive) and whenever kicked:
 * the recipients' mail, a closing's rows. Kicks during a run make one more run after it, never two at once.
 */
export interface KickedRuns<Result> {
  /** Runs soon, without waiting; failures go to `onError`, not to the caller. */
  kick(): void;
  /** Runs now (with `now`, a test's clock) and says what it did; throws on failure. */
  runDue(now?: Date): Promise<Result>;
  /** Waits for the runs under way (those kicks started too), without stopping anything. */
  settled(): Promise<void>;
  /** Stops the timer and kicks, and waits for the runs under way. */
  stop(): Promise<void>;
}

/**
 * Starts {@link KickedRuns} of `run`.
 *
 * @example
 * const runs = createKickedRuns({ run: (now) => sendDueNotices(db, { mailer, now }), intervalMs: 60_000,
 *   onError: (error) => logger.warn({ err: error }, 'sending mail failed') });
 */
export function createKickedRuns<Result>(options: {
  run: (now?: Date) => Promise<Result>;
  /** 0 for never: only `kick()` and `runDue()`. */
  intervalMs: number;
  onError: (error: unknown) => void;
}): KickedRuns<Result> {
  const runs = new Set<Promise<unknown>>();
  const runDue = (now?: Date): Promise<Result> => {
    const run = options.run(now);
    runs.add(run);
    const forget = () => runs.delete(run);
    void run.then(forget, forget);
    return run;
  };

  let stopped = false;
  /** Kicks so far, and the run they started: kicks during a run make one more run after it. */
  let kicks = 0;
  let kicked: Promise<void> | undefined;
  const drain = async () => {
    let seen: number;
    do {
      seen = kicks;
      try {
        await runDue();
      } catch (error) {
        options.onError(error);
      }
    } while (kicks !== seen && !stopped);
    kicked = undefined;
  };
  const kick = () => {
    if (stopped) return;
    kicks += 1;
    kicked ??= drain();
  };

  const timer = options.intervalMs > 0 ? setInterval(kick, options.intervalMs) : undefined;
  timer?.unref();
  return {
    kick,
    runDue,
    async settled() {
      await Promise.allSettled([kicked, ...runs]);
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.allSettled([kicked, ...runs]);
    },
  };
}
