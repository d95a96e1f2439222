// What the templates' pages say of a template in words: an import's outcome, a version's use, a change.

import type { SuccessOf } from '../../../../src/http/contract.ts';
import type { ConsoleRoutes } from '../../../../src/transactions/console/contract.ts';
import type {
  TemplateChange,
  TemplateShape,
  TemplateSummary,
} from '../../../../src/transactions/console/templates/templates-contract.ts';
import { locale } from '../../../shared/format.ts';

export type { TemplateChange, TemplateShape, TemplateSummary };
export type ImportOutcome = SuccessOf<ConsoleRoutes['importTemplate']>['template']['outcome'];
export const OUTCOMES: readonly ImportOutcome[] = ['created', 'unchanged', 'updated', 'versioned'];

/** An accepted import in words, as the CLI's `templates import` says it. */
export function outcomeWords(outcome: ImportOutcome, version: number): string {
  switch (outcome) {
    case 'created':
      return 'Imported: a new template.';
    case 'versioned':
      return `Imported as a new version, v${String(version)}: transactions use the previous one, which stays as it was.`;
    case 'updated':
      return `Updated v${String(version)} in place: no transaction uses it yet.`;
    case 'unchanged':
      return `Unchanged: v${String(version)} is already this template.`;
  }
}

/** "1 transaction", "12 transactions". */
export function transactionCount(count: number): string {
  return `${count.toLocaleString(locale)} ${count === 1 ? 'transaction' : 'transactions'}`;
}

/** A change in one sentence: "State Under review: title was in review, now Under review." */
export function changeWords(change: TemplateChange): string {
  const part = change.part.charAt(0).toUpperCase() + change.part.slice(1);
  if (change.kind === 'added') return `${part} added: ${change.name}.`;
  if (change.kind === 'removed') return `${part} removed: ${change.name}.`;
  const shown = (value: string | null) => (value === null || value === '' ? 'none' : value);
  return `${part} ${change.name}: ${change.what ?? 'changed'} was ${shown(change.before)}, now ${shown(change.after)}.`;
}
