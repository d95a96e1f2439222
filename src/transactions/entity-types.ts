/**
 * What kind of party an entity is, as stored (the GraphQL enum `EntityType` in upper case). A file of its own so
 * that the CLI can offer the choices without loading the domain.
 */
export const ENTITY_TYPES = [
  'individual',
  'joint',
  'trust',
  'company',
  'partnership',
  'fund',
  'retirement_account',
  'other',
] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];
