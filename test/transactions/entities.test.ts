import { describe, expect, it } from 'vitest';
import { createEntity, listEntities, updateEntity } from '../../src/transactions/entities.ts';
import { createOrganization } from '../../src/transactions/organizations.ts';
import { refusal } from '../support/refusal.ts';
import { useTestDatabase } from '../support/db/use-test-database.ts';
import { uniqueHandle } from '../support/data/transactions.ts';

const database = useTestDatabase();

const organization = () => createOrganization(database.db, { handle: uniqueHandle('ent'), name: 'Acme' });

describe('entities', () => {
  it('creates an entity with a trimmed name, a lower-case address and its type, and lists it', async () => {
    const org = await organization();
    const entity = await createEntity(database.db, {
      organizationId: org.id,
      name: '  Acme Fund I  ',
      email: 'Ops@Acme.example',
      type: 'fund',
      settings: { locale: 'en-US' },
    });
    expect(entity).toMatchObject({
      name: 'Acme Fund I',
      email: 'ops@acme.example',
      type: 'fund',
      settings: { locale: 'en-US' },
    });
    expect(await listEntities(database.db, org.id)).toEqual([entity]);
  });

  it.each([
    { refused: 'a blank name', input: { name: ' ' }, field: 'name' },
    { refused: 'a name over 200 characters', input: { name: 'x'.repeat(201) }, field: 'name' },
    { refused: 'an e-mail that is not one', input: { name: 'A', email: 'nope' }, field: 'email' },
    { refused: 'an unknown type', input: { name: 'A', type: 'robot' }, field: 'type' },
    { refused: 'settings that are not an object', input: { name: 'A', settings: [1] }, field: 'settings' },
  ])(
    'refuses $refused with BAD_USER_INPUT naming the field, and writes nothing',
    async ({ input, field }) => {
      const org = await organization();
      const error = await refusal(createEntity(database.db, { organizationId: org.id, ...input }));
      expect([error.code, error.details?.field]).toEqual(['BAD_USER_INPUT', field]);
      expect(await listEntities(database.db, org.id)).toEqual([]);
    },
  );

  it('changes only the fields given, removes the address with null, and answers NOT_FOUND for another organization', async () => {
    const [org, other] = await Promise.all([organization(), organization()]);
    const entity = await createEntity(database.db, {
      organizationId: org.id,
      name: 'Acme',
      email: 'a@acme.example',
    });
    const renamed = await updateEntity(database.db, {
      organizationId: org.id,
      id: entity.id,
      name: 'Acme Ltd',
    });
    expect(renamed).toMatchObject({ name: 'Acme Ltd', email: 'a@acme.example', type: 'company' });
    const unmailed = await updateEntity(database.db, { organizationId: org.id, id: entity.id, email: null });
    expect(unmailed.email).toBeNull();
    for (const id of [entity.id, 'not-a-uuid']) {
      expect(
        (await refusal(updateEntity(database.db, { organizationId: other.id, id, name: 'Taken' }))).code,
      ).toBe('NOT_FOUND');
    }
    expect((await listEntities(database.db, org.id))[0]?.name).toBe('Acme Ltd');
  });
});
