/** A value of the schema's `json`/`JSON` scalars: any JSON value (ECMA-404), as `JSON.parse` returns it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
