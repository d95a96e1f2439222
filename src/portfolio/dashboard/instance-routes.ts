import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ROLES } from '../../accounts/roles.ts';
import { listUsers, removeUser, type User } from '../../accounts/users.ts';
import { AppError } from '../../errors.ts';
import {
  createPortfolioKey,
  listKeysWithCreators,
  portfolioKeys,
  type PortfolioKeyWithCreator,
} from '../instances.ts';
import {
  getCompany,
  listFunds,
  searchCompanies,
  SEARCH_MAX,
  SEARCH_PAGE_MAX,
  SEARCH_PAGE_SIZE_MAX,
} from '../browse.ts';
import { listPage, type ListRecords } from '../lists.ts';
import { MAX_LIMIT } from '../records.ts';
import { invitePerson } from '../people.ts';
import type { DashboardCaller } from './caller.ts';
import { signedInToInstance } from './signed-in-guard.ts';
import type { DashboardDeps } from './deps.ts';

/** The most updates and investments the company page shows (newest first, read in pages of the API). */
const COMPANY_RECORDS_MAX = 500;

const Slug = Type.Object({ slug: Type.String({ maxLength: 63 }) });
const WithId = Type.Object({ slug: Type.String({ maxLength: 63 }), id: Type.String({ format: 'uuid' }) });
const NewKey = Type.Object({ name: Type.String({ maxLength: 1000 }) }, { additionalProperties: false });
const NewPerson = Type.Object(
  {
    email: Type.String({ maxLength: 1000 }),
    role: Type.Union(ROLES.map((role) => Type.Literal(role))),
    name: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
const CompanySearch = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: SEARCH_MAX })),
    fund: Type.Optional(Type.String({ format: 'uuid' })),
    page: Type.Integer({ minimum: 1, maximum: SEARCH_PAGE_MAX, default: 1 }),
    pageSize: Type.Integer({ minimum: 1, maximum: SEARCH_PAGE_SIZE_MAX, default: 20 }),
  },
  { additionalProperties: false },
);

/** A key as the page shows it. */
function shownKey(key: PortfolioKeyWithCreator) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.displayPrefix,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
    revokedAt: key.revokedAt,
    createdBy: key.createdBy,
  };
}

/** A person as the page shows them. */
const shownPerson = ({ id, email, name, role, active, createdAt }: User) => ({
  id,
  email,
  name,
  role,
  active,
  createdAt,
});

function adminOnly(caller: DashboardCaller, what: string): void {
  if (caller.user.role !== 'admin') {
    throw new AppError('FORBIDDEN', `Only admins ${what}: ask an admin of ${caller.instance.name}.`);
  }
}

/**
 * The routes of one instance's data, under `/instances/:slug/`: its API keys, its people and its portfolio.
 * Each needs a session signed in to that instance (UNAUTHENTICATED without one, WRONG_INSTANCE with another
 * instance's, answered alike whether or not the slug exists); keys and people are changed by admins only.
 */
export function registerInstanceRoutes(api: FastifyInstance, deps: DashboardDeps): void {
  const { db } = deps;
  api.decorateRequest('dashboardCaller', null);

  void api.register(
    (routes, _options, done) => {
      routes.addHook('preHandler', signedInToInstance(db));
      const callerOf = (request: { dashboardCaller: DashboardCaller | null }): DashboardCaller => {
        if (!request.dashboardCaller) throw new Error('an instance route ran without its caller');
        return request.dashboardCaller;
      };

      routes.get('/keys', { schema: { params: Slug } }, async (request) => {
        const caller = callerOf(request);
        return { keys: (await listKeysWithCreators(db, caller.instance.id)).map(shownKey) };
      });

      routes.post<{ Body: Static<typeof NewKey> }>(
        '/keys',
        { schema: { params: Slug, body: NewKey } },
        async (request, reply) => {
          const caller = callerOf(request);
          adminOnly(caller, 'generate keys');
          const { key, record } = await createPortfolioKey(db, {
            instanceId: caller.instance.id,
            name: request.body.name,
            createdBy: caller.user.id,
          });
          const createdBy = { name: caller.user.name, email: caller.user.email };
          return reply.code(201).send({ key: shownKey({ ...record, createdBy }), secret: key });
        },
      );

      routes.delete<{ Params: Static<typeof WithId> }>(
        '/keys/:id',
        { schema: { params: WithId } },
        async (request) => {
          const caller = callerOf(request);
          adminOnly(caller, 'revoke keys');
          const revoked = await portfolioKeys.revoke(db, {
            ownerId: caller.instance.id,
            key: request.params.id,
          });
          const [key] = revoked ? await listKeysWithCreators(db, caller.instance.id, revoked.id) : [];
          if (!key) throw new AppError('NOT_FOUND', 'There is no such key.');
          return { key: shownKey(key) };
        },
      );

      routes.get('/people', { schema: { params: Slug } }, async (request) => {
        const caller = callerOf(request);
        return {
          people: (await listUsers(db, { kind: 'instance', id: caller.instance.id })).map(shownPerson),
        };
      });

      routes.post<{ Body: Static<typeof NewPerson> }>(
        '/people',
        { schema: { params: Slug, body: NewPerson } },
        async (request, reply) => {
          const caller = callerOf(request);
          adminOnly(caller, 'invite people');
          const { user } = await invitePerson(db, deps.mail, {
            instance: caller.instance,
            email: request.body.email,
            role: request.body.role,
            name: request.body.name,
            invitedBy: caller.user.id,
          });
          return reply.code(201).send({ person: shownPerson(user) });
        },
      );

      routes.delete<{ Params: Static<typeof WithId> }>(
        '/people/:id',
        { schema: { params: WithId } },
        async (request) => {
          const caller = callerOf(request);
          adminOnly(caller, 'remove people');
          if (request.params.id === caller.user.id) {
            throw new AppError('CONFLICT', 'You cannot remove yourself: ask another admin.');
          }
          return {
            person: shownPerson(
              await removeUser(db, { kind: 'instance', id: caller.instance.id }, request.params.id),
            ),
          };
        },
      );

      routes.get('/funds', { schema: { params: Slug } }, async (request) => ({
        funds: await listFunds(db, callerOf(request).instance.id),
      }));

      routes.get<{ Querystring: Static<typeof CompanySearch> }>(
        '/companies',
        { schema: { params: Slug, querystring: CompanySearch } },
        async (request) => {
          const caller = callerOf(request);
          const { search, fund, page, pageSize } = request.query;
          const found = await searchCompanies(db, {
            instanceId: caller.instance.id,
            search,
            fundId: fund,
            page,
            pageSize,
          });
          return { ...found, page, pageSize };
        },
      );

      routes.get<{ Params: Static<typeof WithId> }>(
        '/companies/:id',
        { schema: { params: WithId } },
        async (request) => {
          const caller = callerOf(request);
          const company = await getCompany(db, caller.instance.id, request.params.id);
          /** A company's records of one list, newest first, through the API's own pages. */
          const all = async <Name extends 'updates' | 'investments'>(list: Name) => {
            const records: ListRecords[Name][] = [];
            let cursor: string | undefined;
            do {
              const page = await listPage(deps, {
                list,
                instanceId: caller.instance.id,
                companyId: company.id,
                limit: MAX_LIMIT,
                cursor,
              });
              records.push(...page.data);
              cursor = page.nextCursor ?? undefined;
            } while (cursor !== undefined && records.length < COMPANY_RECORDS_MAX);
            return records;
          };
          const [updates, investments] = [await all('updates'), await all('investments')];
          // Oldest first: the charts read left to right.
          return { company, updates: updates.reverse(), investments };
        },
      );
      done();
    },
    { prefix: '/instances/:slug' },
  );
}
