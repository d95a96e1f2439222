import { normalizeEmail } from '../accounts/users.ts';
import type { Queryable } from '../db/database.ts';
import { oneRow } from '../db/one-row.ts';
import { AppError, isNot, notFound } from '../errors.ts';
import { isUuid } from '../validation/uuid.ts';
import { ENTITY_TYPES, type EntityType } from './entity-types.ts';

/**
 * Entities: the parties of an organization's transactions, its own (the sender of a transaction, e.g. a fund)
 * and its recipients'. An organization needs one entity to send from before it can create a transaction.
 */

export interface Entity {
  id: string;
  organizationId: string;
  name: string;
  email: string | null;
  type: EntityType;
  settings: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, organization_id as "organizationId", name, email, type, settings, created_at as "createdAt",
  updated_at as "updatedAt"`;

/** The longest name and the largest settings an entity may have. */
const NAME_MAX = 200;
const SETTINGS_MAX_BYTES = 10_000;

/** The fields of an entity to write, checked: BAD_USER_INPUT naming the field otherwise. */
function checked(fields: {
  name?: string | undefined;
  email?: string | null | undefined;
  type?: string | undefined;
  settings?: unknown;
}): { name?: string; email?: string | null; type?: EntityType; settings?: Record<string, unknown> } {
  const result: ReturnType<typeof checked> = {};
  if (fields.name !== undefined) {
    const name = fields.name.trim();
    if (name === '' || name.length > NAME_MAX) {
      throw new AppError('BAD_USER_INPUT', `An entity's name has 1 to ${String(NAME_MAX)} characters.`, {
        field: 'name',
      });
    }
    result.name = name;
  }
  if (fields.email !== undefined) {
    result.email = fields.email === null || fields.email.trim() === '' ? null : normalizeEmail(fields.email);
  }
  if (fields.type !== undefined) {
    const type = ENTITY_TYPES.find((each) => each === fields.type);
    if (type === undefined) {
      throw isNot(fields.type, 'a type of entity', { field: 'type' }, ENTITY_TYPES);
    }
    result.type = type;
  }
  if (fields.settings !== undefined) {
    const { settings } = fields;
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
      throw new AppError('BAD_USER_INPUT', "An entity's settings are a JSON object.", { field: 'settings' });
    }
    if (Buffer.byteLength(JSON.stringify(settings)) > SETTINGS_MAX_BYTES) {
      throw new AppError(
        'BAD_USER_INPUT',
        `An entity's settings hold at most ${String(SETTINGS_MAX_BYTES)} bytes.`,
        {
          field: 'settings',
        },
      );
    }
    result.settings = settings as Record<string, unknown>;
  }
  return result;
}

/**
 * Creates an entity of the organization. BAD_USER_INPUT for a blank name or one over 200 characters, an e-mail
 * that is not an address, an unknown type, or settings that are not a JSON object of at most 10 kB.
 */
export async function createEntity(
  db: Queryable,
  options: {
    organizationId: string;
    name: string;
    email?: string | null | undefined;
    /** @default 'company' */
    type?: string | undefined;
    settings?: unknown;
  },
): Promise<Entity> {
  const fields = checked({ ...options, type: options.type ?? 'company' });
  return oneRow<Entity>(
    db,
    `insert into entities (organization_id, name, email, type, settings) values ($1, $2, $3, $4, $5)
     returning ${COLUMNS}`,
    [
      options.organizationId,
      fields.name,
      fields.email ?? null,
      fields.type,
      JSON.stringify(fields.settings ?? {}),
    ],
  );
}

/**
 * Changes the fields given of an entity of the organization (`email: null` removes the address). NOT_FOUND for
 * an entity of another organization as for one that does not exist; the checks of {@link createEntity}.
 */
export async function updateEntity(
  db: Queryable,
  options: {
    organizationId: string;
    id: string;
    name?: string | undefined;
    email?: string | null | undefined;
    type?: string | undefined;
    settings?: unknown;
  },
): Promise<Entity> {
  if (!isUuid(options.id)) throw notFound('entity', options.id);
  const fields = checked(options);
  const [entity] = await db.query<Entity>(
    `update entities set
       name = coalesce($3, name),
       email = case when $4::boolean then $5 else email end,
       type = coalesce($6, type),
       settings = coalesce($7::jsonb, settings),
       updated_at = clock_timestamp()
     where organization_id = $1 and id = $2
     returning ${COLUMNS}`,
    [
      options.organizationId,
      options.id,
      fields.name ?? null,
      fields.email !== undefined,
      fields.email ?? null,
      fields.type ?? null,
      fields.settings === undefined ? null : JSON.stringify(fields.settings),
    ],
  );
  if (!entity) throw notFound('entity', options.id);
  return entity;
}

/** The entities of an organization, oldest first. */
export function listEntities(db: Queryable, organizationId: string): Promise<Entity[]> {
  return db.query<Entity>(
    `select ${COLUMNS} from entities where organization_id = $1 order by created_at, sequence`,
    [organizationId],
  );
}
