/**
 * Every error this package throws is a `PorticoError`: `instanceof` tells an integrator's code which kind it is,
 * and none of them carries an API key (a key's message names its prefix at most).
 */
export class PorticoError extends Error {
  override name = 'PorticoError';
}

/** The client refused to send: the key is of the wrong kind, the wrong environment or malformed. */
export class PorticoKeyError extends PorticoError {
  override name = 'PorticoKeyError';
}

/** The request never got an answer (no connection, reset, timed out), after every retry the client makes. */
export class PorticoNetworkError extends PorticoError {
  override name = 'PorticoNetworkError';
}
