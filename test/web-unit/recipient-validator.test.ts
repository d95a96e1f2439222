import { describe, expect, it } from 'vitest';
import { humanize, labelAt } from '../../web/recipient/form/ui-schema.ts';
import { fieldProblems, pathKey, propertyOf } from '../../web/recipient/form/validator.ts';

describe('labels of fields', () => {
  it("writes a field's key in words when its schema has no title", () => {
    expect(humanize('legalName')).toBe('Legal name');
    expect(humanize('tax_id')).toBe('Tax id');
    expect(humanize('w9FileId')).toBe('W9 file id');
  });

  it("takes the schema's title first, through objects and lists", () => {
    const schema = {
      type: 'object',
      properties: {
        address: { type: 'object', properties: { postCode: { type: 'string', title: 'ZIP code' } } },
        owners: { type: 'array', items: { type: 'object', properties: { fullName: { type: 'string' } } } },
      },
    };
    expect(labelAt(schema, ['address', 'postCode'])).toBe('ZIP code');
    expect(labelAt(schema, ['owners', 0, 'fullName'])).toBe('Full name');
    expect(labelAt(schema, [0])).toBe('This answer');
  });
});

describe('paths of fields', () => {
  it("writes a path as rjsf's property and as a map key", () => {
    expect(propertyOf(['address', 'city'])).toBe('.address.city');
    expect(propertyOf(['owners', 0, 'name'])).toBe('.owners.0.name');
    expect(propertyOf(['first-name'])).toBe("['first-name']");
    expect(pathKey(['owners', 0, 'name'])).toBe('owners.0.name');
  });
});

describe('fieldProblems', () => {
  const schema = {
    type: 'object',
    required: ['email', 'name'],
    properties: {
      name: { type: 'string', title: 'Full name' },
      email: { type: 'string', format: 'email' },
      shares: { type: 'integer', minimum: 1 },
    },
  };

  it('says one problem per field, in the order the form shows them, with its label and what to do', () => {
    const problems = fieldProblems(schema, { shares: 0 }, { 'ui:order': ['shares', 'name', 'email'] });
    expect(problems).toEqual([
      { path: ['shares'], label: 'Shares', message: 'Enter 1 or more.' },
      { path: ['name'], label: 'Full name', message: 'Enter an answer.' },
      { path: ['email'], label: 'Email', message: 'Enter an answer.' },
    ]);
  });

  it('finds nothing in answers that fit', () => {
    expect(fieldProblems(schema, { name: 'Ada', email: 'ada@example.com', shares: 3 }, {})).toEqual([]);
  });
});
