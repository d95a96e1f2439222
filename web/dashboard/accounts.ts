import type { AccountSurface } from '../shared/accounts/surface.ts';
import { api } from './api.ts';
import { PRODUCT } from './product.ts';
import { useSession } from './session.tsx';
import type { InstanceSummary, SessionAnswer, SignedInUser } from './types.ts';

/** The dashboard as the shared account pages see it (web/shared/accounts/): its tenants are instances. */
export const ACCOUNTS: AccountSurface<SessionAnswer, SignedInUser, InstanceSummary> = {
  product: PRODUCT,
  api,
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
