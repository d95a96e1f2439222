import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports process CPU time in clock ticks of 10 ms (USER_HZ 100). */
const TICK_MS = 10;

/** CPU time used so far, in clock ticks, read from /proc (Linux); zeros elsewhere. */
export interface CpuSnapshot {
  /** This process' main thread: the servers, Fastify, Mercurius, the pg driver, PGlite. */
  mainThread: number;
  /** This whole process (main thread, the autocannon worker thread, GC and libuv threads). */
  process: number;
  /**
   * Every process named `postgres` on this machine, and those of them that have exited (meaningful when the server
   * is local).
   */
  postgres: number;
  /** The whole machine, busy and idle. */
  machine: number;
  idle: number;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * utime + stime of a /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat file; with `children`, plus cutime + cstime:
 * the time of the children it has reaped.
 */
function ticksOf(statPath: string, children = false): number {
  const stat = read(statPath);
  if (stat === undefined) return 0;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  return children ? own + Number(fields[13] ?? 0) + Number(fields[14] ?? 0) : own;
}

function postgresTicks(): number {
  let sum = 0;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    // With the time of reaped children: when a backend (of any client) or a worker exits during a measurement,
    // its time moves to the postmaster's, so the sum does not drop (it once went negative without this).
    if (read(`/proc/${pid}/comm`)?.trim() === 'postgres') sum += ticksOf(`/proc/${pid}/stat`, true);
  }
  return sum;
}

export function cpuSnapshot(): CpuSnapshot {
  const cpu = (read('/proc/stat')?.split('\n')[0] ?? '').split(/\s+/).slice(1).map(Number);
  return {
    mainThread: ticksOf(`/proc/self/task/${process.pid}/stat`),
    process: ticksOf('/proc/self/stat'),
    postgres: postgresTicks(),
    machine: cpu.reduce((sum, value) => sum + (Number.isFinite(value) ? value : 0), 0),
    idle: (cpu[3] ?? 0) + (cpu[4] ?? 0),
  };
}

export interface CpuPerRequest {
  mainThreadMs: number;
  otherThreadsMs: number;
  postgresMs: number;
  /** Share of the whole machine's CPU time in use (all CPUs), 0–1. */
  machineBusy: number;
  /** Share of the machine's CPU time used by neither this process nor PostgreSQL: other load, noise. */
  otherLoad: number;
}

/** CPU milliseconds per request between two snapshots, and how busy the machine was; undefined without /proc. */
export function cpuPerRequest(
  before: CpuSnapshot,
  after: CpuSnapshot,
  requests: number,
): CpuPerRequest | undefined {
  const machine = after.machine - before.machine;
  if (machine <= 0 || requests === 0) return undefined;
  const per = (ticks: number) => (ticks * TICK_MS) / requests;
  const busy = machine - (after.idle - before.idle);
  const ours = after.process - before.process + (after.postgres - before.postgres);
  return {
    mainThreadMs: per(after.mainThread - before.mainThread),
    otherThreadsMs: per(after.process - after.mainThread - (before.process - before.mainThread)),
    postgresMs: per(after.postgres - before.postgres),
    machineBusy: busy / machine,
    otherLoad: Math.max(0, busy - ours) / machine,
  };
}

/** How a measurement's line ends: its CPU per request and how busy the machine was; nothing off Linux. */
export function describeCpu(cpu: CpuPerRequest | undefined): string {
  if (!cpu) return '';
  return (
    `; CPU ms/request: main thread ${cpu.mainThreadMs.toFixed(2)}, other threads ` +
    `${cpu.otherThreadsMs.toFixed(2)}, postgres ${cpu.postgresMs.toFixed(2)}; ` +
    `machine ${(cpu.machineBusy * 100).toFixed(0)}% busy, ` +
    `${(cpu.otherLoad * 100).toFixed(0)}% by other processes`
  );
}
