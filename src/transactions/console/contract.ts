import { Type, type Static } from '@sinclair/typebox';
import { CONSOLE_ROLES } from '../../accounts/roles.ts';
import { accountRoutes } from '../../http/account-contract.ts';
import { answers, Body, OrNull, Timestamp } from '../../http/contract.ts';

/**
 * The contract of the organization console's JSON routes (`/console/api`): what each takes and answers (see
 * src/http/contract.ts). `web/console/types.ts` derives the page's types from it.
 */

const Role = Type.Union(CONSOLE_ROLES.map((role) => Type.Literal(role)));
const WithId = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const ConsoleUser = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: Role,
});
export type ConsoleUser = Static<typeof ConsoleUser>;
export const OrganizationSummary = Type.Object({ handle: Type.String(), name: Type.String() });
export type OrganizationSummary = Static<typeof OrganizationSummary>;

/** Who is signed in (both null when no one is) and the CSRF token for the next change. */
const SessionAnswer = Type.Object({
  csrfToken: Type.String(),
  user: OrNull(ConsoleUser),
  organization: OrNull(OrganizationSummary),
});

export const TeamMember = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: Role,
  /** Whether they have set a password (accepted their invitation). */
  active: Type.Boolean(),
  /** When an admin deactivated them; null while they may sign in. */
  deactivatedAt: OrNull(Timestamp()),
  createdAt: Timestamp(),
});
export type TeamMember = Static<typeof TeamMember>;

export const consoleRoutes = {
  ...accountRoutes(SessionAnswer, { organization: Type.Optional(Type.String({ maxLength: 63 })) }),
  /** GET /team: the organization's people, in the order they were invited. */
  listTeam: { response: answers({ 200: Type.Object({ people: Type.Array(TeamMember) }) }) },
  /** POST /team: invites a person by mail (admins only). */
  invite: {
    body: Body({
      email: Type.String({ maxLength: 1000 }),
      role: Role,
      name: Type.Optional(Type.String({ maxLength: 1000 })),
    }),
    response: answers({ 201: Type.Object({ person: TeamMember }) }),
  },
  /** POST /team/:id/deactivate: ends a person's access (admins only, never their own). */
  deactivate: { params: WithId, response: answers({ 200: Type.Object({ person: TeamMember }) }) },
  /**
   * GET /live: a text/event-stream of `change` events (`{"transactions": [ids] | null}`) for the caller's
   * organization; see live-route.ts.
   */
  live: { response: answers({ 200: Type.String({ description: 'A text/event-stream.' }) }) },
} as const;

export type ConsoleRoutes = typeof consoleRoutes;
