import { describe, expect, it } from 'vitest';
import { graphql } from '../support/data/transactions.ts';
import { useTransactionsSuite } from '../support/data/transactions-suite.ts';

const suite = useTransactionsSuite();

const CREATE = `mutation ($input: CreateEntityInput!) {
  createEntity(input: $input) { entity { id name email type settings } }
}`;
const UPDATE = `mutation ($input: UpdateEntityInput!) {
  updateEntity(input: $input) { entity { id name email type settings } }
}`;

describe('createEntity and updateEntity', () => {
  it('creates an entity of the caller organization, usable as senderEntityId, and changes only what is given', async () => {
    const tenant = await suite.emptyTenant();
    const created = await graphql(suite.app, tenant.apiKey, CREATE, {
      input: {
        name: 'Acme Fund II, L.P.',
        email: 'Ops@Acme.example',
        type: 'FUND',
        settings: { locale: 'en-GB' },
      },
    });
    expect(created.body.errors).toBeUndefined();
    const entity = created.body.data?.createEntity.entity;
    expect(entity).toMatchObject({
      name: 'Acme Fund II, L.P.',
      email: 'ops@acme.example',
      type: 'FUND',
      settings: { locale: 'en-GB' },
    });

    const updated = await graphql(suite.app, tenant.apiKey, UPDATE, {
      input: { id: entity.id, name: 'Acme Fund II', email: null },
    });
    expect(updated.body.data?.updateEntity.entity).toEqual({ ...entity, name: 'Acme Fund II', email: null });
    const viewer = await graphql(suite.app, tenant.apiKey, '{ viewer { entities { id } } }', {});
    expect(viewer.body.data?.viewer.entities.map((each: { id: string }) => each.id)).toContain(entity.id);
  });

  it('refuses a blank name and bad settings with BAD_USER_INPUT naming the field', async () => {
    const tenant = await suite.emptyTenant();
    for (const [input, field] of [
      [{ name: '  ' }, 'name'],
      [{ name: 'Acme', settings: 'not an object' }, 'settings'],
      [{ name: 'Acme', email: 'not an address' }, 'email'],
    ] as const) {
      const refused = await graphql(suite.app, tenant.apiKey, CREATE, { input });
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
  });

  it("answers updateEntity for another organization's entity NOT_FOUND, as for one that does not exist, and changes nothing", async () => {
    const [owner, other] = await Promise.all([suite.emptyTenant(), suite.emptyTenant()]);
    const created = await graphql(suite.app, owner.apiKey, CREATE, { input: { name: 'Mine' } });
    const id = created.body.data?.createEntity.entity.id as string;
    const foreign = await graphql(suite.app, other.apiKey, UPDATE, { input: { id, name: 'Taken' } });
    const random = await graphql(suite.app, other.apiKey, UPDATE, {
      input: { id: '00000000-0000-4000-8000-000000000000', name: 'Taken' },
    });
    expect(foreign.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
    expect(random.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
    const mine = await graphql(suite.app, owner.apiKey, '{ viewer { entities { name } } }', {});
    expect(mine.body.data?.viewer.entities.map((each: { name: string }) => each.name)).toContain('Mine');
  });
});
