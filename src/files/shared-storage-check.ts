import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config.ts';
import type { Queryable } from '../db/database.ts';
import {
  NODE_GONE_AFTER_MS,
  registerNode,
  type LiveNode,
  type NodeFacts,
  type RegisteredNode,
} from '../db/node-registry.ts';

/** Where this process keeps files, as the `nodes` table records it. */
export function filesLocationOf(config: Pick<Config, 'dataDir' | 's3'>): Omit<NodeFacts, 'kind'> {
  const { s3 } = config;
  if (s3 === undefined) return { fileStorage: 'local', filesLocation: join(config.dataDir, 'files') };
  return {
    fileStorage: 's3',
    filesLocation: `s3://${s3.bucket}${s3.prefix === undefined ? '' : `/${s3.prefix}`}`,
  };
}

/**
 * The other serving nodes that cannot read the files this one stores: when this node keeps them in its data dir,
 * every serving node but those on this host with the same directory (a restart of this node after a crash, whose
 * row has not expired yet, is one of those).
 */
function nodesWithoutOurFiles(ours: Omit<NodeFacts, 'kind'>, others: readonly LiveNode[]): LiveNode[] {
  if (ours.fileStorage !== 'local') return [];
  const here = hostname();
  return others.filter(
    (node) =>
      node.kind === 'serve' &&
      node.fileStorage !== 'none' &&
      !(node.hostname === here && node.filesLocation === ours.filesLocation),
  );
}

function described(node: LiveNode): string {
  return `host ${node.hostname}, process ${String(node.pid)}`;
}

/**
 * Registers this serving node in `nodes` (PostgreSQL) and refuses to start it when it would keep files in its
 * own data dir while another node serves the same database: a file uploaded through one node would be missing
 * (404) on the others. `PORTICO_FILE_STORAGE=local` states that this is the only node: it then starts, and
 * warns when it sees another. Workers and Portfolio-only nodes do not count: they read no files. A node storing in S3 warns of a node
 * that keeps its files locally.
 */
export async function registerServingNode(
  db: Queryable,
  config: Pick<Config, 'dataDir' | 's3' | 'fileStorage'>,
  logger: Logger,
  options: { servesFiles: boolean } = { servesFiles: true },
): Promise<RegisteredNode> {
  // A node serving Portfolio alone stores no files: it neither counts nor is refused.
  const ours: Omit<NodeFacts, 'kind'> = options.servesFiles
    ? filesLocationOf(config)
    : { fileStorage: 'none', filesLocation: '' };
  const warned = new Set<string>();
  let failing = false;
  const warnOf = (others: readonly LiveNode[]) => {
    for (const node of nodesWithoutOurFiles(ours, others)) {
      if (warned.has(node.id)) continue;
      warned.add(node.id);
      logger.warn(
        { node: { hostname: node.hostname, pid: node.pid }, directory: ours.filesLocation },
        'another node serves this database while this one keeps files in its data dir: files uploaded here are missing there (set the PORTICO_S3_* variables on every node)',
      );
    }
    if (ours.fileStorage !== 's3') return;
    for (const node of others) {
      if (node.kind !== 'serve' || node.fileStorage !== 'local' || warned.has(node.id)) continue;
      warned.add(node.id);
      logger.warn(
        { node: { hostname: node.hostname, pid: node.pid } },
        'another node serving this database keeps files in its data dir, not in S3: files uploaded there are missing here',
      );
    }
  };
  const node = await registerNode(
    db,
    { kind: 'serve', ...ours },
    {
      onHeartbeat: (others, error) => {
        if (error !== undefined) {
          if (!failing) logger.warn({ err: error }, 'renewing this node in the nodes table failed');
          failing = true;
          return;
        }
        failing = false;
        warnOf(others);
      },
    },
  );
  const [other] = nodesWithoutOurFiles(ours, node.others);
  if (other !== undefined && config.fileStorage !== 'local') {
    await node.stop();
    throw new ConfigError(
      `another Portico node (${described(other)}) serves this database, and this one would keep files in ` +
        `its data dir (${ours.filesLocation}), where the other nodes cannot read them: set the PORTICO_S3_* ` +
        'variables on every node to share files in S3, or PORTICO_FILE_STORAGE=local if this is the only ' +
        `node (a node stopped less than ${String(NODE_GONE_AFTER_MS / 1000)} s ago is still counted)`,
    );
  }
  warnOf(node.others);
  return node;
}
