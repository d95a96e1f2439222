import { Type, type Static } from '@sinclair/typebox';
import { DASHBOARD_ROLES } from '../../accounts/roles.ts';
import { accountRoutes } from '../../http/signed-in/account-contract.ts';
import { answers, Body, OrNull, Timestamp } from '../../http/contract.ts';
import { ssoSettingsRoutes } from '../../http/signed-in/sso-contract.ts';
import { Company, CompanyInvestment, CompanyUpdate, ref } from '../records.ts';

/**
 * The contract of the customer dashboard's JSON routes (`/dashboard/api`; the instance's in instance-routes.ts):
 * where each is, who may call it (a permission of role-permissions.ts), what it takes and answers (see
 * src/http/contract.ts). `web/dashboard/types.ts` derives the page's types from it.
 */

/** The longest text a company search looks for, and the most companies one of its pages holds. */
export const SEARCH_MAX = 200;
export const SEARCH_PAGE_SIZE_MAX = 100;
/** The deepest page a company search numbers: far past any portfolio a person browses. */
export const SEARCH_PAGE_MAX = 1_000_000;

const Role = Type.Union(DASHBOARD_ROLES.map((role) => Type.Literal(role)));

const Slug = Type.Object({ slug: Type.String({ maxLength: 63 }) });
const WithId = Type.Object({ slug: Type.String({ maxLength: 63 }), id: Type.String({ format: 'uuid' }) });

/** Who must sign in with a second factor: nobody, everyone, or the people of the roles named. */
const SecondFactorPolicy = Type.Object({
  required: Type.Union([Type.Literal('nobody'), Type.Literal('everyone'), Type.Literal('roles')]),
  roles: Type.Array(Role, { maxItems: 10 }),
});

export const SignedInUser = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: Role,
});
export type SignedInUser = Static<typeof SignedInUser>;
export const InstanceSummary = Type.Object({ slug: Type.String(), name: Type.String() });
export type InstanceSummary = Static<typeof InstanceSummary>;

/** Who is signed in (both null when no one is) and the CSRF token for the next change. */
const SessionAnswer = Type.Object({
  csrfToken: Type.String(),
  user: OrNull(SignedInUser),
  instance: OrNull(InstanceSummary),
  /** The tenant requires a second factor of the person, who has none: the page leads them to add one. */
  secondFactorRequired: Type.Boolean(),
});

export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  /** `pfk_` and the key's first characters: enough to recognise it, not to use it. */
  prefix: Type.String(),
  createdAt: Timestamp(),
  lastUsedAt: OrNull(Timestamp()),
  revokedAt: OrNull(Timestamp()),
  /** The dashboard user who generated it; null for keys made with the CLI. */
  createdBy: OrNull(Type.Object({ name: Type.String(), email: Type.String() })),
});
export type ApiKey = Static<typeof ApiKey>;

export const Person = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: Role,
  /** Whether they have set a password (accepted their invitation). */
  active: Type.Boolean(),
  createdAt: Timestamp(),
});
export type Person = Static<typeof Person>;

/** Whether an action can be done now and, when it cannot, why, in the words its refusal says. */
const Availability = Type.Object({ allowed: Type.Boolean(), reason: OrNull(Type.String()) });

/**
 * A person as Settings → People lists them, with whether each action on them can be done now by the caller, and
 * why not: the page greys what cannot work.
 */
export const ListedPerson = Type.Composite([
  Person,
  Type.Object({
    actions: Type.Object({
      changeRole: Availability,
      resendInvitation: Availability,
      remove: Availability,
      resetFactors: Availability,
    }),
  }),
]);
export type ListedPerson = Static<typeof ListedPerson>;

/** A fund and how many companies it holds. */
export const FundSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  companies: Type.Number(),
});
export type FundSummary = Static<typeof FundSummary>;

export const dashboardRoutes = {
  ...accountRoutes(SessionAnswer, { instance: Type.Optional(Type.String({ maxLength: 63 })) }),
  /** The instance's single sign-on, set by admins. */
  ...ssoSettingsRoutes('managePeople', '/instances/:slug', Slug),
  /** The instance's keys, newest first, revoked ones included. */
  listKeys: {
    method: 'GET',
    url: '/instances/:slug/keys',
    access: 'read',
    params: Slug,
    response: answers({ 200: Type.Object({ keys: Type.Array(ApiKey) }) }),
  },
  /** A new key, whose secret is shown this once. */
  createKey: {
    method: 'POST',
    url: '/instances/:slug/keys',
    access: 'manageKeys',
    params: Slug,
    body: Body({ name: Type.String({ maxLength: 1000 }) }),
    response: answers({ 201: Type.Object({ key: ApiKey, secret: Type.String() }) }),
  },
  /** Revokes a key. */
  revokeKey: {
    method: 'DELETE',
    url: '/instances/:slug/keys/:id',
    access: 'manageKeys',
    params: WithId,
    response: answers({ 200: Type.Object({ key: ApiKey }) }),
  },
  /** Who may sign in to the instance, with what can be done to each now. */
  listPeople: {
    method: 'GET',
    url: '/instances/:slug/people',
    access: 'read',
    params: Slug,
    response: answers({ 200: Type.Object({ people: Type.Array(ListedPerson) }) }),
  },
  /** Invites a person by mail. */
  invitePerson: {
    method: 'POST',
    url: '/instances/:slug/people',
    access: 'managePeople',
    params: Slug,
    body: Body({
      email: Type.String({ maxLength: 1000 }),
      role: Role,
      name: Type.Optional(Type.String({ maxLength: 1000 })),
    }),
    response: answers({ 201: Type.Object({ person: Person }) }),
  },
  /** Removes a person (never themselves). */
  removePerson: {
    method: 'DELETE',
    url: '/instances/:slug/people/:id',
    access: 'managePeople',
    params: WithId,
    response: answers({ 200: Type.Object({ person: Person }) }),
  },
  /** Ends every session of a person (each of their browsers signs in again). */
  endPersonSessions: {
    method: 'POST',
    url: '/instances/:slug/people/:id/sessions/end',
    access: 'managePeople',
    params: WithId,
    response: answers({ 200: Type.Object({ sessionsEnded: Type.Integer() }) }),
  },
  /**
   * Resets a person's second factors (their authenticator app and recovery codes), ends their sessions and mails
   * them; never one's own (their settings change it).
   */
  resetPersonFactors: {
    method: 'POST',
    url: '/instances/:slug/people/:id/factors/reset',
    access: 'managePeople',
    params: WithId,
    response: answers({ 200: Type.Object({ sessionsEnded: Type.Integer(), mailed: Type.Boolean() }) }),
  },
  /** Who must sign in to the instance's dashboard with a second factor. */
  secondFactorPolicy: {
    method: 'GET',
    url: '/instances/:slug/security/second-factor',
    access: 'managePeople',
    params: Slug,
    response: answers({ 200: Type.Object({ policy: SecondFactorPolicy }) }),
  },
  /**
   * Sets who must sign in with a second factor: those without one are led to add one at their next request, and
   * can do nothing else until they have.
   */
  setSecondFactorPolicy: {
    method: 'PUT',
    url: '/instances/:slug/security/second-factor',
    access: 'managePeople',
    params: Slug,
    body: Body({
      required: SecondFactorPolicy.properties.required,
      roles: SecondFactorPolicy.properties.roles,
    }),
    response: answers({ 200: Type.Object({ policy: SecondFactorPolicy }) }),
  },
  /** Gives a person another role (one's own too), never leaving the instance without an active admin. */
  changePersonRole: {
    method: 'PUT',
    url: '/instances/:slug/people/:id/role',
    access: 'managePeople',
    params: WithId,
    body: Body({ role: Role }),
    response: answers({ 200: Type.Object({ person: Person }) }),
  },
  /** Mails a person who has not accepted a new invitation; the older link stops working. */
  resendInvitation: {
    method: 'POST',
    url: '/instances/:slug/people/:id/invitation',
    access: 'managePeople',
    params: WithId,
    response: answers({ 200: Type.Object({ person: Person, expiresAt: Timestamp() }) }),
  },
  /** The funds, by name. */
  listFunds: {
    method: 'GET',
    url: '/instances/:slug/funds',
    access: 'read',
    params: Slug,
    response: answers({ 200: Type.Object({ funds: Type.Array(FundSummary) }) }),
  },
  /** A page of companies by legal name, searched and filtered by fund. */
  searchCompanies: {
    method: 'GET',
    url: '/instances/:slug/companies',
    access: 'read',
    params: Slug,
    querystring: Body({
      search: Type.Optional(Type.String({ maxLength: SEARCH_MAX })),
      fund: Type.Optional(Type.String({ format: 'uuid' })),
      page: Type.Integer({ minimum: 1, maximum: SEARCH_PAGE_MAX, default: 1 }),
      pageSize: Type.Integer({ minimum: 1, maximum: SEARCH_PAGE_SIZE_MAX, default: 20 }),
    }),
    response: answers({
      200: Type.Object({
        companies: Type.Array(ref(Company)),
        total: Type.Integer(),
        page: Type.Integer(),
        pageSize: Type.Integer(),
      }),
    }),
  },
  /** A company, its updates oldest first and investments newest first. */
  readCompany: {
    method: 'GET',
    url: '/instances/:slug/companies/:id',
    access: 'read',
    params: WithId,
    response: answers({
      200: Type.Object({
        company: ref(Company),
        updates: Type.Array(ref(CompanyUpdate)),
        investments: Type.Array(ref(CompanyInvestment)),
      }),
    }),
  },
} as const;

export type DashboardRoutes = typeof dashboardRoutes;
