// What the key-delivery routes (`/key-delivery/api/…`) take and answer, derived from their contract
// (src/transactions/key-delivery/contract.ts) with type-only imports: no server code enters the bundle.

import type { SuccessOf } from '../../src/http/contract.ts';
import type { KeyDeliveryRoutes } from '../../src/transactions/key-delivery/contract.ts';

/** What `POST /describe` tells before an address is proved. */
export type Invitation = SuccessOf<KeyDeliveryRoutes['describe']>;
