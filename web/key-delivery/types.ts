// What the key-delivery routes (`/key-delivery/api/…`) take and answer, derived from their contract
// (src/transactions/key-delivery/contract.ts) with type-only imports: no server code enters the bundle.

import type { Static } from '@sinclair/typebox';
import type { SuccessOf } from '../../src/http/contract.ts';
import type { KeyDeliveryRoutes } from '../../src/transactions/key-delivery/contract.ts';

/** A route of the page: `describe`, `code` or `reveal`. */
export type Route = keyof KeyDeliveryRoutes;
/** What a route takes in its body. */
export type BodyOf<Name extends Route> = Static<KeyDeliveryRoutes[Name]['body']>;
/** What a route answers when it succeeds. */
export interface Answers {
  /** What `describe` tells before an address is proved. */
  describe: SuccessOf<KeyDeliveryRoutes['describe']>;
  /** `code` (202): where the code went, and until when it holds. */
  code: SuccessOf<KeyDeliveryRoutes['code']>;
  /** `reveal`: the encrypted key, once. */
  reveal: SuccessOf<KeyDeliveryRoutes['reveal']>;
}
export type Invitation = Answers['describe'];
