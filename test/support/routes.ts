import type { FastifyInstance } from 'fastify';

/** One method on one path of an app, as Fastify routes it (`GET /v1/external/companies`). */
export interface AppRoute {
  method: string;
  url: string;
}

/**
 * Every route of a ready app, read from `app.printRoutes()`: the apps register routes while they are built (and
 * Portfolio's build ends with `ready()`), so an `onRoute` hook added afterwards would see none of them. The
 * printed tree nests a path's children four columns further in; each line names its segment and its methods.
 *
 * @example
 * routesOf(app); // [{ method: 'GET', url: '/healthz' }, { method: 'HEAD', url: '/healthz' }, …]
 */
export function routesOf(app: FastifyInstance): AppRoute[] {
  const routes: AppRoute[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^(.*?)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const [, indent = '', segment = '', methods] = match;
    const depth = indent.length / 4;
    parents.length = depth;
    const url = `${parents.join('')}${segment}`;
    parents.push(segment);
    for (const method of methods?.split(',') ?? []) routes.push({ method: method.trim(), url });
  }
  return routes.toSorted((a, b) => `${a.url} ${a.method}`.localeCompare(`${b.url} ${b.method}`));
}

/** `GET /healthz`: how a route is named in the tables of routes. */
export function routeName(route: AppRoute): string {
  return `${route.method} ${route.url}`;
}
