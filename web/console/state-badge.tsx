import { Badge } from '@radix-ui/themes';
import type { ComponentProps } from 'react';
import type { QueueRow } from './types.ts';
import { STAGE_WORDS, words } from './words.ts';

/** Where a transaction stands in its state, as the server reads it from the template's workflow. */
export type StateStage = QueueRow['stage'];

/**
 * A stage's colour: blue while the recipient has something to do, amber while the team has, green once completed,
 * red once voided, gray for a state the template no longer lists.
 */
const COLORS: Record<StateStage, NonNullable<ComponentProps<typeof Badge>['color']>> = {
  recipient: 'blue',
  team: 'amber',
  completed: 'green',
  voided: 'red',
  other: 'gray',
};

/**
 * A transaction's state as a badge, in words, coloured by its stage: in the queue's rows and in a transaction's
 * heading. The colour adds to the state's name, never replaces it; its title says what the colour means.
 */
export function StateBadge({
  state,
  stage,
  size = '1',
  title,
}: {
  state: string;
  stage: StateStage;
  size?: '1' | '2';
  /** The state as its template titles it. @default the key in words */
  title?: string | undefined;
}) {
  return (
    <Badge size={size} color={COLORS[stage]} highContrast title={STAGE_WORDS[stage]}>
      {title ?? words(state)}
    </Badge>
  );
}
