import { createSession } from '../shared/accounts/session.tsx';
import type { AccountSurface } from '../shared/accounts/surface.ts';
import type { AccountRoutes } from '../shared/accounts/api-client.ts';
import { client } from './api.ts';
import type { ConsoleUser, OrganizationSummary, SessionAnswer } from './types.ts';

/**
 * Who is signed in to the console, and to which organization (the session's `tenant`). When a session ends
 * under a page, the page stays, with everything typed on it, and the sign-in shows above it
 * (`SignInAgainDialog`): after signing in again, the person sends what they typed once more.
 */
export const { SessionProvider, useSession, useSignedIn } = createSession<
  SessionAnswer,
  ConsoleUser,
  OrganizationSummary
>({
  client,
  read: (answer) =>
    answer.user && answer.organization
      ? { user: answer.user, tenant: answer.organization, secondFactorRequired: answer.secondFactorRequired }
      : undefined,
  whenSessionEnds: 'sign-in-above-page',
});

/** The console as the shared account pages see it (web/shared/accounts/): its tenants are organizations. */
export const ACCOUNTS: AccountSurface<SessionAnswer, ConsoleUser, OrganizationSummary> = {
  product: 'Organization console',
  api: client.routes<AccountRoutes<SessionAnswer>>(),
  useSession,
  home: () => '/queue',
  tenant: {
    noun: 'organization',
    field: 'organization',
    choiceCode: 'ORGANIZATION_CHOICE_REQUIRED',
    choicesKey: 'organizations',
    idKey: 'handle',
  },
  nameHint: 'Optional. Shown to your colleagues, for example on the team page.',
};
