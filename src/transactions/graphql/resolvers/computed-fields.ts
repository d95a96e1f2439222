import { linkExpiry, signedLink } from '../../../files/file-links.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import { submissionsOf } from '../../submissions.ts';
import { effectiveWorkflow, eventsFrom, explainEventsFrom, isRecipientEvent } from '../../workflow.ts';
import type { Context } from '../context.ts';
import { relatedKey, type Row } from '../read-model.ts';

/**
 * Fields computed from a row rather than read from a column: a template's (effective) workflow in the API's
 * shape, the events that leave a transaction's state with whether each can happen now and why not (a
 * recipient's event reads what its revision lacks), a file's download link. What they need is read with the row (see
 * `FIELD_NEEDS` in selection.ts).
 */
export const computedFields = {
  Template: {
    workflow: (template: Row) => {
      const workflow = effectiveWorkflow((template.definition as TemplateDefinition).workflow);
      return {
        initialState: workflow.initialState,
        states: workflow.states.map((state) => ({
          ...state,
          final: state.final === true,
          onEnter: state.onEnter ?? [],
        })),
        events: workflow.events,
      };
    },
  },
  Transaction: {
    availableEvents: async (transaction: Row, _: unknown, { db }: Context) => {
      const template = transaction[relatedKey('template')] as Row;
      const processes = transaction[relatedKey('transactionProcesses')] as Row[];
      const definition = template.definition as TemplateDefinition;
      const state = transaction.state as string;
      // A recipient's event leaving this state is allowed only once its revision lacks nothing: read what it lacks.
      const asksRecipientEvent = eventsFrom(definition.workflow, state).some((event) =>
        isRecipientEvent(definition, event.key),
      );
      return explainEventsFrom(definition.workflow, state, {
        processes: processes.map((process) => ({
          key: process.key as string,
          isComplete: process.isComplete === true,
        })),
        submissions: asksRecipientEvent ? await submissionsOf(db, { id: transaction.id, definition }) : [],
      });
    },
  },
  File: {
    signedUrl: (file: Row, _: unknown, { links, baseUrl }: Context) =>
      signedLink(links, { baseUrl, fileId: file.id, expiresAt: linkExpiry() }).url,
  },
};
