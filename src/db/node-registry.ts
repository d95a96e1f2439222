import { hostname } from 'node:os';
import type { Queryable } from './database.ts';
import { oneRow } from './one-row.ts';

/** How often a node renews its row in `nodes`. */
export const NODE_HEARTBEAT_MS = 10_000;
/** A row unseen this long is a process that is gone (three missed heartbeats): deleted by whoever reads. */
export const NODE_GONE_AFTER_MS = 30_000;

/** What a process of a deployment says of itself in `nodes`. */
export interface NodeFacts {
  /** `portico serve` or `portico worker`. */
  kind: 'serve' | 'worker';
  /** Where it keeps files: its data dir, or S3; none when it serves no files (`serve --only portfolio`). */
  fileStorage: 'local' | 's3' | 'none';
  /** The directory of a local store, or `s3://bucket/prefix` (empty for none): the same location, the same files. */
  filesLocation: string;
}

/** A process registered in `nodes` and seen within {@link NODE_GONE_AFTER_MS}. */
export interface LiveNode extends NodeFacts {
  id: string;
  hostname: string;
  pid: number;
  startedAt: Date;
  lastSeenAt: Date;
}

/** This process's row in `nodes`, renewed until it is stopped. */
export interface RegisteredNode {
  id: string;
  /** The other live processes, as registered when this one started. */
  others: LiveNode[];
  /** Stops renewing and deletes the row, so that the others no longer count this process. */
  stop(): Promise<void>;
}

export interface RegisterNodeOptions {
  /** Told, after each renewal, of the other live processes. A failure to renew is passed as `error`. */
  onHeartbeat?: (others: LiveNode[], error?: unknown) => void;
  /** @default NODE_HEARTBEAT_MS */
  heartbeatMs?: number;
}

const LIVE_NODES = `select id, hostname, pid, kind, file_storage as "fileStorage", files_location as "filesLocation",
    started_at as "startedAt", last_seen_at as "lastSeenAt"
  from nodes where id <> $1 order by started_at`;

/** Deletes the rows of processes gone (unseen for {@link NODE_GONE_AFTER_MS}), then reads the others. */
async function liveOthers(db: Queryable, id: string): Promise<LiveNode[]> {
  await db.query(`delete from nodes where last_seen_at < clock_timestamp() - $1 * interval '1 millisecond'`, [
    NODE_GONE_AFTER_MS,
  ]);
  return db.query<LiveNode>(LIVE_NODES, [id]);
}

/**
 * Registers this process in the database's `nodes` table and renews its row every {@link NODE_HEARTBEAT_MS},
 * so that any process of the deployment can tell which others are running (PostgreSQL: the embedded database
 * has one process by construction). The row is inserted before the others are read: of two processes that
 * start at once, at least the later reader sees the other.
 *
 * @example
 * const node = await registerNode(db, { kind: 'worker', fileStorage: 's3', filesLocation: 's3://portico' });
 * await node.stop();
 */
export async function registerNode(
  db: Queryable,
  facts: NodeFacts,
  options: RegisterNodeOptions = {},
): Promise<RegisteredNode> {
  const { id } = await oneRow<{ id: string }>(
    db,
    `insert into nodes (hostname, pid, kind, file_storage, files_location) values ($1, $2, $3, $4, $5)
     returning id`,
    [hostname(), process.pid, facts.kind, facts.fileStorage, facts.filesLocation],
  );
  const others = await liveOthers(db, id);
  let beating: Promise<void> = Promise.resolve();
  const beat = async () => {
    try {
      // A row deleted while this process stalled past the limit comes back: it is running after all.
      await db.query(
        `insert into nodes (id, hostname, pid, kind, file_storage, files_location) values ($1, $2, $3, $4, $5, $6)
         on conflict (id) do update set last_seen_at = clock_timestamp()`,
        [id, hostname(), process.pid, facts.kind, facts.fileStorage, facts.filesLocation],
      );
      options.onHeartbeat?.(await liveOthers(db, id));
    } catch (error) {
      options.onHeartbeat?.([], error);
    }
  };
  const timer = setInterval(() => {
    beating = beat();
  }, options.heartbeatMs ?? NODE_HEARTBEAT_MS);
  timer.unref();
  return {
    id,
    others,
    async stop() {
      clearInterval(timer);
      await beating;
      await db.query('delete from nodes where id = $1', [id]);
    },
  };
}
