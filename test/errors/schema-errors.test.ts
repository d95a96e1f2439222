import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeError } from '../../src/errors.ts';
import { schemaErrorFormatter } from '../../src/validation/schema-errors.ts';

// What a client reads when a route schema refuses its request, through Fastify's own Ajv and TypeBox schemas
// like the services' routes: the parameter or field named, and what it must be in words, never Ajv's text.

const HEX = '^[0-9a-f]+$';

/** An app whose refusals read as `wording` says; `strict` refuses unknown properties, as Portfolio does. */
async function appWith(
  wording: Parameters<typeof schemaErrorFormatter>[0],
  strict = false,
): Promise<FastifyInstance> {
  const app = Fastify(strict ? { ajv: { customOptions: { removeAdditional: false } } } : {});
  app.setSchemaErrorFormatter(schemaErrorFormatter(wording));
  app.setErrorHandler(async (error, _request, reply) => {
    const described = describeError(error);
    return reply
      .code(described.status)
      .send({ code: described.code, message: described.message, details: described.details });
  });
  app.post(
    '/people/:id',
    {
      schema: {
        params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
        querystring: Type.Object(
          {
            search: Type.Optional(Type.String({ minLength: 3, maxLength: 10 })),
            first: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
            color: Type.Optional(Type.String({ pattern: HEX })),
          },
          { additionalProperties: false },
        ),
        body: Type.Object({
          email: Type.String({ format: 'email' }),
          role: Type.Union([Type.Literal('admin'), Type.Literal('viewer')]),
          name: Type.Optional(Type.String({ minLength: 1 })),
          address: Type.Optional(Type.Object({ city: Type.String() })),
          tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
        }),
      },
    },
    () => ({ ok: true }),
  );
  await app.ready();
  return app;
}

const ID = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';
const GOOD = { email: 'ada@example.com', role: 'admin' };

describe('a route schema refusal, in words', () => {
  let app: FastifyInstance;
  let portfolioLike: FastifyInstance;
  beforeAll(async () => {
    app = await appWith({});
    portfolioLike = await appWith(
      { patterns: { [HEX]: 'must be hexadecimal digits' }, parameterKey: 'parameter' },
      true,
    );
  });
  afterAll(async () => {
    await app.close();
    await portfolioLike.close();
  });

  const refused = async (
    target: FastifyInstance,
    url: string,
    payload: unknown = GOOD,
  ): Promise<{ code: string; message: string; details?: Record<string, string> }> => {
    const response = await target.inject({
      method: 'POST',
      url,
      payload: payload as Record<string, unknown>,
    });
    expect(response.statusCode).toBe(400);
    return response.json();
  };

  it.each([
    [`/people/42`, GOOD, 'The path parameter "id" must be a UUID.', { field: 'id' }],
    [
      `/people/${ID}?search=${'x'.repeat(11)}`,
      GOOD,
      'The query parameter "search" must be at most 10 characters.',
      { field: 'search' },
    ],
    [
      `/people/${ID}?search=ab`,
      GOOD,
      'The query parameter "search" must be at least 3 characters.',
      { field: 'search' },
    ],
    [
      `/people/${ID}?first=x`,
      GOOD,
      'The query parameter "first" must be a whole number.',
      { field: 'first' },
    ],
    [`/people/${ID}?first=99`, GOOD, 'The query parameter "first" must be <= 50.', { field: 'first' }],
    [
      `/people/${ID}?color=zz`,
      GOOD,
      'The query parameter "color" is not in the form it takes.',
      { field: 'color' },
    ],
    [`/people/${ID}`, { role: 'admin' }, 'The field "email" is missing.', { field: 'email' }],
    [
      `/people/${ID}`,
      { ...GOOD, email: 'ada' },
      'The field "email" must be an e-mail address.',
      { field: 'email' },
    ],
    [
      `/people/${ID}`,
      { ...GOOD, role: 'owner' },
      'The field "role" must be one of "admin", "viewer".',
      { field: 'role' },
    ],
    [`/people/${ID}`, { ...GOOD, name: '' }, 'The field "name" must not be empty.', { field: 'name' }],
    [
      `/people/${ID}`,
      { ...GOOD, address: {} },
      'The field "address.city" is missing.',
      { field: 'address.city' },
    ],
    [
      `/people/${ID}`,
      { ...GOOD, tags: ['a', 'b', 'c'] },
      'The field "tags" must hold at most 2 items.',
      { field: 'tags' },
    ],
    [`/people/${ID}`, ['not', 'an', 'object'], 'The body must be a JSON object.', undefined],
  ])('answers %s with %j as BAD_USER_INPUT: %s', async (url, payload, message, details) => {
    expect(await refused(app, url, payload)).toEqual({
      code: 'BAD_USER_INPUT',
      message,
      ...(details ? { details } : {}),
    });
  });

  it("words a service's own patterns, refuses unknown parameters where the service does, and names a parameter in details.parameter where it says so", async () => {
    expect(await refused(portfolioLike, `/people/${ID}?color=zz`)).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'The query parameter "color" must be hexadecimal digits.',
      details: { parameter: 'color' },
    });
    expect(await refused(portfolioLike, `/people/${ID}?colour=ff`)).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'Unknown query parameter "colour".',
      details: { parameter: 'colour' },
    });
    expect((await refused(portfolioLike, `/people/${ID}`, { role: 'admin' })).details).toEqual({
      field: 'email',
    });
  });
});
