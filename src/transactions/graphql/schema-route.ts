import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { printedSdl, sdlEtag } from './sdl.ts';

/** Where the SDL of the GraphQL API is served, beside the endpoint. */
export const SCHEMA_SDL_PATH = '/beta/schema.graphql';

/** How long a client may reuse the SDL without asking again, in seconds (then it revalidates by ETag). */
const SDL_MAX_AGE_SECONDS = 300;

/** Whether an If-None-Match header names `etag` (a list of tags, weak or strong, or `*`). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

/**
 * Serves the SDL of the executable `schema` at `GET /beta/schema.graphql` as `text/plain; charset=utf-8` (what
 * GraphQL Code Generator, gql.tada and the GraphQL CLI read from a URL ending in `.graphql`), behind the same API
 * key check and error handler as the endpoint, so that it is refused exactly as introspection is. The answer is
 * private to the key's holder, reusable for 5 minutes and revalidated by its ETag (304 when unchanged).
 */
export async function registerSchemaRoute(
  app: FastifyInstance,
  options: {
    schema: GraphQLSchema;
    /** The endpoint's API key check (hooks.ts). */
    authenticate: onRequestAsyncHookHandler;
    /** The endpoint's error handler, so a refusal has the endpoint's shape. */
    errorHandler: (error: unknown, request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  },
): Promise<void> {
  const sdl = printedSdl(options.schema);
  const etag = sdlEtag(sdl);
  // Encapsulated, so that the error handler answers for this route only.
  await app.register((route, _options, done) => {
    route.setErrorHandler(options.errorHandler);
    route.get(
      SCHEMA_SDL_PATH,
      // The rate limiter counts the request against its key, as on the endpoint (http/rate-limit.ts).
      { config: { apiKey: true }, onRequest: options.authenticate },
      async (request, reply) => {
        void reply
          .header('etag', etag)
          .header('cache-control', `private, max-age=${SDL_MAX_AGE_SECONDS}`)
          .header('vary', 'authorization');
        if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();
        return reply.type('text/plain; charset=utf-8').send(sdl);
      },
    );
    done();
  });
}
