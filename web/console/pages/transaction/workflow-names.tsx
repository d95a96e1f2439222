import { createContext, useContext, useMemo, type ReactNode } from 'react';
import type { TransactionDetail } from '../../types.ts';
import { label, words } from '../../words.ts';
import type { WorkflowNames } from './workflow-layout.ts';

/**
 * How a transaction's page names its workflow's states and events: the titles its template gives them (the
 * transaction's `workflowTitles`, read with the transaction), else their keys in words, as the server's refusals
 * name them. Every part of the page reads them here, so a button, a dialog, the drawing and the timeline agree.
 */

type Titles = TransactionDetail['workflowTitles'];

const TitlesContext = createContext<Titles | undefined>(undefined);

/** Gives the parts of a transaction's page its template's titles. */
export function WorkflowTitlesProvider({ titles, children }: { titles: Titles; children: ReactNode }) {
  return <TitlesContext.Provider value={titles}>{children}</TitlesContext.Provider>;
}

export type { WorkflowNames };

/** The names of the page's workflow (keys in words outside a {@link WorkflowTitlesProvider}). */
export function useWorkflowNames(): WorkflowNames {
  const titles = useContext(TitlesContext);
  return useMemo(() => {
    const titled = (table: Record<string, string> | undefined, key: string) =>
      table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
    return {
      state: (key) => titled(titles?.states, key) ?? words(key),
      event: (key) => titled(titles?.events, key) ?? label(key),
    };
  }, [titles]);
}
