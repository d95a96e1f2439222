import { describe, expect, it } from 'vitest';
import {
  allSubmitted,
  findStep,
  leftToDo,
  nextStepToDo,
  stepsOf,
  type Step,
} from '../../web/recipient/steps.ts';
import type { Item, Process, RecipientView, SignableDocument } from '../../web/recipient/types.ts';

function item(vulcanKey: string, completionPercentage: number): Item {
  return {
    vulcanKey,
    title: vulcanKey.replaceAll('_', ' '),
    schema: { type: 'object' },
    ui: null,
    uploads: {},
    money: {},
    data: {},
    previousData: null,
    completionPercentage,
    consents: {},
    files: [],
    comments: [],
  };
}

function document(key: string, signedBy: string[], signedByNow: string[] = []): SignableDocument {
  return {
    key,
    title: key,
    signedBy,
    signatures: signedByNow.map((role) => ({ role, signedName: role, signedAt: '2026-11-24T12:00:00Z' })),
    canSign: true,
    state: 'PENDING',
    previewUrl: `/preview/${key}`,
    signedFile: null,
  };
}

function process(
  key: string,
  items: Item[],
  documents: SignableDocument[],
  committedAt: string | null = null,
) {
  const made: Process = {
    key,
    title: key,
    revision: { number: 1, committedAt, changesRequested: null },
    items,
    documents,
  };
  return made;
}

function view(processes: Process[]): RecipientView {
  return {
    transaction: { id: 'tx-1', state: 'open', stateDescription: null, completedAt: null },
    organization: { name: 'Acme Capital' },
    template: { name: 'Subscription' },
    recipient: { role: 'investor', name: 'Ada', email: 'ada@example.com' },
    link: { expiresAt: '2027-02-22T00:00:00Z' },
    esign: { disclosure: { text: 'Disclosure.', source: 'default', sha256: '0'.repeat(64) }, standing: null },
    processes,
  };
}

const subscription = process(
  'subscription',
  [item('investor_details', 100), item('tax form', 40)],
  [document('agreement', ['investor', 'sponsor'], []), document('side letter', ['sponsor'])],
);

describe('stepsOf', () => {
  it('makes a step per item, one to sign what the recipient signs, and one to submit, in that order', () => {
    const steps = stepsOf(view([subscription]));
    expect(steps.map((step) => [step.kind, step.path, step.state, step.progress])).toEqual([
      ['item', 'subscription/items/investor_details', 'done', 'Done'],
      ['item', 'subscription/items/tax%20form', 'started', '40% done'],
      ['sign', 'subscription/sign', 'todo', 'To sign'],
      ['submit', 'subscription/submit', 'todo', 'To submit'],
    ]);
  });

  it('has no signing step when the recipient signs nothing, and counts what is signed', () => {
    const nothingToSign = process('kyc', [item('identity', 0)], [document('letter', ['sponsor'])]);
    expect(stepsOf(view([nothingToSign])).map((step) => step.kind)).toEqual(['item', 'submit']);
    const halfSigned = process(
      'funds',
      [],
      [document('one', ['investor'], ['investor']), document('two', ['investor'])],
    );
    const sign = stepsOf(view([halfSigned])).find((step) => step.kind === 'sign');
    expect([sign?.state, sign?.progress]).toEqual(['started', '1 of 2 signed']);
  });
});

describe('where the recipient stands', () => {
  it('goes next to the first step not done', () => {
    const steps = stepsOf(view([subscription]));
    expect(nextStepToDo(steps)?.path).toBe('subscription/items/tax%20form');
    expect(nextStepToDo(steps.slice(0, 1))).toBeUndefined();
  });

  it('lists the unfinished items and the documents the recipient still signs', () => {
    const left = leftToDo(subscription, 'investor');
    expect(left.items.map((each) => each.vulcanKey)).toEqual(['tax form']);
    expect(left.documents.map((each) => each.key)).toEqual(['agreement']);
  });

  it('is all submitted only when every process is, and there is one', () => {
    expect(allSubmitted(view([]))).toBe(false);
    expect(allSubmitted(view([subscription]))).toBe(false);
    expect(allSubmitted(view([process('done', [], [], '2026-11-24T12:00:00Z')]))).toBe(true);
  });
});

describe('findStep', () => {
  const steps: Step[] = stepsOf(view([subscription, process('kyc', [item('tax form', 0)], [])]));

  it('finds the step an address names, with its place among the steps', () => {
    const found = findStep(steps, 'item', { processKey: 'kyc', vulcanKey: 'tax form' });
    expect(found?.index).toBe(4);
    expect(found?.step.process.key).toBe('kyc');
    expect(findStep(steps, 'sign', { processKey: 'subscription' })?.index).toBe(2);
    expect(findStep(steps, 'submit', { processKey: 'kyc' })?.step.path).toBe('kyc/submit');
  });

  it('finds nothing for a mistyped address or a step of another kind', () => {
    expect(findStep(steps, 'item', { processKey: 'kyc', vulcanKey: 'missing' })).toBeUndefined();
    expect(findStep(steps, 'sign', { processKey: 'kyc' })).toBeUndefined();
    expect(findStep(steps, 'submit', {})).toBeUndefined();
  });
});
