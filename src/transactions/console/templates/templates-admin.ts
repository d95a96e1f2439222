import type { Database, Queryable } from '../../../db/database.ts';
import { AppError, notFound, quote } from '../../../errors.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import { compareDefinitions, shapeOf } from './template-shape.ts';
import type { TemplateChange, TemplateShape, TemplateSummary } from './templates-contract.ts';

/**
 * The console's templates (domain code, without the routes): an organization's templates by key with their
 * versions and how many transactions run on each, one template's page, the changes between two of its versions,
 * and archiving (every version of a key), which stops the key's running closings. Every query is scoped to the
 * caller's organization.
 */

interface VersionRow {
  id: string;
  key: string;
  version: number;
  name: string;
  description: string | null;
  importedAt: Date;
  transactions: number;
  archivedAt: Date | null;
  archivedById: string | null;
  archivedByName: string | null;
}

const VERSIONS = `select t.id, t.key, t.version, t.name, t.description, t.created_at as "importedAt",
    (select count(*) from transactions x where x.template_id = t.id and x.organization_id = t.organization_id)::int
      as transactions,
    a.archived_at as "archivedAt", u.id as "archivedById", u.name as "archivedByName"
  from templates t
  left join template_archives a on a.organization_id = t.organization_id and a.key = t.key
  left join users u on u.id = a.archived_by
  where t.organization_id = $1 and ($2::text is null or t.key = $2)
  order by t.key, t.version desc`;

/** The versions of an organization (or of one key), grouped by key, each key named by its latest version. */
function summaries(rows: readonly VersionRow[]): TemplateSummary[] {
  const byKey = new Map<string, TemplateSummary>();
  for (const row of rows) {
    let summary = byKey.get(row.key);
    if (summary === undefined) {
      // The rows come newest version first: the first of a key names it.
      summary = {
        key: row.key,
        name: row.name,
        description: row.description,
        archived:
          row.archivedAt === null
            ? null
            : {
                at: row.archivedAt.toISOString(),
                by:
                  row.archivedById === null ? null : { id: row.archivedById, name: row.archivedByName ?? '' },
              },
        versions: [],
      };
      byKey.set(row.key, summary);
    }
    summary.versions.push({
      id: row.id,
      version: row.version,
      name: row.name,
      importedAt: row.importedAt.toISOString(),
      transactions: row.transactions,
    });
  }
  return [...byKey.values()].sort((a, b) => a.name.localeCompare(b.name) || a.key.localeCompare(b.key));
}

/** The organization's templates, by their names, each with its versions (newest first). */
export async function listConsoleTemplates(
  db: Queryable,
  organizationId: string,
): Promise<TemplateSummary[]> {
  return summaries(await db.query<VersionRow>(VERSIONS, [organizationId, null]));
}

/** NOT_FOUND for a key the organization has no template of (another organization's reads the same). */
const noTemplate = () => new AppError('NOT_FOUND', 'There is no such template.');

/** One template of the organization, or NOT_FOUND. */
async function summaryOf(db: Queryable, organizationId: string, key: string): Promise<TemplateSummary> {
  const [summary] = summaries(await db.query<VersionRow>(VERSIONS, [organizationId, key]));
  if (summary === undefined) throw noTemplate();
  return summary;
}

/** The definition of one version of an organization's template, or NOT_FOUND naming the version. */
async function definitionOf(
  db: Queryable,
  where: { organizationId: string; key: string; version: number },
): Promise<TemplateDefinition> {
  const [row] = await db.query<{ definition: TemplateDefinition }>(
    'select definition from templates where organization_id = $1 and key = $2 and version = $3',
    [where.organizationId, where.key, where.version],
  );
  if (row === undefined) throw notFound('version of this template', where.version);
  return row.definition;
}

/** A template's page: its versions and what one of them (`version`, else the latest) is made of. */
export async function templateDetail(
  db: Queryable,
  options: { organizationId: string; key: string; version?: number | undefined },
): Promise<{ template: TemplateSummary; shape: TemplateShape }> {
  const template = await summaryOf(db, options.organizationId, options.key);
  const version = options.version ?? template.versions[0]?.version ?? 1;
  const definition = await definitionOf(db, { ...options, version });
  return { template, shape: shapeOf(definition, version) };
}

/** The changes from version `from` of a template to version `to`, in words. */
export async function diffTemplateVersions(
  db: Queryable,
  options: { organizationId: string; key: string; from: number; to: number },
): Promise<{ from: number; to: number; changes: TemplateChange[] }> {
  await summaryOf(db, options.organizationId, options.key);
  const [before, after] = await Promise.all([
    definitionOf(db, { ...options, version: options.from }),
    definitionOf(db, { ...options, version: options.to }),
  ]);
  return { from: options.from, to: options.to, changes: compareDefinitions(before, after) };
}

/** Why a closing of an archived template stopped, as its page says it (and each row not created). */
export function archivedReason(name: string): string {
  return `Not created: the template ${quote(name)} was archived, so it starts no new transaction.`;
}

/**
 * Stops the running closings of a template's key: each is marked stopped with the reason, and its rows not yet
 * created are kept as not created (failed) with the same reason, so that the closing's page lists them. Answers
 * how many closings stopped. Run by archiving, and by a closing's run that meets the archive first.
 */
export async function stopClosingsOfArchived(
  tx: Queryable,
  options: { organizationId: string; key: string },
): Promise<number> {
  const [template] = await tx.query<{ name: string }>(
    'select name from templates where organization_id = $1 and key = $2 order by version desc limit 1',
    [options.organizationId, options.key],
  );
  const reason = archivedReason(template?.name ?? options.key);
  const stopped = await tx.query<{ id: string }>(
    `update closings c set status = 'stopped', stop_reason = $3, finished_at = clock_timestamp(),
       updated_at = clock_timestamp()
     where c.organization_id = $1 and c.status = 'running'
       and c.template_id in (select id from templates where organization_id = $1 and key = $2)
     returning c.id`,
    [options.organizationId, options.key, reason],
  );
  if (stopped.length > 0) {
    await tx.query(
      `update closing_rows set status = 'failed', failure = $3, updated_at = clock_timestamp()
       where organization_id = $1 and closing_id = any($2::uuid[]) and status = 'ready'`,
      [options.organizationId, stopped.map((closing) => closing.id), reason],
    );
  }
  return stopped.length;
}

/**
 * Archives a template (every version of its key) or restores it. Archiving stops its running closings (rows
 * being created right now finish first: each holds its row's lock); transactions already made go on.
 */
export async function setTemplateArchived(
  db: Database,
  options: { organizationId: string; key: string; userId: string; archived: boolean },
): Promise<{ archived: TemplateSummary['archived']; stoppedClosings: number }> {
  const { organizationId, key } = options;
  const stoppedClosings = await db.transaction(async (tx) => {
    await summaryOf(tx, organizationId, key);
    if (!options.archived) {
      await tx.query('delete from template_archives where organization_id = $1 and key = $2', [
        organizationId,
        key,
      ]);
      return 0;
    }
    await tx.query(
      `insert into template_archives (organization_id, key, archived_by) values ($1, $2, $3)
       on conflict (organization_id, key) do nothing`,
      [organizationId, key, options.userId],
    );
    return stopClosingsOfArchived(tx, { organizationId, key });
  });
  const { archived } = await summaryOf(db, organizationId, key);
  return { archived, stoppedClosings };
}
