import { linkExpiry, signedLink } from '../../../files/file-links.ts';
import { allProcessesComplete } from '../../completion.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import { allowedEvents } from '../../workflow.ts';
import type { Context } from '../context.ts';
import { relatedKey, type Row } from '../read-model.ts';

/**
 * Fields computed from a row rather than read from a column: a template's workflow in the API's shape, the
 * events a transaction allows now, a file's download link. What they need is read with the row (see
 * `FIELD_NEEDS` in selection.ts).
 */
export const computedFields = {
  Template: {
    workflow: (template: Row) => {
      const { workflow } = template.definition as TemplateDefinition;
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
      return allowedEvents(workflow, transaction.state as string, {
        allProcessesComplete: allProcessesComplete(
          processes.map((process) => ({ isComplete: process.isComplete === true })),
        ),
      });
    },
  },
  File: {
    signedUrl: (file: Row, _: unknown, { links, baseUrl }: Context) =>
      signedLink(links, { baseUrl, fileId: file.id, expiresAt: linkExpiry() }).url,
  },
};
