import { linkExpiry, signedLink } from '../../../files/file-links.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import { effectiveWorkflow, explainEventsFrom } from '../../workflow.ts';
import type { Context } from '../context.ts';
import { relatedKey, type Row } from '../read-model.ts';

/**
 * Fields computed from a row rather than read from a column: a template's (effective) workflow in the API's
 * shape, the events that leave a transaction's state with whether each can happen now and why not, a file's
 * download link. What they need is read with the row (see
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
    availableEvents: (transaction: Row) => {
      const template = transaction[relatedKey('template')] as Row;
      const processes = transaction[relatedKey('transactionProcesses')] as Row[];
      const { workflow } = template.definition as TemplateDefinition;
      return explainEventsFrom(workflow, transaction.state as string, {
        processes: processes.map((process) => ({
          key: process.key as string,
          isComplete: process.isComplete === true,
        })),
      });
    },
  },
  File: {
    signedUrl: (file: Row, _: unknown, { links, baseUrl }: Context) =>
      signedLink(links, { baseUrl, fileId: file.id, expiresAt: linkExpiry() }).url,
  },
};
