// The steps of the portal, from the view: one per item to fill in, one to sign (when the recipient signs
// something), one to review and submit, for each process; their addresses and how far each has come.

import type { Item, Process, RecipientView, SignableDocument } from './types.ts';

export type StepState = 'done' | 'started' | 'todo';

interface StepBase {
  /** Its address under `/r/<token>/`, e.g. `subscription/items/investor_details`. */
  path: string;
  title: string;
  process: Process;
  state: StepState;
  /** How far it has come, in words: `Done`, `60% done`, `To sign`, `Submitted`. */
  progress: string;
}

export type Step =
  | (StepBase & { kind: 'item'; item: Item })
  | (StepBase & { kind: 'sign'; documents: SignableDocument[] })
  | (StepBase & { kind: 'submit' });

/** The documents of a process that `role` signs. */
export function documentsSignedBy(process: Process, role: string): SignableDocument[] {
  return process.documents.filter((document) => document.signedBy.includes(role));
}

/** Whether `role` has signed the document in this revision. */
export function signedBy(document: SignableDocument, role: string): boolean {
  return document.signatures.some((signature) => signature.role === role);
}

/** Whether the process's latest revision was submitted (it is then read-only). */
export const submitted = (process: Process) => process.revision.committedAt !== null;

const itemPath = (process: Process, item: Item) =>
  `${encodeURIComponent(process.key)}/items/${encodeURIComponent(item.vulcanKey)}`;

/** The steps of every process of the view, in order. */
export function stepsOf(view: RecipientView): Step[] {
  const role = view.recipient.role;
  return view.processes.flatMap((process): Step[] => {
    const items = process.items.map((item): Step => ({
      kind: 'item',
      item,
      process,
      path: itemPath(process, item),
      title: item.title,
      state: item.completionPercentage >= 100 ? 'done' : item.completionPercentage > 0 ? 'started' : 'todo',
      progress:
        item.completionPercentage >= 100
          ? 'Done'
          : item.completionPercentage > 0
            ? `${String(item.completionPercentage)}% done`
            : 'To fill in',
    }));
    const mine = documentsSignedBy(process, role);
    const signed = mine.filter((document) => signedBy(document, role)).length;
    const sign: Step[] =
      mine.length === 0
        ? []
        : [
            {
              kind: 'sign',
              documents: mine,
              process,
              path: `${encodeURIComponent(process.key)}/sign`,
              title: 'Sign',
              state: signed === mine.length ? 'done' : signed > 0 ? 'started' : 'todo',
              progress:
                signed === mine.length
                  ? 'Signed'
                  : signed > 0
                    ? `${String(signed)} of ${String(mine.length)} signed`
                    : 'To sign',
            },
          ];
    const submit: Step = {
      kind: 'submit',
      process,
      path: `${encodeURIComponent(process.key)}/submit`,
      title: 'Review and submit',
      state: submitted(process) ? 'done' : 'todo',
      progress: submitted(process) ? 'Submitted' : 'To submit',
    };
    return [...items, ...sign, submit];
  });
}

/** The first step not done yet, or undefined when all are. */
export function nextStepToDo(steps: readonly Step[]): Step | undefined {
  return steps.find((step) => step.state !== 'done');
}

/** What is left before a process can be submitted: items below 100%, documents the recipient has to sign. */
export function leftToDo(process: Process, role: string): { items: Item[]; documents: SignableDocument[] } {
  return {
    items: process.items.filter((item) => item.completionPercentage < 100),
    documents: documentsSignedBy(process, role).filter((document) => !signedBy(document, role)),
  };
}

/** Whether every process's latest revision was submitted: the portal then shows where things stand. */
export function allSubmitted(view: RecipientView): boolean {
  return view.processes.length > 0 && view.processes.every(submitted);
}

/** A step of one kind: `Step<'sign'>`. */
export type StepOf<Kind extends Step['kind']> = Extract<Step, { kind: Kind }>;

const isKind = <Kind extends Step['kind']>(step: Step, kind: Kind): step is StepOf<Kind> =>
  step.kind === kind;

/**
 * The step of `kind` that an address names (`:processKey`, and an item's `:vulcanKey`), with its place among
 * `steps`; undefined when it names none (mistyped, or a step the template no longer has).
 *
 * @example
 * const found = findStep(steps, 'sign', useParams());
 */
export function findStep<Kind extends Step['kind']>(
  steps: readonly Step[],
  kind: Kind,
  address: { processKey?: string | undefined; vulcanKey?: string | undefined },
): { step: StepOf<Kind>; index: number } | undefined {
  const index = steps.findIndex(
    (step) =>
      step.kind === kind &&
      step.process.key === address.processKey &&
      (step.kind !== 'item' || step.item.vulcanKey === address.vulcanKey),
  );
  const step = steps[index];
  return step !== undefined && isKind(step, kind) ? { step, index } : undefined;
}
