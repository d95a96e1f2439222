import { listUsers, removeUser, type User } from '../../accounts/users.ts';
import type { DashboardRole } from '../../accounts/roles.ts';
import { AppError, notFound } from '../../errors.ts';
import {
  createPortfolioKey,
  listKeysWithCreators,
  portfolioKeys,
  type PortfolioKeyWithCreator,
} from '../instances.ts';
import { getCompany, listFunds, searchCompanies } from '../browse.ts';
import { listPage, type ListRecords } from '../lists.ts';
import { invitePersonByMail } from '../../accounts/people-mail.ts';
import { dashboardPages } from '../people.ts';
import { MAX_LIMIT } from '../records.ts';
import type { DashboardCaller, DashboardDeps } from './deps.ts';

/**
 * What a signed-in person does with their instance in the dashboard: its keys and people (changed by admins
 * only: each route declares it, role-permissions.ts), its funds and companies. Each answers what its route's
 * contract (contract.ts) says. The routes (instance-routes.ts) parse, call one of these and reply.
 */

/** The most updates and investments the company page shows (newest first, read in pages of the API). */
const COMPANY_RECORDS_MAX = 500;

/** A key as the page shows it (see ApiKey in contract.ts). */
function shownKey(key: PortfolioKeyWithCreator) {
  return { ...key, prefix: key.displayPrefix };
}

/** The instance's keys, newest first, revoked ones included. */
export async function keysOf(db: DashboardDeps['db'], caller: DashboardCaller) {
  return { keys: (await listKeysWithCreators(db, caller.instance.id)).map(shownKey) };
}

/** A new key for the instance, made by an admin: its record, and its secret, shown this once. */
export async function generateKey(db: DashboardDeps['db'], caller: DashboardCaller, name: string) {
  const { key, record } = await createPortfolioKey(db, {
    instanceId: caller.instance.id,
    name,
    createdBy: caller.user.id,
  });
  const createdBy = { name: caller.user.name, email: caller.user.email };
  return { key: shownKey({ ...record, createdBy }), secret: key };
}

/** Revokes one of the instance's keys (an admin's act); NOT_FOUND for a key it does not have. */
export async function revokeKey(db: DashboardDeps['db'], caller: DashboardCaller, id: string) {
  const revoked = await portfolioKeys.revoke(db, { ownerId: caller.instance.id, key: id });
  const [key] = revoked ? await listKeysWithCreators(db, caller.instance.id, revoked.id) : [];
  if (!key) throw notFound('key');
  return { key: shownKey(key) };
}

/** Who may sign in to the instance, in the order they were invited. */
export async function peopleOf(
  db: DashboardDeps['db'],
  caller: DashboardCaller,
): Promise<{ people: User[] }> {
  return { people: await listUsers(db, { kind: 'instance', id: caller.instance.id }) };
}

/** Invites a person to the instance by mail (an admin's act). */
export async function invite(
  deps: Pick<DashboardDeps, 'db' | 'mail'>,
  caller: DashboardCaller,
  person: { email: string; role: DashboardRole; name?: string | undefined },
): Promise<{ person: User }> {
  const { user } = await invitePersonByMail(deps.db, dashboardPages(deps.mail), {
    tenant: caller.instance,
    ...person,
    invitedBy: caller.user.id,
  });
  return { person: user };
}

/** Removes a person from the instance (an admin's act, never their own removal). */
export async function removePerson(
  db: DashboardDeps['db'],
  caller: DashboardCaller,
  id: string,
): Promise<{ person: User }> {
  if (id === caller.user.id) throw new AppError('CONFLICT', 'You cannot remove yourself: ask another admin.');
  return { person: await removeUser(db, { kind: 'instance', id: caller.instance.id }, id) };
}

/**
 * A company's records of one list, newest first, through the API's own pages, up to the most the company page
 * shows.
 */
async function recordsOf<Name extends 'updates' | 'investments'>(
  deps: Pick<DashboardDeps, 'db' | 'cursors'>,
  caller: DashboardCaller,
  companyId: string,
  list: Name,
): Promise<ListRecords[Name][]> {
  const records: ListRecords[Name][] = [];
  let cursor: string | undefined;
  do {
    const page = await listPage(deps, {
      list,
      instanceId: caller.instance.id,
      companyId,
      limit: MAX_LIMIT,
      cursor,
    });
    records.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && records.length < COMPANY_RECORDS_MAX);
  return records;
}

/** The instance's funds, by name, each with how many companies it holds. */
export async function fundsOf(db: DashboardDeps['db'], caller: DashboardCaller) {
  return { funds: await listFunds(db, caller.instance.id) };
}

/** A page of the instance's companies by legal name, searched and narrowed to a fund (see `searchCompanies`). */
export async function companiesPage(
  db: DashboardDeps['db'],
  caller: DashboardCaller,
  query: { search?: string | undefined; fund?: string | undefined; page: number; pageSize: number },
) {
  const { search, fund, page, pageSize } = query;
  const found = await searchCompanies(db, {
    instanceId: caller.instance.id,
    search,
    fundId: fund,
    page,
    pageSize,
  });
  return { ...found, page, pageSize };
}

/**
 * A company of the instance with its updates oldest first (the charts read left to right) and its investments
 * newest first; NOT_FOUND for a company it does not have.
 */
export async function companyOf(
  deps: Pick<DashboardDeps, 'db' | 'cursors'>,
  caller: DashboardCaller,
  id: string,
) {
  const company = await getCompany(deps.db, caller.instance.id, id);
  const [updates, investments] = [
    await recordsOf(deps, caller, company.id, 'updates'),
    await recordsOf(deps, caller, company.id, 'investments'),
  ];
  return { company, updates: updates.reverse(), investments };
}
