import type { AccountSurface } from '../shared/accounts/surface.ts';
import type { AccountRoutes } from '../shared/accounts/api-client.ts';
import { client } from './api.ts';
import { PRODUCT } from './product.ts';
import { useSession } from './session.tsx';
import type { InstanceSummary, SessionAnswer, SignedInUser } from './types.ts';

/** The dashboard as the shared account pages see it (web/shared/accounts/): its tenants are instances. */
export const ACCOUNTS: AccountSurface<SessionAnswer, SignedInUser, InstanceSummary> = {
  product: PRODUCT,
  api: client.routes<AccountRoutes<SessionAnswer>>(),
  useSession,
  home: (instance) => `/${instance.slug}/companies`,
  tenant: {
    noun: 'instance',
    field: 'instance',
    choiceCode: 'INSTANCE_CHOICE_REQUIRED',
    choicesKey: 'instances',
    idKey: 'slug',
  },
  nameHint: 'Optional. Shown to your colleagues, for example next to the keys you generate.',
};
