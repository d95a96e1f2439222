/**
 * Who causes a change: a person of the organization's console, an integrator's API key, a recipient, or Portico
 * itself; and the request that made it (its `x-request-id`), when a request did.
 */
export interface Actor {
  type: 'user' | 'api_key' | 'recipient' | 'system';
  /** The user's, key's or transaction recipient's id; null for Portico. */
  id: string | null;
  requestId?: string | undefined;
  /** Where the request came from, kept beside each history entry it writes (`transaction_history_origins`). */
  origin?: ActOrigin | undefined;
}

/** Where an act came from: the client's address and user agent, and how the person was identified. */
export interface ActOrigin {
  ipAddress: string | null;
  userAgent: string | null;
  /** In words: "the link mailed to jane@example.com", "signed in to the console as olive@example.com". */
  identifiedBy: string;
}

/** The longest user agent kept: a client's header is not bounded by anything else. */
const MAX_USER_AGENT = 512;

/** The origin of a request, as a history entry keeps it. */
export function originOf(
  request: { ip: string; headers: { 'user-agent'?: string | undefined } },
  identifiedBy: string,
): ActOrigin {
  return {
    ipAddress: request.ip,
    userAgent: request.headers['user-agent']?.slice(0, MAX_USER_AGENT) ?? null,
    identifiedBy,
  };
}
