/**
 * The Portfolio suite of `npm run bench`: `GET /v1/external/companies` over 1,000,000 companies on PostgreSQL,
 * page 1 and a page 10,000 pages deep (by cursor), side by side with the floor (the same statements behind a
 * bare Fastify route), and what `total` costs. See bench/README.md.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import type { FastifyInstance } from 'fastify';
import type { Database, Queryable } from '../src/db/database.ts';
import { loadInstanceSecret } from '../src/db/instance-secrets.ts';
import type { TlsMaterial } from '../src/http/tls.ts';
import { buildPortfolioApp, PORTFOLIO_BASE_PATH } from '../src/portfolio/app.ts';
import { createCursors, type WalkState } from '../src/portfolio/cursor.ts';
import { createPortfolioKey } from '../src/portfolio/instances.ts';
import { cpuPerRequest, cpuSnapshot, describeCpu, type CpuPerRequest } from './cpu.ts';
import { runLoad, type LoadResult } from './load.ts';
import {
  buildPortfolioFloorApp,
  PORTFOLIO_FLOOR_PATHS,
  type CapturedStatement,
  type FloorPage,
} from './portfolio-floor.ts';
import {
  OTHER_COMPANIES,
  openPortfolioSeed,
  PORTFOLIO_APPLICATION_NAME,
  RECENT_FROM,
} from './portfolio-seed.ts';
import { profiled } from './profile.ts';
import { median, printMarkdownTable, targetResult, type TargetResult } from './table.ts';

/** The issue's targets. */
export const PORTFOLIO_TARGETS = {
  /** The API's page-1 throughput as a share of the floor's, at least (issue 14; 70% before). */
  floorShare: 0.9,
  /** What the deep page may cost, as a multiple of page 1's (1 / throughput), at most (issue 14; 1.2x before). */
  deepCost: 1.1,
};

/** The page size the suite walks with: the API's default. */
const LIMIT = 50;
/** How deep the deep page is: page DEEP_PAGES + 1, after DEEP_PAGES x LIMIT companies. */
const DEEP_PAGES = 10_000;
/** updatedSince before every company: the walk covers them all and its first page counts 1,000,000. */
const UPDATED_SINCE_ALL = '2000-01-01T00:00:00.000Z';
/** The labels of the two ways to get total, in the statement table. */
const TOTAL_STORED = 'total: select companies_count (stored by the import)';
const TOTAL_COUNTED = 'total: select count(*) where instance_id = $1';

export interface PortfolioSettings {
  warmupSeconds: number;
  measureSeconds: number;
  connections: number;
  companies: number;
  schema: string;
  reseed: boolean;
}

type Endpoint = 'floor' | 'api';

export interface PortfolioLoad {
  endpoint: Endpoint;
  page: FloorPage;
  result: LoadResult & { mean: number };
  statements: number;
  cpu: CpuPerRequest | undefined;
  /** CPU milliseconds per answer of the suite's own PostgreSQL backends (Linux, server on this machine). */
  ownPostgresMs: number | undefined;
  bytes: number;
}

export interface TimedStatement {
  label: string;
  /** Median round trip from the bench's pool (ms), over `runs` sequential runs. */
  medianMs: number;
  runs: number;
  /** PostgreSQL's own `Execution Time` and `Planning Time` (EXPLAIN ANALYZE), and the blocks it touched. */
  executionMs: number;
  planningMs: number;
  blocks: number;
  /** How it read portfolio_companies, as EXPLAIN shows it: short, and with its conditions. */
  scans: string;
  scanDetails: string;
}

export interface TimedRequest {
  label: string;
  total: number;
  medianMs: number;
  runs: number;
}

export interface PortfolioReport {
  companies: number;
  seedSeconds: number;
  reused: boolean;
  deepPage: number;
  loads: PortfolioLoad[];
  statements: TimedStatement[];
  requests: TimedRequest[];
}

interface CompanyPage {
  data: { id: string; legalName: string; createdAt: string; funds: { id: string; name: string }[] }[];
  total: number;
  hasNextPage: boolean;
  nextCursor: string | null;
}

interface Answer {
  status: number;
  text: string;
}

/** One GET over HTTPS, trusting only `ca`; with `agent`, on its (keep-alive) connection. */
function get(
  url: string,
  headers: Record<string, string>,
  ca: string,
  agent: Agent | false = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'GET', ca, agent, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** A database that records the statements it is sent while `record` runs, and counts them. */
function recordingQueries(db: Database): {
  db: Database;
  record: (work: () => Promise<unknown>) => Promise<CapturedStatement[]>;
} {
  let recorded: CapturedStatement[] | undefined;
  return {
    db: {
      ...db,
      query: (text, params) => {
        recorded?.push({ text, params: [...(params ?? [])] });
        return db.query(text, params);
      },
    },
    async record(work) {
      recorded = [];
      try {
        await work();
        return recorded;
      } finally {
        recorded = undefined;
      }
    },
  };
}

/**
 * CPU nanoseconds each of the suite's own PostgreSQL backends has run, by pid (`/proc/<pid>/schedstat`): unlike
 * the CPU of every `postgres` process, what other clients of the server cost does not count. Undefined when the
 * server is not on this machine.
 */
async function ownBackendsCpu(db: Queryable): Promise<Map<number, number> | undefined> {
  const backends = await db.query<{ pid: number }>(
    'select pid from pg_stat_activity where application_name = $1',
    [PORTFOLIO_APPLICATION_NAME],
  );
  const cpu = new Map<number, number>();
  for (const { pid } of backends) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') return undefined;
      cpu.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      return undefined;
    }
  }
  return cpu;
}

/** Milliseconds per request the backends ran between two snapshots (one that opened meanwhile counts whole). */
function ownPostgresMsPerRequest(
  before: Map<number, number> | undefined,
  after: Map<number, number> | undefined,
  requests: number,
): number | undefined {
  if (!before || !after || requests === 0) return undefined;
  let nanoseconds = 0;
  for (const [pid, ran] of after) nanoseconds += ran - (before.get(pid) ?? 0);
  return nanoseconds / 1e6 / requests;
}

async function timed(runs: number, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return median(times);
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  'Rows Removed by Filter'?: number;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** Every node of a plan that reads portfolio_companies (the page's rows, and a count's). */
function companiesScans(node: PlanNode): PlanNode[] {
  return [
    ...(node['Relation Name'] === 'portfolio_companies' ? [node] : []),
    ...(node.Plans ?? []).flatMap(companiesScans),
  ];
}

/** How a scan read portfolio_companies: short (for the table), and with its conditions (for the log). */
function describeScan(node: PlanNode): { short: string; long: string } {
  const rows = Math.round((node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1));
  const removed = node['Rows Removed by Filter'] ?? 0;
  const short =
    `${node['Node Type']}${node['Index Name'] === undefined ? '' : ` ${node['Index Name']}`}: ` +
    `${rows.toLocaleString('en-US')} rows${removed > 0 ? ` (+${removed.toLocaleString('en-US')} filtered out)` : ''}`;
  const conditions = [
    node['Index Cond'] === undefined ? '' : `index cond ${node['Index Cond']}`,
    node.Filter === undefined ? '' : `filter ${node.Filter}`,
  ]
    .filter((part) => part !== '')
    .join(', ')
    // Literals (the instance id, the cursor's key) shown as `?`, to keep the line short.
    .replace(/'[^']*'::[a-z ]+/g, '?');
  return { short, long: conditions === '' ? short : `${short}, ${conditions}` };
}

/** Times one statement: `runs` sequential round trips, then one EXPLAIN (ANALYZE, BUFFERS). */
async function timeStatement(
  db: Queryable,
  label: string,
  statement: CapturedStatement,
  runs: number,
): Promise<TimedStatement> {
  await db.query(statement.text, statement.params);
  const medianMs = await timed(runs, () => db.query(statement.text, statement.params));
  const [explained] = await db.query<{
    'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number; 'Planning Time': number }];
  }>(`explain (analyze, buffers, format json) ${statement.text}`, statement.params);
  const plan = explained?.['QUERY PLAN'][0];
  if (!plan) throw new Error(`EXPLAIN gave no plan for ${label}`);
  const scans = companiesScans(plan.Plan).map(describeScan);
  return {
    label,
    medianMs,
    runs,
    executionMs: plan['Execution Time'],
    planningMs: plan['Planning Time'],
    blocks: (plan.Plan['Shared Hit Blocks'] ?? 0) + (plan.Plan['Shared Read Blocks'] ?? 0),
    scans: scans.map((scan) => scan.short).join('; ') || 'none',
    scanDetails: scans.map((scan) => scan.long).join('; ') || 'none',
  };
}

function parsePage(answer: Answer, what: string): CompanyPage {
  if (answer.status !== 200) throw new Error(`${what} answered ${answer.status}: ${answer.text}`);
  return JSON.parse(answer.text) as CompanyPage;
}

function sameIds(page: { data: { id: string }[] }, expected: string[], what: string): void {
  const ids = page.data.map((company) => company.id);
  if (!isDeepStrictEqual(ids, expected)) {
    const at = ids.findIndex((id, index) => id !== expected[index]);
    throw new Error(
      `${what}: expected the ${expected.length} companies of the walk's order, got ${ids.length} ` +
        `(first difference at ${at}: ${ids[at] ?? 'none'} instead of ${expected[at] ?? 'none'})`,
    );
  }
}

export async function benchPortfolio(options: {
  tls: TlsMaterial;
  settings: PortfolioSettings;
  /** Registers a cleanup, run at the end, on failure and on Ctrl-C. */
  defer: (cleanup: () => Promise<unknown>) => void;
}): Promise<PortfolioReport> {
  const { tls, settings } = options;
  const log = (line: string) => {
    console.log(line);
  };
  console.log(`\nportfolio on PostgreSQL ${settings.schema}`);
  const seed = await openPortfolioSeed({
    companies: settings.companies,
    schema: settings.schema,
    reseed: settings.reseed,
    log,
  });
  options.defer(() => seed.close());
  const { db, instanceId } = seed;
  console.log(`  ${seed.description}`);

  // Keys of earlier runs are of no use (only their hashes are kept).
  await db.query(`delete from portfolio_api_keys where name = 'bench'`);
  const { key } = await createPortfolioKey(db, { instanceId, name: 'bench' });
  const { key: otherKey } = await createPortfolioKey(db, { instanceId: seed.otherInstanceId, name: 'bench' });

  const recording = recordingQueries(db);
  const api = await buildPortfolioApp({ db: recording.db, tls });
  options.defer(() => api.close());
  const listen = async (app: FastifyInstance) => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    return `https://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  };
  const apiOrigin = await listen(api);
  const companiesUrl = `${apiOrigin}${PORTFOLIO_BASE_PATH}/companies`;
  const auth = { authorization: key };
  const apiGet = (query: string, headers: Record<string, string> = auth, agent: Agent | false = false) =>
    get(`${companiesUrl}${query}`, headers, tls.cert, agent);

  // The walk's order as SQL has it, for the checks.
  const idsAt = async (offset: number, count: number) =>
    (
      await db.query<{ id: string }>(
        `select id from portfolio_companies where instance_id = $1 and created_revision <= 1
         order by created_at, id offset $2 limit $3`,
        [instanceId, offset, count],
      )
    ).map((row) => row.id);

  // Page 1.
  const anonymous = await apiGet('', {});
  if (anonymous.status !== 401) throw new Error(`GET /companies without a key answered ${anonymous.status}`);
  const firstAnswer = await apiGet('');
  const first = parsePage(firstAnswer, 'page 1');
  sameIds(first, await idsAt(0, LIMIT), 'page 1');
  if (first.total !== seed.companies || !first.hasNextPage || first.nextCursor === null) {
    throw new Error(
      `page 1: expected total ${seed.companies} and a next page, got ${firstAnswer.text.slice(0, 300)}`,
    );
  }

  // The deep page: the cursor the walk would hold after DEEP_PAGES pages, made with the deployment's secret and
  // the walk state page 1 handed out (its revision and total).
  const cursors = createCursors(await loadInstanceSecret(db, 'portfolio_cursors'));
  const state: WalkState = cursors.decode(first.nextCursor, {
    list: 'companies',
    instanceId,
    companyId: null,
  });
  const deepPage = Math.min(DEEP_PAGES, Math.floor(seed.companies / LIMIT / 2));
  if (deepPage < 1) throw new Error(`BENCH_PORTFOLIO_COMPANIES must be at least ${2 * LIMIT}`);
  const [after] = await db.query<{ time: string; id: string }>(
    `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as time, id
     from portfolio_companies where instance_id = $1 and created_revision <= $2::bigint
     order by created_at, id offset $3 limit 1`,
    [instanceId, state.revision, deepPage * LIMIT - 1],
  );
  if (!after) throw new Error(`no company at position ${deepPage * LIMIT}`);
  const deepCursor = cursors.encode({ ...state, after: [after.time, after.id] });
  const deepQuery = `?cursor=${encodeURIComponent(deepCursor)}`;
  const deepAnswer = await apiGet(deepQuery);
  const deep = parsePage(deepAnswer, `page ${deepPage + 1}`);
  sameIds(deep, await idsAt(deepPage * LIMIT, LIMIT), `page ${deepPage + 1}`);
  if (deep.total !== seed.companies || !deep.hasNextPage) {
    throw new Error(`page ${deepPage + 1}: expected total ${seed.companies} and a next page`);
  }
  console.log(
    `  page 1 and page ${(deepPage + 1).toLocaleString('en-US')} (after company ` +
      `${(deepPage * LIMIT).toLocaleString('en-US')}, ${after.time}) answer 200 with the ${LIMIT} companies ` +
      `that follow in (createdAt, id) order, total ${seed.companies.toLocaleString('en-US')}`,
  );

  // The tenant filter: the other instance sees its own few companies, and the main walk's cursor is refused.
  const other = parsePage(await apiGet('', { authorization: otherKey }), 'the other instance');
  if (other.total !== OTHER_COMPANIES || other.data.length !== OTHER_COMPANIES || other.hasNextPage) {
    throw new Error(
      `the other instance: expected its ${OTHER_COMPANIES} companies, got total ${other.total}`,
    );
  }
  const mainIds = new Set([...first.data, ...deep.data].map((company) => company.id));
  if (other.data.some((company) => mainIds.has(company.id))) throw new Error('the other instance sees ours');
  const crossed = await apiGet(deepQuery, { authorization: otherKey });
  if (crossed.status !== 400 || !crossed.text.includes('INVALID_CURSOR')) {
    throw new Error(`the main walk's cursor with the other key answered ${crossed.status}: ${crossed.text}`);
  }
  console.log(
    `  tenant filter: the other instance's key sees its ${OTHER_COMPANIES} companies only; ` +
      'the deep cursor with it: 400 INVALID_CURSOR',
  );

  // The statements the API runs for each page, captured from real requests (the key lookup is cached after
  // the requests above, so one request sends exactly one statement).
  const capture = async (query: string) => {
    await apiGet(query);
    const recorded = await recording.record(() => apiGet(query));
    const lists = recorded.filter((statement) => statement.text.includes('json_agg(page'));
    const [statement] = lists;
    if (lists.length !== 1 || !statement) {
      throw new Error(`expected one list statement per request, got ${lists.length}`);
    }
    return { statement, count: recorded.length };
  };
  const captured = { first: await capture(''), deep: await capture(deepQuery) };
  if (/count\(/.test(captured.first.statement.text) || /count\(/.test(captured.deep.statement.text)) {
    throw new Error('a page of /companies without updatedSince counts rows');
  }
  console.log(
    `  SQL statements per request: page 1 ${captured.first.count}, deep page ${captured.deep.count} ` +
      '(no count(*): page 1 reads portfolio_instances.companies_count, later pages carry total in the cursor)',
  );

  const floor = await buildPortfolioFloorApp({
    db,
    tls,
    statements: { first: captured.first.statement, deep: captured.deep.statement },
    limit: LIMIT,
  });
  options.defer(() => floor.close());
  const floorOrigin = await listen(floor);
  const urls: Record<Endpoint, Record<FloorPage, string>> = {
    api: { first: companiesUrl, deep: `${companiesUrl}${deepQuery}` },
    floor: {
      first: `${floorOrigin}${PORTFOLIO_FLOOR_PATHS.first}`,
      deep: `${floorOrigin}${PORTFOLIO_FLOOR_PATHS.deep}`,
    },
  };
  const headers: Record<Endpoint, Record<string, string>> = { api: auth, floor: {} };
  const expected: Record<Endpoint, Record<FloorPage, string>> = {
    api: { first: firstAnswer.text, deep: deepAnswer.text },
    floor: { first: '', deep: '' },
  };
  for (const page of ['first', 'deep'] as const) {
    const answer = await get(urls.floor[page], {}, tls.cert);
    const floorPage = parsePage(answer, `the floor's ${page} page`);
    const apiPage = page === 'first' ? first : deep;
    if (!isDeepStrictEqual(floorPage.data, apiPage.data) || floorPage.hasNextPage !== apiPage.hasNextPage) {
      throw new Error(`the floor's ${page} page differs from the API's`);
    }
    expected.floor[page] = answer.text;
  }
  console.log(
    `  the floor returns the same companies (page 1: API ${Buffer.byteLength(firstAnswer.text)} bytes, floor ` +
      `${Buffer.byteLength(expected.floor.first)} bytes)`,
  );

  // The load: floor page 1, API page 1, API deep page, floor deep page.
  const loads: PortfolioLoad[] = [];
  for (const [endpoint, page] of [
    ['floor', 'first'],
    ['api', 'first'],
    ['api', 'deep'],
    ['floor', 'deep'],
  ] as const) {
    const load = (seconds: number) =>
      runLoad({
        url: urls[endpoint][page],
        headers: headers[endpoint],
        connections: settings.connections,
        seconds,
        expectBody: expected[endpoint][page],
      });
    const label = `${endpoint} ${page === 'first' ? 'page 1' : `page ${deepPage + 1}`}`;
    const check = <T extends LoadResult>(result: T, phase: string): T => {
      if (result.failures > 0 || result.requests === 0) {
        throw new Error(`portfolio ${label} ${phase}: ${result.requests} requests; ${result.failureDetail}`);
      }
      return result;
    };
    check(await load(settings.warmupSeconds), 'warm-up');
    const ownBefore = await ownBackendsCpu(db);
    const before = cpuSnapshot();
    const result = check(
      await profiled(`portfolio-${endpoint}-${page}`, () => load(settings.measureSeconds)),
      'measurement',
    );
    const cpu = cpuPerRequest(before, cpuSnapshot(), result.requests);
    const ownPostgresMs = ownPostgresMsPerRequest(ownBefore, await ownBackendsCpu(db), result.requests);
    console.log(
      `  ${label.padEnd(16)} ${result.requestsPerSecond.toFixed(0).padStart(6)} req/s  ` +
        `p50 ${result.p50} ms  p99 ${result.p99} ms  mean ${result.mean.toFixed(2)} ms  ` +
        `(${result.requests} requests in ${result.seconds} s)` +
        describeCpu(cpu) +
        (ownPostgresMs === undefined ? '' : `; own PostgreSQL backends ${ownPostgresMs.toFixed(3)} ms`),
    );
    loads.push({
      endpoint,
      page,
      result,
      statements: endpoint === 'api' ? captured[page].count : 1,
      cpu,
      ownPostgresMs,
      bytes: Buffer.byteLength(expected[endpoint][page]),
    });
  }

  // What total costs: counting the instance's companies against reading the count an import stored; and the
  // list statements themselves (those with updatedSince count their walk), one at a time, measured in
  // PostgreSQL and from the pool.
  const since = (value: string) => `?updatedSince=${encodeURIComponent(value)}`;
  const sinceStatements = {
    recent: (await capture(since(RECENT_FROM))).statement,
    all: (await capture(since(UPDATED_SINCE_ALL))).statement,
  };
  console.log('  timing statements one at a time (no other load):');
  const statements: TimedStatement[] = [];
  const time = async (label: string, statement: CapturedStatement, runs: number) => {
    const timedStatement = await timeStatement(db, label, statement, runs);
    console.log(
      `    ${label}: median ${timedStatement.medianMs.toFixed(2)} ms over ${runs} runs; EXPLAIN ANALYZE: ` +
        `execution ${timedStatement.executionMs.toFixed(2)} ms, planning ${timedStatement.planningMs.toFixed(2)} ms, ` +
        `${timedStatement.blocks} blocks; portfolio_companies: ${timedStatement.scanDetails}`,
    );
    statements.push(timedStatement);
  };
  await time('page 1 (total: companies_count)', captured.first.statement, 200);
  await time(`page ${deepPage + 1} (seek by cursor, total from it)`, captured.deep.statement, 200);
  await time(
    TOTAL_STORED,
    { text: 'select companies_count from portfolio_instances where id = $1', params: [instanceId] },
    200,
  );
  await time(
    TOTAL_COUNTED,
    { text: 'select count(*) from portfolio_companies where instance_id = $1', params: [instanceId] },
    10,
  );
  await time(`page 1, updatedSince=${RECENT_FROM} (counts its walk)`, sinceStatements.recent, 50);
  await time(`page 1, updatedSince=${UPDATED_SINCE_ALL} (counts its walk)`, sinceStatements.all, 10);

  // First pages through the API, one request at a time on one keep-alive connection: without updatedSince (the
  // stored count), and with it (the walk counts its records once, on its first page).
  console.log('  first pages through the API, one request at a time:');
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: tls.cert });
  options.defer(() => {
    agent.destroy();
    return Promise.resolve();
  });
  const [recentCount] = await db.query<{ count: string }>(
    `select count(*)::text as count from portfolio_companies
     where instance_id = $1 and created_revision <= 1 and updated_at >= $2::timestamptz`,
    [instanceId, RECENT_FROM],
  );
  const requests: TimedRequest[] = [];
  for (const [label, query, total, runs] of [
    ['page 1', '', seed.companies, 50],
    [`page ${deepPage + 1}`, deepQuery, seed.companies, 50],
    [`page 1, updatedSince=${RECENT_FROM}`, since(RECENT_FROM), Number(recentCount?.count), 20],
    [`page 1, updatedSince=${UPDATED_SINCE_ALL}`, since(UPDATED_SINCE_ALL), seed.companies, 10],
  ] as const) {
    const page = parsePage(await apiGet(query, auth, agent), label);
    if (page.total !== total || page.data.length !== Math.min(LIMIT, total)) {
      throw new Error(
        `${label}: expected total ${total}, got ${page.total} with ${page.data.length} records`,
      );
    }
    const medianMs = await timed(runs, async () => {
      const answer = await apiGet(query, auth, agent);
      if (answer.status !== 200) throw new Error(`${label} answered ${answer.status}`);
    });
    console.log(`    ${label}: total ${total}, median ${medianMs.toFixed(2)} ms over ${runs} requests`);
    requests.push({ label, total, medianMs, runs });
  }

  return {
    companies: seed.companies,
    seedSeconds: seed.seedSeconds,
    reused: seed.reused,
    deepPage: deepPage + 1,
    loads,
    statements,
    requests,
  };
}

function find(report: PortfolioReport, endpoint: Endpoint, page: FloorPage): PortfolioLoad | undefined {
  return report.loads.find((load) => load.endpoint === endpoint && load.page === page);
}

/** Deep page's cost as a multiple of page 1's: the ratio of their throughputs under the same load. */
function deepCost(report: PortfolioReport, endpoint: Endpoint): number | undefined {
  const first = find(report, endpoint, 'first');
  const deep = find(report, endpoint, 'deep');
  if (!first || !deep || deep.result.requestsPerSecond === 0) return undefined;
  return first.result.requestsPerSecond / deep.result.requestsPerSecond;
}

function floorShare(report: PortfolioReport): number | undefined {
  const api = find(report, 'api', 'first');
  const floor = find(report, 'floor', 'first');
  if (!api || !floor || floor.result.requestsPerSecond === 0) return undefined;
  return api.result.requestsPerSecond / floor.result.requestsPerSecond;
}

export function printPortfolioReport(report: PortfolioReport): TargetResult[] {
  const share = floorShare(report);
  printMarkdownTable(
    [
      'endpoint',
      'page',
      'req/s',
      'p50 ms',
      'p99 ms',
      'mean ms',
      'bytes',
      'SQL/req',
      'CPU ms/req node main/other/postgres',
      'PostgreSQL CPU ms/req (own backends)',
      'busy (others)',
      'api/floor',
      'deep/page 1 cost',
    ],
    report.loads.map((load) => {
      const cost = load.page === 'deep' ? deepCost(report, load.endpoint) : undefined;
      return [
        load.endpoint,
        load.page === 'first' ? '1' : report.deepPage.toLocaleString('en-US'),
        load.result.requestsPerSecond.toFixed(0),
        String(load.result.p50),
        String(load.result.p99),
        load.result.mean.toFixed(2),
        String(load.bytes),
        String(load.statements),
        load.cpu
          ? [load.cpu.mainThreadMs, load.cpu.otherThreadsMs, load.cpu.postgresMs]
              .map((ms) => ms.toFixed(2))
              .join(' / ')
          : 'n/a',
        load.ownPostgresMs === undefined ? 'n/a' : load.ownPostgresMs.toFixed(3),
        load.cpu
          ? `${(load.cpu.machineBusy * 100).toFixed(0)}% (${(load.cpu.otherLoad * 100).toFixed(0)}%)`
          : 'n/a',
        load.endpoint === 'api' && load.page === 'first' && share !== undefined
          ? `${(share * 100).toFixed(1)}%`
          : '',
        cost === undefined ? '' : `${cost.toFixed(2)}x`,
      ];
    }),
  );
  printMarkdownTable(
    [
      'statement (one at a time)',
      'median ms',
      'runs',
      'execution ms',
      'planning ms',
      'blocks',
      'scan of portfolio_companies',
    ],
    report.statements.map((statement) => [
      statement.label,
      statement.medianMs.toFixed(2),
      String(statement.runs),
      statement.executionMs.toFixed(2),
      statement.planningMs.toFixed(2),
      String(statement.blocks),
      statement.scans,
    ]),
  );
  printMarkdownTable(
    ['request (one at a time)', 'total', 'median ms', 'runs'],
    report.requests.map((timedRequest) => [
      timedRequest.label,
      String(timedRequest.total),
      timedRequest.medianMs.toFixed(2),
      String(timedRequest.runs),
    ]),
  );

  const [apiPostgres, floorPostgres] = (['api', 'floor'] as const).map(
    (endpoint) => find(report, endpoint, 'first')?.ownPostgresMs,
  );
  if (apiPostgres !== undefined && floorPostgres !== undefined) {
    console.log(
      `\nPostgreSQL's CPU per answer, page 1 (${LIMIT} companies with their funds), its own backends: ` +
        `API ${apiPostgres.toFixed(3)} ms, floor ${floorPostgres.toFixed(3)} ms.`,
    );
  }
  const cost = deepCost(report, 'api');
  console.log('\nTargets (Portfolio, PostgreSQL):');
  const results: TargetResult[] = [];
  if (cost !== undefined) {
    results.push(
      targetResult(
        `Portfolio deep page ${report.deepPage.toLocaleString('en-US')} costs <= ${PORTFOLIO_TARGETS.deepCost}x page 1`,
        `${cost.toFixed(2)}x`,
        PORTFOLIO_TARGETS.deepCost / cost,
      ),
    );
  }
  if (share !== undefined) {
    results.push(
      targetResult(
        `Portfolio page 1 >= ${PORTFOLIO_TARGETS.floorShare * 100}% of its floor at ${report.companies.toLocaleString('en-US')} companies`,
        `${(share * 100).toFixed(1)}%`,
        share / PORTFOLIO_TARGETS.floorShare,
      ),
    );
  }
  const count = report.statements.find((statement) => statement.label === TOTAL_COUNTED);
  const stored = report.statements.find((statement) => statement.label === TOTAL_STORED);
  if (count && stored) {
    console.log(
      `Cost of total at ${report.companies.toLocaleString('en-US')} companies: count(*) ${count.medianMs.toFixed(1)} ms ` +
        `against ${stored.medianMs.toFixed(2)} ms to read the stored companies_count (page 1 reads it; later pages ` +
        'carry total in the cursor; with updatedSince the first page counts once per walk).',
    );
  }
  console.log(
    `Seeding: ${report.seedSeconds.toFixed(0)} s${report.reused ? ' (an earlier run; reused)' : ''}.`,
  );
  return results;
}
