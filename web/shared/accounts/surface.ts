import type { ApiErrorCode } from '../api-error.ts';
import type { ContractClient } from '../contract-client.ts';
import type { AccountRoutes } from './api-client.ts';
import type { SessionContextValue } from './session.tsx';

/** A tenant one may choose at sign-in, when an address and password open several. */
export interface TenantChoice {
  /** What the sign-in sends to name it (an instance's slug, an organization's handle). */
  id: string;
  name: string;
}

/**
 * What the shared account pages (sign-in, the mailed links' pages, "forgot your password?") need to know of the
 * surface they are on: its name, its routes, its session, and what its tenants are called.
 */
export interface AccountSurface<Answer, User, Tenant> {
  /** How the surface names itself under the brand on its pages without a header, e.g. "Organization console". */
  product: string;
  /** The calls of its account routes: `client.routes<AccountRoutes<SessionAnswer>>()` of the surface's client. */
  api: ContractClient<AccountRoutes<Answer>>;
  useSession: () => SessionContextValue<Answer, User, Tenant>;
  /** Where a person goes after signing in, unless they came from a page. */
  home: (tenant: Tenant) => string;
  tenant: {
    /** What a tenant is called in the pages' texts, e.g. "instance", "organization". */
    noun: string;
    /** The sign-in body's field that names the chosen tenant. */
    field: string;
    /**
     * The sign-in's error code when the address and password open several tenants, the key of its details that
     * lists them, and the field of each that names it (e.g. `INSTANCE_CHOICE_REQUIRED`, `instances`, `slug`).
     */
    choiceCode: ApiErrorCode;
    choicesKey: string;
    idKey: string;
  };
  /** The hint under "Your name" when accepting an invitation: where colleagues see it. */
  nameHint: string;
}
