// The key-delivery page's calls to its routes under /key-delivery/api (src/transactions/key-delivery/), typed by
// their contract. The link's id and the proof of its secret go in each body; no cookie goes along.

import type { KeyDeliveryRoutes } from '../../src/transactions/key-delivery/contract.ts';
import { contractClient, sendWithoutCookies } from '../shared/contract-client.ts';

export { ApiError } from '../shared/api-error.ts';

/** Calls a key-delivery route, e.g. `await keyDeliveryApi('POST /describe', { body: { linkId, proof } })`. */
export const keyDeliveryApi = contractClient<KeyDeliveryRoutes>('/key-delivery/api', sendWithoutCookies);
