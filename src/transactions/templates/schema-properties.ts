/**
 * The properties an object schema may have, wherever it declares them: its `properties`, and those of its
 * conditional parts (`then`, `else`, `allOf`, `anyOf`, `oneOf`, `dependencies`), which a form shows only while
 * their condition holds (a date of birth for an individual, not a trust). The first declaration of a name wins.
 * Shared by the server and the recipient portal's pages.
 *
 * @example
 * declaredProperties({ properties: { kind: {} }, then: { properties: { born: {} } } }); // { kind: {}, born: {} }
 */
export function declaredProperties(schema: unknown): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  const visit = (node: unknown, depth: number) => {
    if (!isObject(node) || depth > 8) return;
    if (isObject(node.properties)) {
      for (const [name, property] of Object.entries(node.properties)) {
        if (!Object.hasOwn(found, name)) found[name] = property;
      }
    }
    for (const part of [node.then, node.else]) visit(part, depth + 1);
    for (const list of [node.allOf, node.anyOf, node.oneOf]) {
      if (Array.isArray(list)) for (const part of list) visit(part, depth + 1);
    }
    if (isObject(node.dependencies)) {
      for (const dependency of Object.values(node.dependencies)) visit(dependency, depth + 1);
    }
  };
  visit(schema, 0);
  return found;
}

/** Whether `name` is declared only in a conditional part of the schema, not in its own `properties`. */
export function isConditional(schema: unknown, name: string): boolean {
  const own = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  return !Object.hasOwn(own, name) && Object.hasOwn(declaredProperties(schema), name);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
