import { stillSignedIn, type HeldSession, type SessionLimits } from '../../accounts/sessions.ts';
import type { Queryable } from '../../db/database.ts';

/** How often each open stream's session is checked again, and a comment line keeps the connection open. */
export const HEARTBEAT_MS = 15_000;
/** How many streams one person holds on a node: one per tab they are likely to look at. */
export const STREAMS_PER_PERSON = 3;
/** How long a browser that does not know a closing event below waits before it opens the stream again. */
const CLOSED_RETRY_MS = 3600_000;

/**
 * Why the server ends a stream, as the last event it sends (web/console/live.tsx):
 * - `signed-out`: the session no longer signs the person in (signed out, a new password, deactivated, removed,
 *   idle or past its absolute limit);
 * - `replaced`: the person opened another stream past {@link STREAMS_PER_PERSON}, and this one was the oldest.
 */
export type StreamEnd = 'signed-out' | 'replaced';

/** One open stream as the node's {@link LiveStreams} holds it. */
export interface LiveStream extends HeldSession {
  /** Writes server-sent event text to the browser. */
  write: (text: string) => void;
  /** Ends the stream, after a last event when the server ends it (not when the browser went away). */
  end: (why?: StreamEnd) => void;
}

/** The open streams of the console on one node. */
export interface LiveStreams {
  /** Holds an open stream until it ends; ends the person's oldest ones past the cap. */
  add: (stream: LiveStream) => void;
  /** Forgets a stream that ended. */
  remove: (stream: LiveStream) => void;
  /** A change for the stream: delivered once its session has been checked again after it arrived. */
  change: (stream: LiveStream, transactions: readonly string[] | null) => void;
  /** Checks every open stream's session now (something on this node may have ended sessions). */
  checkNow: () => void;
  /** Ends every stream (the server is closing) and stops the heartbeat. */
  close: () => void;
}

/** A `change` event: the transactions that changed, or null for any of them. */
const changeEvent = (transactions: readonly string[] | null) =>
  `event: change\ndata: ${JSON.stringify({ transactions })}\n\n`;

/** The last event of a stream the server ends, with a long retry for browsers that do not know it. */
export const endEvent = (why: StreamEnd) => `retry: ${String(CLOSED_RETRY_MS)}\nevent: ${why}\ndata: {}\n\n`;

/**
 * The console's open streams on this node, each checked against its session: at every heartbeat, one query for
 * all of them (`stillSignedIn`), and before a change is delivered, so that a session ended on any node (signing
 * out, a new password, a deactivation, expiry) ends its streams within a heartbeat and no change reaches them
 * after. Checks never overlap: changes that arrive during one wait for the next, which covers them all, so a
 * burst of changes costs one query at a time, not one per change and stream. A check that fails ends every
 * stream it covered: the browser opens it again, and the route checks the session then.
 *
 * @example
 * const streams = createLiveStreams(db, { sessionLimits, log, heartbeatMs: 15_000, streamsPerPerson: 3 });
 * streams.add({ sessionId, userId, write, end });
 */
export function createLiveStreams(
  db: Queryable,
  options: {
    /** The console's session limits: a stream ends with its session. */
    sessionLimits: SessionLimits;
    /** Where a check that failed is logged (the app's logger). */
    log: { error: (facts: object, message: string) => void };
    heartbeatMs: number;
    streamsPerPerson: number;
  },
): LiveStreams {
  // In the order they opened: the first of a person's is their oldest.
  const open = new Set<LiveStream>();
  // Changes that arrived since the stream's last check: transaction ids, or null for any.
  const waiting = new Map<LiveStream, Set<string> | null>();
  let checking = false;
  let asked = 0;
  let beatDue = false;

  async function check(): Promise<void> {
    const beat = beatDue;
    beatDue = false;
    // A heartbeat covers every stream; otherwise only those with changes to deliver.
    const streams = beat ? [...open] : [...waiting.keys()];
    const held = new Map(streams.map((stream) => [stream, waiting.get(stream)]));
    for (const stream of streams) waiting.delete(stream);
    if (streams.length === 0) return;
    let live: Set<string>;
    try {
      live = await stillSignedIn(db, streams, options.sessionLimits);
    } catch (error) {
      options.log.error({ err: error }, 'the sessions of live streams could not be checked');
      for (const stream of streams) stream.end();
      return;
    }
    for (const stream of streams) {
      if (!open.has(stream)) continue;
      if (!live.has(stream.sessionId)) {
        stream.end('signed-out');
        continue;
      }
      const changed = held.get(stream);
      if (changed !== undefined) stream.write(changeEvent(changed && [...changed]));
      if (beat) stream.write(': still here\n\n');
    }
  }

  function checkSoon(): void {
    asked += 1;
    if (checking) return;
    checking = true;
    void (async () => {
      try {
        // Whatever was asked for during a check is covered by the next one.
        for (let answered = 0; answered < asked;) {
          answered = asked;
          await check();
        }
      } finally {
        checking = false;
      }
    })();
  }

  const heartbeat = setInterval(() => {
    beatDue = true;
    checkSoon();
  }, options.heartbeatMs);
  heartbeat.unref();

  return {
    add(stream) {
      const theirs = [...open].filter((other) => other.userId === stream.userId);
      for (const oldest of theirs.slice(0, Math.max(0, theirs.length - options.streamsPerPerson + 1))) {
        oldest.end('replaced');
      }
      open.add(stream);
    },
    remove(stream) {
      open.delete(stream);
      waiting.delete(stream);
    },
    change(stream, transactions) {
      if (!open.has(stream)) return;
      const earlier = waiting.get(stream);
      if (earlier === null) return;
      if (transactions === null) waiting.set(stream, null);
      else waiting.set(stream, new Set([...(earlier ?? []), ...transactions]));
      checkSoon();
    },
    checkNow() {
      beatDue = true;
      checkSoon();
    },
    close() {
      clearInterval(heartbeat);
      for (const stream of open) stream.end();
    },
  };
}
