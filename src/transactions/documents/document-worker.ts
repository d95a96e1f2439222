// The entry of a document worker thread (document-workers.ts). Node loads it as it is written (type stripping:
// keep this file to erasable syntax), in every way Portico runs: under Vitest, under tsx and from the start
// bundle. It registers tsx in the thread before importing the task module, whose imports (pdf-writer.ts's
// parameter properties) Node's type stripping cannot run.
import { register } from 'tsx/esm/api';
import type { DocumentTask } from './document-workers.ts';

register();
const tasks = import('./document-tasks.ts');

/** Piscina calls the default export with each task. */
export default async function run(task: DocumentTask): Promise<unknown> {
  const { runDocumentTask } = await tasks;
  return runDocumentTask(task);
}
