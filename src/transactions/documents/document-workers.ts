import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { documentTooComplex, documentWorkersBusy } from '../../errors.ts';
import type { PdfInspection } from './agreement-pdf.ts';
import type { RenderJob } from './document-pdf.ts';
import { AppError, type ErrorCode } from '../../errors.ts';
import type { Preflight } from '../console/closings/preflight.ts';
import type { TemplateDefinition } from '../templates/schema.ts';
import type { TemplateCheck } from '../templates/template-check.ts';
import type { SealCredential } from '../evidence/seal-credential.ts';
import type { SealKeeper } from '../evidence/seal-keeper.ts';
import type { CertificateFacts } from '../evidence/certificate-pdf.ts';
import type { Logger } from 'pino';

/** What a document worker is asked to do (document-tasks.ts runs it in the thread). */
export type DocumentTask =
  | { kind: 'render'; job: RenderJob; seal?: SealCredential | undefined }
  | { kind: 'certify'; facts: CertificateFacts; seal?: SealCredential | undefined }
  | { kind: 'inspect'; bytes: Uint8Array }
  | { kind: 'preflight'; definition: TemplateDefinition; bytes: Uint8Array }
  | { kind: 'checkTemplate'; source: string };

/**
 * A closing's list read and checked, or the refusal of its file as it crosses back to the main thread (an
 * AppError arrives there as a plain Error).
 */
export type PreflightOutcome =
  | { ok: true; preflight: Preflight }
  | { ok: false; code: ErrorCode; message: string; details: Record<string, unknown> | undefined };

/**
 * The threads that make and read PDFs, off the event loop: a document laid out from a hostile answer, or a fund's
 * PDF of tens of megabytes, takes seconds of CPU that would otherwise hold every request of the process
 * (docs/operations.md, "What runs in the worker pool").
 */
export interface DocumentWorkers {
  /**
   * Makes a document's PDF, sealed with its organization's seal (`sealOf`) unless it is a preview;
   * DOCUMENT_TOO_COMPLEX past the time limit, SERVICE_UNAVAILABLE when busy.
   */
  render(job: RenderJob): Promise<Uint8Array>;
  /**
   * Makes a transaction's certificate of completion (evidence/certificate-pdf.ts), sealed and timestamped as a
   * signed document is; DOCUMENT_TOO_COMPLEX past the time limit, SERVICE_UNAVAILABLE when busy.
   */
  certify(facts: CertificateFacts): Promise<Uint8Array>;
  /**
   * Reads a fund's PDF as a template import checks it (agreement-pdf.ts `inspectPdf`); past the time limit or
   * the memory, an inspection that says so rather than an error, as the import lists it with the PDF's other
   * problems.
   */
  inspect(bytes: Uint8Array): Promise<PdfInspection>;
  /**
   * Reads a closing's list of investors (a CSV or XLSX file) and checks each row against the template
   * (console/closings/preflight.ts); the file's refusals as AppErrors, DOCUMENT_TOO_COMPLEX past the time limit
   * or the memory.
   */
  preflight(definition: TemplateDefinition, bytes: Uint8Array): Promise<Preflight>;
  /**
   * Reads a template file and checks it (templates/validation.ts `checkTemplate`): its YAML read and every rule
   * checked take seconds for a large hostile file. DOCUMENT_TOO_COMPLEX past the time limit or the memory.
   */
  checkTemplate(source: string): Promise<TemplateCheck>;
  /**
   * How long one task may run, in milliseconds, before its thread is terminated and replaced. Tests change it
   * on a pool of their own. @default DOCUMENT_TIME_LIMIT_MS
   */
  timeLimitMs: number;
  /**
   * Starts the first thread now rather than with the first task. A thread's start costs a second or more of CPU
   * (it loads the task module's dependencies), so `serve` calls this once its services listen, out of their way.
   */
  start(): void;
  /** Refuses new tasks and those waiting, lets running ones finish for `graceMs`, then terminates the threads. */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** How long one document may take to make or read: a 10 MB fund PDF is read and written in a few seconds. */
export const DOCUMENT_TIME_LIMIT_MS = 15_000;
/**
 * The heap of one worker: pdf-lib holds a parsed fund PDF in a few times its size; a document that needs more is
 * refused rather than taking the process's memory. Bytes of PDFs (ArrayBuffers) are outside it: the template
 * import bounds what a fund PDF inflates to (pdf-inflation.ts).
 */
export const DOCUMENT_WORKER_HEAP_MB = 256;
/** Tasks that wait for a thread at most; more are refused with SERVICE_UNAVAILABLE. */
export const DOCUMENT_QUEUE_LIMIT = 32;
/** Two threads at most, one on a machine of two cores or fewer: the event loop keeps a core. */
const THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));
const RETRY_AFTER_SECONDS = 5;

// The worker loads a small bootstrap that registers tsx and then imports the TypeScript task module, so that
// the same file works under Vitest, under tsx and from the esbuild start bundle (whose `import.meta.url` names
// this source file: bin/start-build.js).
const BOOTSTRAP = fileURLToPath(new URL('./document-worker.ts', import.meta.url));

/** What piscina and Node reject a task with when it was aborted or its thread ran out of memory. */
function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
function isOutOfMemory(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

/** The time limit as a person reads it: "15 s", "250 ms". */
function shownLimit(ms: number): string {
  return ms >= 1000 ? `${String(Math.round(ms / 1000))} s` : `${String(ms)} ms`;
}

/**
 * A pool of document workers. Tasks wait here, not in piscina's queue, so that the time limit counts from the
 * moment a thread takes the task: a task that waited behind others is not refused for their slowness, and an
 * aborted task is always a running one, whose thread piscina terminates and replaces.
 */
export function createDocumentWorkers(
  options: {
    timeLimitMs?: number;
    threads?: number;
    queueLimit?: number;
    /** Seals each signed document (evidence/pades.ts) of every organization, where `seals` is not given. */
    seal?: SealCredential | undefined;
    /** Each organization's seal (evidence/seal-keeper.ts); without it or `seal`, documents are made unsealed. */
    seals?: SealKeeper | undefined;
    /** The RFC 3161 timestamp authority that timestamps each seal (evidence/timestamp.ts), if any. */
    timestampAuthority?: string | undefined;
    /** Where a seal that went without its timestamp is said. */
    logger?: Logger | undefined;
  } = {},
): DocumentWorkers {
  const threads = options.threads ?? THREADS;
  const queueLimit = options.queueLimit ?? DOCUMENT_QUEUE_LIMIT;
  // Made with the first task, or by start(): piscina starts its first thread as it is made.
  let pool: Piscina<DocumentTask, unknown> | undefined;
  const poolOf = () =>
    (pool ??= new Piscina<DocumentTask, unknown>({
      filename: BOOTSTRAP,
      minThreads: 1,
      maxThreads: threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: DOCUMENT_WORKER_HEAP_MB },
    }));
  let running = 0;
  let closed = false;
  const waiting: { start: () => void; refuse: (error: Error) => void }[] = [];
  const turn = (): Promise<void> => {
    if (closed) return Promise.reject(documentWorkersBusy(RETRY_AFTER_SECONDS));
    if (running < threads) {
      running += 1;
      return Promise.resolve();
    }
    if (waiting.length >= queueLimit) return Promise.reject(documentWorkersBusy(RETRY_AFTER_SECONDS));
    return new Promise((start, refuse) => waiting.push({ start, refuse }));
  };
  const done = () => {
    const next = waiting.shift();
    if (next) next.start();
    else running -= 1;
  };
  const inFlight = new Set<Promise<unknown>>();

  async function run(task: DocumentTask): Promise<unknown> {
    await turn();
    const limit = workers.timeLimitMs;
    const ran = poolOf().run(task, { signal: AbortSignal.timeout(limit) });
    inFlight.add(ran);
    try {
      return await ran;
    } finally {
      inFlight.delete(ran);
      done();
    }
  }

  /**
   * Runs a task that reads what a client sent: past the time limit or the memory, DOCUMENT_TOO_COMPLEX in the
   * words `refusal` gives the limit.
   */
  async function readWithin(task: DocumentTask, refusal: (limit: string) => string): Promise<unknown> {
    try {
      return await run(task);
    } catch (error) {
      if (closed) throw documentWorkersBusy(RETRY_AFTER_SECONDS);
      const limit = isAbort(error)
        ? shownLimit(workers.timeLimitMs)
        : isOutOfMemory(error)
          ? `the ${String(DOCUMENT_WORKER_HEAP_MB)} MB of memory allowed`
          : undefined;
      if (limit === undefined) throw error;
      throw new AppError('DOCUMENT_TOO_COMPLEX', refusal(limit), { limit });
    }
  }

  /** The seal of an organization's documents: the one place a task that seals chooses it. */
  function sealOf(organizationId: string): SealCredential | undefined {
    return options.seals?.sealFor(organizationId) ?? options.seal;
  }

  /**
   * A sealed document with its seal timestamped, when an authority is set; without it, and said, when the
   * authority does not answer or answers wrong: the signing that completed the document is not undone for it.
   */
  async function timestamped(pdf: Uint8Array): Promise<Uint8Array> {
    const url = options.timestampAuthority;
    if (url === undefined) return pdf;
    const { timestampSealedPdf, TimestampError } = await import('../evidence/timestamp.ts');
    try {
      return await timestampSealedPdf(pdf, url);
    } catch (error) {
      if (!(error instanceof TimestampError)) throw error;
      options.logger?.warn(
        { problem: error.message },
        'a signed document was sealed without its timestamp: the seal proves it unchanged, but not since when',
      );
      return pdf;
    }
  }

  const workers: DocumentWorkers = {
    timeLimitMs: options.timeLimitMs ?? DOCUMENT_TIME_LIMIT_MS,
    async render(job) {
      try {
        const seal = job.preview ? undefined : sealOf(job.organizationId);
        const pdf = (await run({ kind: 'render', job, seal })) as Uint8Array;
        return seal === undefined ? pdf : await timestamped(pdf);
      } catch (error) {
        // Terminated as the server stops: the client may try again on another node.
        if (closed) throw documentWorkersBusy(RETRY_AFTER_SECONDS);
        if (isAbort(error)) throw documentTooComplex('The document', shownLimit(workers.timeLimitMs));
        if (isOutOfMemory(error)) {
          throw documentTooComplex(
            'The document',
            `the ${String(DOCUMENT_WORKER_HEAP_MB)} MB of memory allowed`,
          );
        }
        throw error;
      }
    },
    async certify(facts) {
      const seal = sealOf(facts.organizationId);
      const pdf = (await readWithin(
        { kind: 'certify', facts, seal },
        (limit) => `The certificate of completion could not be made within ${limit}.`,
      )) as Uint8Array;
      return seal === undefined ? pdf : await timestamped(pdf);
    },
    async inspect(bytes) {
      try {
        return (await run({ kind: 'inspect', bytes })) as PdfInspection;
      } catch (error) {
        // Terminated as the server stops: the client may try again on another node.
        if (closed) throw documentWorkersBusy(RETRY_AFTER_SECONDS);
        if (isAbort(error)) {
          return { ok: false, message: `could not be read within ${shownLimit(workers.timeLimitMs)}` };
        }
        if (isOutOfMemory(error)) {
          return {
            ok: false,
            message: `needs more than the ${String(DOCUMENT_WORKER_HEAP_MB)} MB of memory a PDF may take to read`,
          };
        }
        throw error;
      }
    },
    async preflight(definition, bytes) {
      const outcome = (await readWithin(
        { kind: 'preflight', definition, bytes },
        (limit) => `The list could not be read within ${limit}: split it into smaller files.`,
      )) as PreflightOutcome;
      if (!outcome.ok) throw new AppError(outcome.code, outcome.message, outcome.details);
      return outcome.preflight;
    },
    async checkTemplate(source) {
      return (await readWithin(
        { kind: 'checkTemplate', source },
        (limit) => `The template could not be checked within ${limit}: it is far larger than a template is.`,
      )) as TemplateCheck;
    },
    start() {
      if (!closed) poolOf();
    },
    async close(closing = {}) {
      if (closed) return;
      closed = true;
      for (const task of waiting.splice(0)) task.refuse(documentWorkersBusy(RETRY_AFTER_SECONDS));
      const grace = new Promise<void>((resolve) => setTimeout(resolve, closing.graceMs ?? 2000).unref());
      await Promise.race([Promise.allSettled([...inFlight]), grace]);
      // Terminates what still runs: its callers get SERVICE_UNAVAILABLE, and the stop is not held by it.
      await pool?.destroy();
    },
  };
  return workers;
}

let shared: DocumentWorkers | undefined;

/**
 * The process's document workers, started on first use, for what is not given a pool of its own (`portico
 * serve` gives its services one, which it closes as it stops): the template import (in the serving process
 * through the admin socket, or in the `portico` command), the demo's seeding, tests. Idle threads do not keep a
 * process alive.
 */
export function documentWorkers(): DocumentWorkers {
  shared ??= createDocumentWorkers();
  return shared;
}
