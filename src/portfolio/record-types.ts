/**
 * The three kinds of record an import holds, named as in the JSON document and the API. A file of its own so
 * that the CLI can offer them as choices without loading the file readers.
 */
export const RECORD_TYPES = ['companies', 'updates', 'investments'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
