/** An id as both APIs print it: a UUID in lower case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The same, found anywhere in a text (a CLI's output, say). */
export const UUID_IN_TEXT = new RegExp(UUID.source.slice(1, -1));
