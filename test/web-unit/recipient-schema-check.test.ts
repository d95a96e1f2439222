import { describe, expect, it } from 'vitest';
import { schemaProblems } from '../../web/recipient/form/schema-check.ts';

const person = {
  type: 'object',
  required: ['email', 'name'],
  properties: {
    email: { type: 'string', format: 'email' },
    name: { type: 'string', minLength: 2 },
    phone: { type: 'string', pattern: '^[0-9 +]+$' },
  },
};

describe('schemaProblems', () => {
  it('finds none in data that fits', () => {
    expect(schemaProblems(person, { email: 'ada@example.com', name: 'Ada' })).toEqual([]);
  });

  it('puts a missing field at its own path, with its schema, so that the message shows beside it', () => {
    expect(schemaProblems(person, { name: 'Ada' })).toEqual([
      {
        path: ['email'],
        dataPath: [],
        keyword: 'required',
        params: { missingProperty: 'email' },
        schema: { type: 'string', format: 'email' },
      },
    ]);
  });

  it('names every missing field once', () => {
    const problems = schemaProblems(person, {});
    expect(problems.map((problem) => problem.path)).toEqual([['email'], ['name']]);
  });

  it('names the broken keyword and its value as Ajv does', () => {
    const problems = schemaProblems(person, { email: 'ada@example.com', name: 'A', phone: 'call me' });
    expect(problems.map(({ path, keyword, params }) => ({ path, keyword, params }))).toEqual([
      { path: ['name'], keyword: 'minLength', params: { limit: 2 } },
      { path: ['phone'], keyword: 'pattern', params: { pattern: '^[0-9 +]+$' } },
    ]);
  });

  it("refuses an address the server's check refuses, which the library alone would take", () => {
    const problems = schemaProblems(person, { email: 'ada@example', name: 'Ada' });
    expect(problems.map(({ path, keyword }) => ({ path, keyword }))).toEqual([
      { path: ['email'], keyword: 'format' },
    ]);
  });

  it('follows $refs to the definitions of the root schema', () => {
    const schema = {
      type: 'object',
      $defs: { city: { type: 'string', maxLength: 3 } },
      properties: { address: { type: 'object', properties: { city: { $ref: '#/$defs/city' } } } },
    };
    const [problem] = schemaProblems(schema, { address: { city: 'London' } });
    expect(problem?.path).toEqual(['address', 'city']);
    expect(problem?.keyword).toBe('maxLength');
    expect(problem?.params).toEqual({ limit: 3 });
  });

  it('says a field that is not asked for is not, and an item of a list by its index', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      properties: { owners: { type: 'array', items: { type: 'string' } } },
    };
    const problems = schemaProblems(schema, { owners: ['Ada', 7], extra: true });
    expect(problems.map(({ path, dataPath, keyword }) => ({ path, dataPath, keyword }))).toContainEqual({
      path: ['owners', 1],
      dataPath: ['owners', 1],
      keyword: 'type',
    });
    expect(problems.map(({ path, keyword }) => ({ path, keyword }))).toContainEqual({
      path: ['extra'],
      keyword: 'additionalProperties',
    });
  });

  it('says a failed choice once, not each option', () => {
    const schema = {
      type: 'object',
      properties: { id: { oneOf: [{ type: 'string', minLength: 5 }, { type: 'number' }] } },
    };
    const problems = schemaProblems(schema, { id: 'abc' });
    expect(problems.map(({ path, keyword }) => ({ path, keyword }))).toEqual([
      { path: ['id'], keyword: 'oneOf' },
    ]);
  });

  it('leaves a schema it cannot read to the server', () => {
    expect(schemaProblems({ $ref: 'https://example.com/other.json' }, {})).toEqual([]);
  });
});
