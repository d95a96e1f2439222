import type { Database, Queryable } from '../../db/database.ts';
import { oneRow } from '../../db/one-row.ts';
import { AppError } from '../../errors.ts';
import type { TemplateDefinition } from './schema.ts';
import { describeProblems } from '../../validation/problems.ts';
import { checkTemplateWithFiles } from './validation.ts';
import type { AgreementFile } from '../documents/agreement-check.ts';

export interface ImportedTemplate {
  id: string;
  key: string;
  version: number;
  /**
   * `created`: a new key. `unchanged`: the latest version is the same definition. `updated`: the latest version
   * changed in place, as no transaction uses it. `versioned`: a new version, as transactions use the latest.
   */
  outcome: 'created' | 'unchanged' | 'updated' | 'versioned';
}

/**
 * Stores a checked template for an organization. A template some transaction uses never changes: a changed
 * definition then becomes a new version, and transactions keep the version they started with.
 */
export async function importTemplate(
  db: Database,
  options: { organizationId: string; definition: TemplateDefinition; files?: AgreementFile[] },
): Promise<ImportedTemplate> {
  const { organizationId, definition } = options;
  return db.transaction(async (tx) => {
    // The fund PDFs first, stored once per content: the definition names them by their SHA-256.
    for (const file of options.files ?? []) {
      await tx.query(
        `insert into template_files (organization_id, sha256, content, byte_size, original_filename)
         values ($1, $2, $3, $4, $5) on conflict (organization_id, sha256) do nothing`,
        [organizationId, file.sha256, file.content, file.content.byteLength, file.filename],
      );
    }
    // One import of a key at a time, so two imports cannot both take the next version number.
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [
      `portico.template:${organizationId}:${definition.key}`,
    ]);
    const [latest] = await tx.query<{ id: string; version: number; same: boolean; used: boolean }>(
      `select id, version, definition = $3::jsonb as same,
         exists (select 1 from transactions where template_id = templates.id) as used
       from templates where organization_id = $1 and key = $2 order by version desc limit 1`,
      [organizationId, definition.key, JSON.stringify(definition)],
    );
    const base = { key: definition.key };
    if (latest?.same) return { ...base, id: latest.id, version: latest.version, outcome: 'unchanged' };
    if (latest && !latest.used) {
      await tx.query('update templates set name = $2, description = $3, definition = $4 where id = $1', [
        latest.id,
        definition.name,
        definition.description ?? null,
        definition,
      ]);
      return { ...base, id: latest.id, version: latest.version, outcome: 'updated' };
    }
    const version = (latest?.version ?? 0) + 1;
    const created = await oneRow<{ id: string }>(
      tx,
      `insert into templates (organization_id, key, version, name, description, definition)
       values ($1, $2, $3, $4, $5, $6) returning id`,
      [organizationId, definition.key, version, definition.name, definition.description ?? null, definition],
    );
    return { ...base, id: created.id, version, outcome: latest ? 'versioned' : 'created' };
  });
}

/**
 * Checks a template file's text, with the fund PDFs its agreements name (`files`, by name), and imports it. A
 * file with mistakes is refused with all of them listed: AGREEMENT_INVALID when only its agreements are wrong.
 */
export async function importTemplateSource(
  db: Database,
  options: {
    organizationId: string;
    source: string;
    filename: string;
    files?: ReadonlyMap<string, Uint8Array>;
  },
): Promise<ImportedTemplate> {
  const checked = await checkTemplateWithFiles(options.source, options.files ?? new Map());
  if (!checked.ok) {
    const code = checked.agreement ? 'AGREEMENT_INVALID' : 'BAD_USER_INPUT';
    throw new AppError(code, describeProblems(options.filename, checked.problems), {
      problems: checked.problems,
    });
  }
  return importTemplate(db, {
    organizationId: options.organizationId,
    definition: checked.definition,
    files: checked.files,
  });
}

/** A template version as `portico templates list` shows it. */
export interface ListedTemplate {
  id: string;
  /** The handle of its organization. */
  org: string;
  key: string;
  version: number;
  name: string;
  /** How many transactions use this version (a used version never changes: a new import makes the next one). */
  transactions: number;
  createdAt: Date;
}

/** The template versions of one organization (by id), or of all, by organization, key and version. */
export function listTemplates(
  db: Queryable,
  options: { organizationId?: string | undefined } = {},
): Promise<ListedTemplate[]> {
  return db.query<ListedTemplate>(
    `select t.id, o.handle as org, t.key, t.version, t.name, t.created_at as "createdAt",
       (select count(*) from transactions x where x.template_id = t.id)::int as transactions
     from templates t join organizations o on o.id = t.organization_id
     where $1::uuid is null or t.organization_id = $1::uuid
     order by o.handle, t.key, t.version`,
    [options.organizationId ?? null],
  );
}
