import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { lazySerializers, lazyValidators } from '../../src/http/lazy-compilers.ts';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** One route that validates each part of a request (coercing its query) and declares its answer. */
async function appWith(options: FastifyServerOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, ...options });
  apps.push(app);
  app.post(
    '/items/:id',
    {
      schema: {
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        querystring: Type.Object({ tags: Type.Array(Type.String()), limit: Type.Integer({ default: 10 }) }),
        body: Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ id: Type.Integer(), tags: Type.Array(Type.String()), limit: Type.Integer() }),
        },
      },
    },
    (request) => {
      const { id } = request.params as { id: number };
      const { tags, limit } = request.query as { tags: string[]; limit: number };
      return { id, tags, limit, secret: 'not in the answer schema' };
    },
  );
  await app.ready();
  return app;
}

describe('validators and serializers compiled on first use', () => {
  it('accepts, coerces, refuses and answers every request as the compilers Fastify runs at start do', async () => {
    const eager = await appWith({});
    const lazy = await appWith({
      schemaController: {
        compilersFactory: { buildValidator: lazyValidators(), buildSerializer: lazySerializers },
      },
    });
    const requests = [
      { url: '/items/7?tags=a', payload: { name: 'x' } },
      { url: '/items/7?tags=a&tags=b&limit=3', payload: { name: 'x' } },
      { url: '/items/0?tags=a', payload: { name: 'x' } },
      { url: '/items/7', payload: { name: 'x' } },
      { url: '/items/7?tags=a&limit=many', payload: { name: 'x' } },
      { url: '/items/7?tags=a', payload: { name: '', extra: true } },
      { url: '/items/7?tags=a', payload: [] },
    ];
    for (const request of requests) {
      const [expected, actual] = await Promise.all(
        [eager, lazy].map((app) => app.inject({ method: 'POST', ...request })),
      );
      expect({ status: actual?.statusCode, body: actual?.body }).toEqual({
        status: expected?.statusCode,
        body: expected?.body,
      });
    }
  });

  it('refuses at start a header schema that names a header otherwise than in lower case', async () => {
    const app = Fastify({
      logger: false,
      schemaController: { compilersFactory: { buildValidator: lazyValidators() } },
    });
    apps.push(app);
    app.get('/', { schema: { headers: Type.Object({ 'X-Token': Type.String() }) } }, () => 'ok');
    await expect(app.ready()).rejects.toThrow(/X-Token.*lower case/);
  });
});
