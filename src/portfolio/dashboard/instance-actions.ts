import { removeUser, type User } from '../../accounts/users.ts';
import {
  changePersonRole,
  checkEndingAccess,
  peopleWithActions,
  type PersonWithActions,
} from '../../accounts/person-changes.ts';
import type { DashboardRole } from '../../accounts/roles.ts';
import { notFound } from '../../errors.ts';
import {
  createPortfolioKey,
  listKeysWithCreators,
  portfolioKeys,
  type PortfolioKeyWithCreator,
} from '../instances.ts';
import { getCompany, listFunds, searchCompanies } from '../browse.ts';
import { listPage, type ListRecords } from '../lists.ts';
import { invitePersonByMail, resendInvitationByMail } from '../../accounts/people-mail.ts';
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

/** What an admin does to a person from Settings → People, besides inviting them (accounts/person-changes.ts). */
const PEOPLE_ACTIONS = ['changeRole', 'resendInvitation', 'remove', 'resetFactors'] as const;

/** The caller's instance, as the rules of a person's changes take it. */
const tenantOf = (caller: DashboardCaller) => ({ kind: 'instance' as const, ...caller.instance });

/**
 * Who may sign in to the instance, in the order they were invited, each with whether each action of the page can
 * be done to them now by the caller, and why not (the page greys what cannot work).
 */
export async function peopleOf(
  db: DashboardDeps['db'],
  caller: DashboardCaller,
): Promise<{ people: PersonWithActions<(typeof PEOPLE_ACTIONS)[number]>[] }> {
  return {
    people: await peopleWithActions(db, tenantOf(caller), {
      callerId: caller.user.id,
      actions: PEOPLE_ACTIONS,
    }),
  };
}

/** Invites a person to the instance by mail (an admin's act), in the mail's words from the caller. */
export async function invite(
  deps: Pick<DashboardDeps, 'db' | 'mail'>,
  caller: DashboardCaller,
  person: { email: string; role: DashboardRole; name?: string | undefined },
): Promise<{ person: User }> {
  const { user } = await invitePersonByMail(deps.db, dashboardPages(deps.mail), {
    tenant: caller.instance,
    ...person,
    invitedBy: caller.user,
  });
  return { person: user };
}

/** Removes a person from the instance (an admin's act, never their own removal). */
export async function removePerson(
  db: DashboardDeps['db'],
  caller: DashboardCaller,
  id: string,
): Promise<{ person: User }> {
  const tenant = tenantOf(caller);
  await checkEndingAccess(db, { tenant, id, callerId: caller.user.id }, 'remove');
  return { person: await removeUser(db, tenant, id) };
}

/**
 * Gives a person of the instance another role (an admin's act, their own included), never leaving it without an
 * active admin.
 */
export async function changeRoleOf(
  db: DashboardDeps['db'],
  caller: DashboardCaller,
  change: { id: string; role: DashboardRole },
): Promise<{ person: User }> {
  const person = await changePersonRole(db, {
    tenant: tenantOf(caller),
    callerId: caller.user.id,
    ...change,
  });
  return { person };
}

/**
 * Mails a person who has not accepted their invitation a new one, from the caller (an admin's act): the older link
 * stops working; not twice within a minute.
 */
export async function resendInvitation(
  deps: Pick<DashboardDeps, 'db' | 'mail'>,
  caller: DashboardCaller,
  id: string,
): Promise<{ person: User; expiresAt: Date }> {
  const { user, expiresAt } = await resendInvitationByMail(deps.db, dashboardPages(deps.mail), {
    tenant: caller.instance,
    id,
    by: caller.user,
  });
  return { person: user, expiresAt };
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
