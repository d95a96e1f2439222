import type { TemplateDefinition } from './templates/schema.ts';

/**
 * The state of one transaction while a change is applied to it. Every change runs inside the caller's database
 * transaction (see `idempotent`), so a change, its event log entry, its outbox rows and the completion it
 * causes commit together or not at all.
 */
export interface Subject {
  id: string;
  organizationId: string;
  senderEntityId: string;
  definition: TemplateDefinition;
  inputData: Record<string, unknown>;
}
