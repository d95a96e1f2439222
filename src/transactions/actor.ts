/**
 * Who causes a change: a person of the organization's console, an integrator's API key, a recipient, or Portico
 * itself; and the request that made it (its `x-request-id`), when a request did.
 */
export interface Actor {
  type: 'user' | 'api_key' | 'recipient' | 'system';
  /** The user's, key's or transaction recipient's id; null for Portico. */
  id: string | null;
  requestId?: string | undefined;
}
