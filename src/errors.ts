// Kept as one file: the error catalogue, as Fastify's lib/errors.js is one: every code with its status, and the
// message templates of the codes below them, so that a code's wordings are found in one place.

/**
 * The one catalogue of error codes clients see, with their HTTP status. GraphQL puts the code in
 * `errors[].extensions.code`; REST answers `{"error": {"code", "message", "requestId"}}`.
 * docs/errors.md lists them for users.
 */
export const ERROR_STATUS = {
  BAD_USER_INPUT: 400,
  INVALID_CURSOR: 400,
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  QUERY_TOO_DEEP: 400,
  TOO_MANY_ALIASES: 400,
  TOO_MANY_DIRECTIVES: 400,
  TOO_MANY_TOKENS: 400,
  QUERY_TOO_COMPLEX: 400,
  RESPONSE_TOO_LARGE: 400,
  PERSISTED_QUERY_NOT_FOUND: 400,
  LINK_INVALID: 400,
  CODE_INVALID: 400,
  PASSKEY_CHALLENGE_INVALID: 400,
  PASSKEY_ORIGIN_INVALID: 400,
  PASSKEY_RP_ID_INVALID: 400,
  PASSKEY_INVALID: 400,
  FILE_EMPTY: 400,
  FILENAME_INVALID: 400,
  MULTIPART_INVALID: 400,
  CONSENT_REQUIRED: 400,
  MONEY_INVALID: 400,
  AGREEMENT_INVALID: 400,
  TABLE_INVALID: 400,
  SSO_STATE_INVALID: 400,
  SSO_NONCE_INVALID: 400,
  SSO_ISSUER_MISMATCH: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  PASSKEY_UNKNOWN: 401,
  SSO_TOKEN_INVALID: 401,
  HTTPS_REQUIRED: 403,
  FORBIDDEN: 403,
  CSRF_INVALID: 403,
  WRONG_INSTANCE: 403,
  ADDRESS_NOT_LISTED: 403,
  PASSKEY_OF_ANOTHER_PERSON: 403,
  SECOND_FACTOR_REQUIRED: 403,
  SSO_REQUIRED: 403,
  SSO_DENIED: 403,
  SSO_EMAIL_NOT_VERIFIED: 403,
  SSO_DOMAIN_NOT_COVERED: 403,
  SSO_NO_ACCOUNT: 403,
  SSO_ACCOUNT_DEACTIVATED: 403,
  NOT_FOUND: 404,
  SSO_NOT_CONFIGURED: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  INVALID_EVENT: 409,
  CODE_REPLAYED: 409,
  PASSKEY_COUNTER_BEHIND: 409,
  PASSKEY_EXISTS: 409,
  STALE_STATE: 409,
  INSTANCE_CHOICE_REQUIRED: 409,
  ORGANIZATION_CHOICE_REQUIRED: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  REVISION_SUBMITTED: 409,
  REVISION_INCOMPLETE: 409,
  TEMPLATE_ARCHIVED: 409,
  ESIGN_CONSENT_REQUIRED: 409,
  LAST_FACTOR_REQUIRED: 409,
  LINK_USED: 410,
  LINK_EXPIRED: 410,
  LINK_REVOKED: 410,
  TRANSACTION_VOIDED: 410,
  CODE_EXPIRED: 410,
  RECOVERY_CODE_USED: 410,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  FILE_TOO_LARGE: 413,
  TOO_MANY_ROWS: 413,
  SELECTION_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  FILE_TYPE_NOT_ALLOWED: 415,
  RANGE_NOT_SATISFIABLE: 416,
  DOCUMENT_TOO_COMPLEX: 422,
  RATE_LIMITED: 429,
  CODE_LOCKED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  SSO_ISSUER_UNREACHABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * An error meant for the client: its message is shown as it is. Anything else that is thrown is
 * masked as INTERNAL_SERVER_ERROR and logged with the request id.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra machine-readable facts for the client, e.g. `{ field: 'templateId' }`. */
    readonly details?: Record<string, unknown>,
    options?: {
      cause?: unknown;
      /** Sent as `Retry-After` (seconds): when trying again makes sense (429, 503). */
      retryAfterSeconds?: number;
      /** See {@link AppError.forOperators}. */
      forOperators?: string;
    },
  ) {
    super(message, options);
    this.status = ERROR_STATUS[code];
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.forOperators = options?.forOperators;
  }

  readonly retryAfterSeconds: number | undefined;
  /**
   * The message for the people who run Portico, where it names what a client must not see (a setting, a host,
   * a server's answer): the `portico` command prints it in place of `message`, and a service's log line of the
   * error holds it. A client sees `message` only.
   */
  readonly forOperators: string | undefined;
}

/** What an error says to the people who run Portico: an AppError's `forOperators`, else any error's message. */
export function operatorMessage(error: unknown): string {
  if (error instanceof AppError) return error.forOperators ?? error.message;
  return error instanceof Error ? error.message : String(error);
}

export const INTERNAL_MESSAGE =
  'An unexpected error occurred. Quote the request id when you contact support.';

/** What a client may see of an error, and whether it was the client's mistake (`expected`) or ours. */
export interface DescribedError {
  code: ErrorCode;
  status: number;
  message: string;
  details?: Record<string, unknown>;
  retryAfterSeconds?: number;
  expected: boolean;
}

/** Statuses that Fastify and its plugins give their own errors, as codes of our catalogue. */
const STATUS_CODES = new Map<number, ErrorCode>([
  [400, 'BAD_USER_INPUT'],
  [401, 'UNAUTHENTICATED'],
  [403, 'FORBIDDEN'],
  [404, 'NOT_FOUND'],
  [405, 'METHOD_NOT_ALLOWED'],
  [406, 'NOT_ACCEPTABLE'],
  [408, 'REQUEST_TIMEOUT'],
  [409, 'CONFLICT'],
  [412, 'PRECONDITION_FAILED'],
  [413, 'PAYLOAD_TOO_LARGE'],
  [414, 'URI_TOO_LONG'],
  [415, 'UNSUPPORTED_MEDIA_TYPE'],
  [416, 'RANGE_NOT_SATISFIABLE'],
  [429, 'RATE_LIMITED'],
  [431, 'HEADERS_TOO_LARGE'],
  [503, 'SERVICE_UNAVAILABLE'],
]);

/** Fastify's own codes whose message we would rather word ourselves. */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The body is not valid JSON.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The body is empty; send a JSON document.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The body is larger than this API accepts.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type; send application/json.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length does not match the body.',
};

/** Codes of plugins' own errors that our catalogue names more precisely than their status would. */
const PLUGIN_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  FST_CSRF_MISSING_SECRET: {
    code: 'CSRF_INVALID',
    message: 'This page has no security token yet: reload the page and try again.',
  },
  FST_CSRF_INVALID_TOKEN: {
    code: 'CSRF_INVALID',
    message: "The page's security token is missing or not valid: reload the page and try again.",
  },
};

/**
 * What a client may see of any error: its code, status and message; unexpected errors are masked.
 * Fastify's own client errors (bad JSON, too large, …) keep their status with a code of our catalogue.
 */
export function describeError(error: unknown): DescribedError {
  if (error instanceof AppError) {
    return {
      code: error.code,
      status: error.status,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
      expected: true,
    };
  }
  const fastifyError = (error ?? {}) as { statusCode?: unknown; code?: unknown; message?: unknown };
  const plugin = typeof fastifyError.code === 'string' ? PLUGIN_ERRORS[fastifyError.code] : undefined;
  if (plugin) return { ...plugin, status: ERROR_STATUS[plugin.code], expected: true };
  const status = typeof fastifyError.statusCode === 'number' ? fastifyError.statusCode : undefined;
  const code = status === undefined ? undefined : STATUS_CODES.get(status);
  if (code !== undefined && status !== undefined && status < 500) {
    const own = typeof fastifyError.code === 'string' ? FASTIFY_MESSAGES[fastifyError.code] : undefined;
    const message = typeof fastifyError.message === 'string' ? fastifyError.message : code;
    return { code, status, message: own ?? clip(message, 300), expected: true };
  }
  return {
    code: 'INTERNAL_SERVER_ERROR',
    status: ERROR_STATUS.INTERNAL_SERVER_ERROR,
    message: INTERNAL_MESSAGE,
    expected: false,
  };
}

/** The body of every non-GraphQL error answer: `{"error": {code, message, requestId, details?}}`. */
export function errorBody(
  described: Pick<DescribedError, 'code' | 'message' | 'details'>,
  requestId: string,
): { error: { code: ErrorCode; message: string; requestId: string; details?: Record<string, unknown> } } {
  return {
    error: {
      code: described.code,
      message: described.message,
      requestId,
      ...(described.details ? { details: described.details } : {}),
    },
  };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * Words listed as a sentence says them: `a`, `a or b`, `a, b or c` (with `and`: `a, b and c`).
 *
 * @example
 * listed(['draft', 'in progress', 'changes requested'], 'or'); // 'draft, in progress or changes requested'
 */
export function listed(words: readonly string[], conjunction: 'and' | 'or'): string {
  return words.length < 2
    ? words.join('')
    : `${words.slice(0, -1).join(', ')} ${conjunction} ${words.at(-1) ?? ''}`;
}

/**
 * A client's value as an error message may show it: JSON-quoted, at most `max` characters of it, control
 * characters and unpaired surrogates escaped. Messages never echo what a client sent whole.
 *
 * @example
 * quote('x'.repeat(1000)); // '"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…" (1000 characters)'
 */
export function quote(value: unknown, max = 40): string {
  if (typeof value !== 'string') {
    let text: string;
    try {
      // JSON.stringify answers undefined for undefined and functions, and throws for bigint and cycles.
      const json: unknown = JSON.stringify(value);
      text = typeof json === 'string' ? json : typeof value;
    } catch {
      text = typeof value;
    }
    return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
  }
  const shown = JSON.stringify(value.length <= max ? value : value.slice(0, max)).replace(
    /\p{Cs}/gu,
    (surrogate) => `\\u${surrogate.charCodeAt(0).toString(16)}`,
  );
  return value.length <= max ? shown : `${shown.slice(0, -1)}…" (${value.length} characters)`;
}

// Message templates, by code, as Fastify's lib/errors.js keeps each message with its code. Here are: every
// wording said at more than one place (test/errors/one-voice.test.ts fails on one written twice), and every
// wording of a code that tells one story (a mailed link or code that no longer works, a refused upload or
// revision). A message that only one check gives under a general code (BAD_USER_INPUT, CONFLICT, FORBIDDEN,
// NOT_FOUND, …) stays with that check, where its reason is read; so do the GraphQL limits' (graphql/limits.ts),
// the Portfolio cursor's (portfolio/cursor.ts) and the dashboard's sign-in (portfolio/dashboard/).

// ── BAD_USER_INPUT ──

/**
 * BAD_USER_INPUT for text longer than its limit.
 *
 * @example
 * throw tooLong('A key name', 100, { field: 'name' }); // "A key name has at most 100 characters."
 */
export function tooLong(what: string, max: number, details?: Record<string, unknown>): AppError {
  return new AppError('BAD_USER_INPUT', `${what} has at most ${String(max)} characters.`, details);
}

/**
 * BAD_USER_INPUT for text that is empty once trimmed.
 *
 * @example
 * throw blank('noticeName', { field: 'noticeName' }); // "noticeName must not be blank."
 */
export function blank(what: string, details?: Record<string, unknown>): AppError {
  return new AppError('BAD_USER_INPUT', `${what} must not be blank.`, details);
}

/**
 * BAD_USER_INPUT for a number outside its range.
 *
 * @example
 * throw outOfRange('first', 1, 100, { field: 'first' }); // "first must be between 1 and 100."
 */
export function outOfRange(
  what: string,
  min: number,
  max: number,
  details?: Record<string, unknown>,
): AppError {
  return new AppError(
    'BAD_USER_INPUT',
    `${what} must be between ${String(min)} and ${String(max)}.`,
    details,
  );
}

/**
 * BAD_USER_INPUT for a value that is not what it should be, with the values it may be when they are few.
 *
 * @example
 * throw isNot('ada@', 'an e-mail address', { field: 'email' }); // '"ada@" is not an e-mail address.'
 * throw isNot('fund', 'a type of entity', { field: 'type' }, ['company', 'person']);
 * // '"fund" is not a type of entity: one of company, person.'
 */
export function isNot(
  value: unknown,
  what: string,
  details?: Record<string, unknown>,
  oneOf?: readonly string[],
): AppError {
  const choices = oneOf === undefined ? '' : `: one of ${oneOf.join(', ')}`;
  return new AppError('BAD_USER_INPUT', `${quote(value)} is not ${what}${choices}.`, details);
}

/** BAD_USER_INPUT for data that breaks the schema of an item: `problems` as `listProblems` words them. */
export function itemDataDoesNotFit(
  vulcanKey: string,
  problems: string,
  details: Record<string, unknown>,
): AppError {
  return new AppError(
    'BAD_USER_INPUT',
    `the data does not fit item ${quote(vulcanKey)}: ${problems}`,
    details,
  );
}

/** BAD_USER_INPUT for a webhook endpoint that would want no event. */
export function noEventTypes(): AppError {
  return new AppError('BAD_USER_INPUT', 'An endpoint must want at least one event type.', {
    field: 'eventTypes',
  });
}

/** BAD_USER_INPUT for a webhook host name that resolves to no address (`host` as the message shows it). */
export function hostDoesNotResolve(host: string, cause?: unknown): AppError {
  return new AppError(
    'BAD_USER_INPUT',
    `The webhook host ${host} does not resolve.`,
    { field: 'url' },
    { cause },
  );
}

/**
 * BAD_USER_INPUT for a password change whose current password is not the person's: it names the field, so that the
 * form says it beside it, and is not INVALID_CREDENTIALS, whose 401 would read as a session that ended.
 */
export function wrongCurrentPassword(): AppError {
  return new AppError('BAD_USER_INPUT', 'Your current password is not right.', { field: 'currentPassword' });
}

// ── INVALID_CREDENTIALS ──

/**
 * INVALID_CREDENTIALS, the same whether the address is unknown, has no password yet, or the password is wrong:
 * the answer never tells which addresses have accounts.
 */
export function wrongCredentials(): AppError {
  return new AppError('INVALID_CREDENTIALS', 'The e-mail address or the password is not right.');
}

/** UNAUTHENTICATED on a page's route: no one is signed in on the session, or it has ended. */
export function notSignedIn(): AppError {
  return new AppError('UNAUTHENTICATED', 'You are not signed in, or your session has ended: sign in again.');
}

// ── FORBIDDEN, WRONG_INSTANCE: what a signed-in person's role or tenant does not reach ──

/**
 * FORBIDDEN on a signed-in surface's route whose declared permission the person's role lacks: who may (`roles`,
 * in words), what the permission lets them do, and what the person is.
 */
export function notPermitted(options: {
  permission: string;
  roles: string;
  does: string;
  role: string;
  tenant: string;
}): AppError {
  const { permission, roles, does, role, tenant } = options;
  return new AppError('FORBIDDEN', `Only ${roles} ${does}; you are a ${role} of ${tenant}.`, { permission });
}

/**
 * FORBIDDEN for an event a role may not trigger: a review's event (`inReview`) is the reviewers' too; for any
 * other, the review's events the reviewers may trigger are named beside it.
 */
export function mayNotTrigger(
  eventKey: string,
  role: string,
  review: { inReview: boolean; events: string[]; words: (key: string) => string },
): AppError {
  const event = review.words(eventKey);
  const theirs = review.events.map(review.words);
  const or = listed(theirs, 'or');
  const who = review.inReview
    ? `Only admins, operators and reviewers may ${event}`
    : `Only admins and operators may ${event}${theirs.length > 0 ? `; reviewers may ${or}` : ''}`;
  return new AppError('FORBIDDEN', `${who}. You are a ${role}.`, { eventKey });
}

/** FORBIDDEN for the person who asked for an event that needs a second person, deciding on it themselves. */
export function secondPersonDecides(eventKey: string): AppError {
  return new AppError('FORBIDDEN', `You asked for ${eventKey}: a second person approves or declines it.`);
}

/** WRONG_INSTANCE: a dashboard route of another instance than the one the person signed in to. */
export function wrongInstance(signedInTo: string): AppError {
  return new AppError(
    'WRONG_INSTANCE',
    `You are signed in to ${signedInTo}, not to this instance: sign out, then sign in with an account of this one.`,
  );
}

// ── NOT_FOUND ──

/**
 * The one way Portico says that something does not exist: `There is no webhook endpoint "…".`, or without an id
 * `There is no such user.`. An id of another tenant gets the same answer as one that exists nowhere.
 *
 * @example
 * if (!endpoint) throw notFound('webhook endpoint', options.endpointId);
 */
export function notFound(what: string, id?: unknown, details?: Record<string, unknown>): AppError {
  return new AppError('NOT_FOUND', thereIsNo(what, id), details);
}

/**
 * BAD_USER_INPUT for an id in the input that names nothing of the caller's, worded as {@link notFound}: the
 * request is fine, the value of `field` is not.
 *
 * @example
 * throw unknownReference('template', input.templateId, 'templateId'); // 'There is no template "…".'
 */
export function unknownReference(what: string, id: unknown, field: string): AppError {
  return new AppError('BAD_USER_INPUT', thereIsNo(what, id), { field });
}

function thereIsNo(what: string, id: unknown): string {
  return id === undefined || id === null ? `There is no such ${what}.` : `There is no ${what} ${quote(id)}.`;
}

/** NOT_FOUND for a recipient link that opens no transaction (not a token, or one that never was). */
export function linkOpensNothing(): AppError {
  return new AppError('NOT_FOUND', 'This link does not open any transaction.');
}

// ── LINK_INVALID, LINK_USED, LINK_EXPIRED, LINK_REVOKED, TRANSACTION_VOIDED: a mailed link that no longer opens what it did ──

/** What a person does about a key delivery that no longer opens. */
const ASK_FOR_A_NEW_DELIVERY = 'Ask the team that issued the key for a new delivery.';

/** The links of mail: invitations and password resets (`accounts/links.ts`), key deliveries, recipient links. */
export const linkErrors = {
  /** LINK_INVALID: an invitation or reset link (`what`) that names no link. */
  notValid: (what: string) =>
    new AppError('LINK_INVALID', `This ${what} is not valid: check that the whole link was opened.`),
  /** LINK_INVALID: a link of an account of another kind of tenant (a dashboard link on another service). */
  notValidHere: () => new AppError('LINK_INVALID', 'This link is not valid here.'),
  /** LINK_USED: an invitation or reset link (`what`) used already. */
  used: (what: string) => new AppError('LINK_USED', `This ${what} has been used already: it works once.`),
  /** LINK_EXPIRED: an invitation past its week, or replaced by a newer one. */
  invitationExpired: () =>
    new AppError('LINK_EXPIRED', 'This invitation has expired: ask an admin to invite you again.'),
  /** LINK_EXPIRED: a password reset link past its hour. */
  resetExpired: () =>
    new AppError('LINK_EXPIRED', 'This password reset link has expired: ask for a new one.'),
  /** LINK_EXPIRED: a recipient link past its template's `linkValidDays`. */
  recipientLinkExpired: () =>
    new AppError('LINK_EXPIRED', 'This link has expired. Ask the sender of your invitation for a new one.'),
  /** LINK_REVOKED: a recipient link replaced by `resetTransmitToken`. */
  recipientLinkReplaced: () =>
    new AppError(
      'LINK_REVOKED',
      'This link was replaced by a newer one. Use the link in the latest e-mail you received about it.',
    ),
  /**
   * TRANSACTION_VOIDED: a recipient link whose transaction the organization voided; `details` say who voided it,
   * when and why (the recipient's page shows it).
   */
  recipientTransactionVoided: (details: { organizationName: string; reason: string; voidedAt: Date }) =>
    new AppError(
      'TRANSACTION_VOIDED',
      `${details.organizationName} voided this transaction: nothing more is asked of you. Their reason: ${details.reason}`,
      { ...details, voidedAt: details.voidedAt.toISOString() },
    ),
  /** LINK_INVALID: a key-delivery link that names no delivery. */
  deliveryNotValid: () =>
    new AppError(
      'LINK_INVALID',
      'This key-delivery link is not valid: open the whole link from the e-mail, or ask for a new one.',
    ),
  /** LINK_INVALID: a key-delivery link whose secret part (after the #) does not match. */
  deliveryProofChanged: () =>
    new AppError(
      'LINK_INVALID',
      'The end of this link (after the #) is missing or changed: open the whole link from the e-mail.',
    ),
  /** LINK_REVOKED: a key delivery the operator revoked. */
  deliveryRevoked: () =>
    new AppError('LINK_REVOKED', `This key delivery was revoked. ${ASK_FOR_A_NEW_DELIVERY}`),
  /** LINK_EXPIRED: a key delivery past its time. */
  deliveryExpired: (expiresAt: Date) =>
    new AppError(
      'LINK_EXPIRED',
      `This key delivery expired at ${expiresAt.toISOString()}: a delivered key can be seen for an hour at most. ${ASK_FOR_A_NEW_DELIVERY}`,
    ),
  /** LINK_USED: a delivered key viewed as often as its delivery allows. */
  keyViewed: () =>
    new AppError(
      'LINK_USED',
      `This key has been viewed already, and is shown only once. ${ASK_FOR_A_NEW_DELIVERY}`,
    ),
  /** LINK_USED: a delivered key this address has viewed already. */
  keyViewedBy: (address: string, viewedAt: Date) =>
    new AppError(
      'LINK_USED',
      `${address} viewed this key on ${viewedAt.toISOString()}: it is shown once. If it was not stored, ask the team that issued it to revoke it and deliver a new one.`,
    ),
};

// ── CODE_INVALID, CODE_EXPIRED, CODE_LOCKED: the code mailed to prove an address (key delivery) ──

/** The codes that prove an address to a key delivery. */
export const codeErrors = {
  /** CODE_EXPIRED: past its 10 minutes, used already, replaced by a newer one, or none asked for. */
  expired: () =>
    new AppError(
      'CODE_EXPIRED',
      'This code no longer works (a code works once, for 10 minutes): ask for a new one.',
    ),
  /** CODE_INVALID: a wrong code, with the tries `left`. */
  wrong: (left: number) =>
    new AppError(
      'CODE_INVALID',
      `The code is not right: ${String(left)} ${left === 1 ? 'try' : 'tries'} left.`,
      { field: 'code' },
    ),
  /** CODE_LOCKED: a code entered wrongly `attempts` times. */
  locked: (attempts: number, details?: Record<string, unknown>) =>
    new AppError(
      'CODE_LOCKED',
      `The code was entered wrongly ${String(attempts)} times: ask for a new one.`,
      details,
    ),
};

// ── CODE_INVALID, CODE_REPLAYED, RECOVERY_CODE_USED: an authenticator app's codes and recovery codes ──

/** The second factor's refusals: an authenticator app's codes, the recovery codes, the half-finished sign-in. */
export const factorErrors = {
  /** CODE_INVALID: neither the app's code of now (±30 seconds) nor an unused recovery code. */
  wrong: () =>
    new AppError(
      'CODE_INVALID',
      "The code is not right: type the code your authenticator app shows now (check the device's clock), or one of your recovery codes.",
      { field: 'code' },
    ),
  /** CODE_REPLAYED: a code of a time step accepted already (a code works once). */
  replayed: () =>
    new AppError(
      'CODE_REPLAYED',
      'This code has been used already (a code works once): wait for the next code your app shows.',
      { field: 'code' },
    ),
  /** RECOVERY_CODE_USED: a recovery code used already. */
  recoveryCodeUsed: () =>
    new AppError(
      'RECOVERY_CODE_USED',
      'This recovery code has been used already (each works once): use another, or the code of your app.',
      { field: 'code' },
    ),
  /** UNAUTHENTICATED: a second step with no first step, or one begun more than 5 minutes ago. */
  signInNotBegun: () =>
    new AppError(
      'UNAUTHENTICATED',
      'Your sign-in was not finished within 5 minutes, or never began: sign in again with your password.',
    ),
  /** CONFLICT: adding an app while one is added already. */
  appExists: () =>
    new AppError('CONFLICT', 'You have an authenticator app already: remove it before adding another.'),
  /** CONFLICT: confirming, removing or remaking codes without an app. */
  noApp: () => new AppError('CONFLICT', 'You have no authenticator app: add one first.'),
  /**
   * SECOND_FACTOR_REQUIRED: a person whose tenant requires a second factor of their role, who has none, calling
   * anything but what adds one (and the session, sign-out).
   */
  required: (tenantName: string) =>
    new AppError(
      'SECOND_FACTOR_REQUIRED',
      `${tenantName} requires two-step sign-in for your role: add an authenticator app in your account before you continue.`,
    ),
  /** LAST_FACTOR_REQUIRED: removing one's last second factor while the tenant requires one of the person's role. */
  lastRequired: (tenantName: string) =>
    new AppError(
      'LAST_FACTOR_REQUIRED',
      `${tenantName} requires two-step sign-in for your role: this is your last second factor, so it stays. Add another before removing it, or ask an admin to reset it.`,
    ),
  /** CONFLICT: an admin resetting their own factors from the team's page (their own settings do it). */
  resetOwn: () =>
    new AppError(
      'CONFLICT',
      'You cannot reset your own two-step sign-in here: remove or change your authenticator app in your account settings.',
    ),
  /** CONFLICT: an admin resetting the two-step sign-in of a colleague who has none. */
  nothingToReset: (who: string) =>
    new AppError(
      'CONFLICT',
      `${who} has no two-step sign-in to reset: no authenticator app, and no passkey.`,
    ),
  /** BAD_USER_INPUT: removing the app or remaking codes with neither a code nor the password. */
  proofRequired: () =>
    new AppError('BAD_USER_INPUT', 'Enter a code from your authenticator app, or your password.', {
      field: 'code',
    }),
};

// ── PASSKEY_*: passkeys (WebAuthn) ──

/** A passkey's refusals: an answer that is not for this page and this request, or a passkey that is not right. */
export const passkeyErrors = {
  /** PASSKEY_CHALLENGE_INVALID: no passkey was asked for in this browser session, or not this one. */
  challengeMismatch: () =>
    new AppError(
      'PASSKEY_CHALLENGE_INVALID',
      'This passkey answered another request than the one this page made: try again.',
      { field: 'passkey' },
    ),
  /** PASSKEY_CHALLENGE_INVALID: asked for more than 5 minutes ago, used already, or never asked for. */
  challengeExpired: () =>
    new AppError(
      'PASSKEY_CHALLENGE_INVALID',
      'The request for your passkey has ended (it lasts 5 minutes, and works once): try again.',
      { field: 'passkey' },
    ),
  /** PASSKEY_ORIGIN_INVALID: the browser signed for another web address than these pages'. */
  origin: (origin: string, expected: string) =>
    new AppError(
      'PASSKEY_ORIGIN_INVALID',
      `This passkey answered for ${quote(origin)}, not for these pages (${expected}): use the pages at ${expected}.`,
      { field: 'passkey', origin, expected },
    ),
  /** PASSKEY_RP_ID_INVALID: the authenticator signed for another site (relying party id) than these pages'. */
  rpId: (expected: string) =>
    new AppError(
      'PASSKEY_RP_ID_INVALID',
      `This passkey answered for another site than ${expected}: use a passkey you added on these pages.`,
      { field: 'passkey', expected },
    ),
  /** PASSKEY_INVALID: the answer does not verify (a wrong signature, a malformed answer, no user presence). */
  invalid: () =>
    new AppError('PASSKEY_INVALID', 'Your passkey could not be checked: try again, or use another passkey.', {
      field: 'passkey',
    }),
  /** PASSKEY_INVALID: signing in with a passkey alone, from a device that did not verify the person. */
  notVerified: () =>
    new AppError(
      'PASSKEY_INVALID',
      'Signing in with a passkey alone needs your device to check it is you (its PIN, fingerprint or face): allow it, or sign in with your password.',
      { field: 'passkey' },
    ),
  /** PASSKEY_UNKNOWN: no person of these pages who can sign in has this passkey (removed, or never added). */
  unknown: () =>
    new AppError(
      'PASSKEY_UNKNOWN',
      'This passkey does not sign in to an account here: it was removed, or added on other pages. Sign in with your password.',
      { field: 'passkey' },
    ),
  /** PASSKEY_OF_ANOTHER_PERSON: a passkey of someone else, given as the second step of a sign-in. */
  anotherPerson: () =>
    new AppError(
      'PASSKEY_OF_ANOTHER_PERSON',
      'This passkey belongs to someone else: use a passkey of the account whose password you typed.',
      { field: 'passkey' },
    ),
  /** PASSKEY_COUNTER_BEHIND: the authenticator's counter went backwards: a copy of it, or a replayed answer. */
  counterBehind: () =>
    new AppError(
      'PASSKEY_COUNTER_BEHIND',
      'This passkey answered with a count of uses it had passed already, as a copied authenticator or a replayed answer does: it was refused. Use another passkey, and remove this one if you did not copy it.',
      { field: 'passkey' },
    ),
  /** PASSKEY_EXISTS: a credential registered already (by this person or another). */
  exists: () =>
    new AppError('PASSKEY_EXISTS', 'This passkey is added already: each passkey is added once.', {
      field: 'passkey',
    }),
};

// ── SSO_*: single sign-on with OpenID Connect (accounts/sso/) ──

/** The refusals of single sign-on, each with what the person or the admin does next. */
export const ssoErrors = {
  /** SSO_NOT_CONFIGURED: an address whose domain no connection of this surface covers. */
  notConfigured: (domain: string) =>
    new AppError(
      'SSO_NOT_CONFIGURED',
      `Single sign-on is not set up for ${domain} here: sign in with your password, or ask your admin to connect your identity provider.`,
      { field: 'email' },
    ),
  /** SSO_REQUIRED: a password sign-in of a person whose domain signs in only through its identity provider. */
  required: (domain: string) =>
    new AppError(
      'SSO_REQUIRED',
      `People of ${domain} sign in with single sign-on here, not with a password: choose "Sign in with SSO".`,
      { field: 'email', signInWith: 'sso' },
    ),
  /** SSO_ISSUER_UNREACHABLE: the identity provider did not answer its discovery document (within 5 seconds). */
  issuerUnreachable: (issuer: string, cause?: unknown) =>
    new AppError(
      'SSO_ISSUER_UNREACHABLE',
      `The identity provider at ${issuer} could not be reached: try again in a few minutes. Where passwords are allowed, you can sign in with yours.`,
      { field: 'issuer' },
      { cause, retryAfterSeconds: 60 },
    ),
  /** SSO_STATE_INVALID: an answer of the provider that no sign-in of this browser waits for, or one past 10 minutes. */
  stateInvalid: () =>
    new AppError(
      'SSO_STATE_INVALID',
      'This single sign-on answer does not belong to a sign-in begun in this browser in the last 10 minutes: sign in again.',
    ),
  /** SSO_NONCE_INVALID: an ID token made for another sign-in (its nonce is not this one's). */
  nonceInvalid: () =>
    new AppError(
      'SSO_NONCE_INVALID',
      'The identity provider answered for another sign-in (its nonce does not match): sign in again.',
    ),
  /** SSO_ISSUER_MISMATCH: an answer or ID token of another issuer than the connection's. */
  issuerMismatch: () =>
    new AppError(
      'SSO_ISSUER_MISMATCH',
      'The answer came from another identity provider than the one connected here: sign in again, and tell your admin if it happens again.',
    ),
  /** SSO_TOKEN_INVALID: an ID token that is expired, unsigned or badly signed, or a code the provider refused. */
  tokenInvalid: (why: string) =>
    new AppError(
      'SSO_TOKEN_INVALID',
      `The identity provider's answer could not be trusted (${why}): sign in again, and tell your admin if it happens again.`,
    ),
  /** SSO_DENIED: the provider answered with an error (the person refused, or is not allowed to use Portico). */
  denied: () =>
    new AppError(
      'SSO_DENIED',
      'Your identity provider did not sign you in: ask your admin whether you may use this application.',
    ),
  /** SSO_EMAIL_NOT_VERIFIED: the provider did not vouch for the person's address (`email_verified` not true). */
  emailNotVerified: () =>
    new AppError(
      'SSO_EMAIL_NOT_VERIFIED',
      'Your identity provider did not confirm your e-mail address: verify it there, then sign in again.',
    ),
  /** SSO_DOMAIN_NOT_COVERED: the address the provider gave is of a domain the connection does not cover. */
  domainNotCovered: (domain: string) =>
    new AppError(
      'SSO_DOMAIN_NOT_COVERED',
      `Your identity provider signed you in as an address of ${domain}, which single sign-on does not cover here: ask your admin to add the domain.`,
    ),
  /** SSO_NO_ACCOUNT: a person without an account here, and new accounts are not made at sign-in. */
  noAccount: (email: string) =>
    new AppError(
      'SSO_NO_ACCOUNT',
      `${email} has no account here, and accounts are not made at sign-in: ask an admin to invite you.`,
    ),
  /** SSO_ACCOUNT_DEACTIVATED: a person an admin deactivated. */
  deactivated: () =>
    new AppError(
      'SSO_ACCOUNT_DEACTIVATED',
      'Your account here was deactivated: ask an admin to reactivate it.',
    ),
};

// ── ADDRESS_NOT_LISTED ──

/** ADDRESS_NOT_LISTED: an address a key was not delivered to. */
export function addressNotListed(address: string): AppError {
  return new AppError(
    'ADDRESS_NOT_LISTED',
    `This key was not issued to ${address}: only the addresses it was issued to can see it. Ask the team that issued the key to deliver one to your address.`,
    { field: 'email' },
  );
}

// ── REVISION_SUBMITTED, REVISION_INCOMPLETE, CONSENT_REQUIRED: what a recipient sends for a revision ──

/** REVISION_SUBMITTED: a change to a revision that was submitted. */
export function revisionSubmitted(number: number, processKey: string): AppError {
  return new AppError(
    'REVISION_SUBMITTED',
    `revision ${String(number)} of ${quote(processKey)} was submitted and no longer changes`,
  );
}

/**
 * REVISION_INCOMPLETE: a submit before the revision is complete; `todo` says what is left, as
 * `['complete kyc (name)', 'sign subscription']`.
 */
export function revisionIncomplete(todo: readonly string[], details: Record<string, unknown>): AppError {
  return new AppError('REVISION_INCOMPLETE', `before submitting, ${todo.join(' and ')}`, details);
}

/** CONSENT_REQUIRED: consent fields of an item sent as anything but `true`; the message names the first. */
export function consentWithheld(vulcanKey: string, fields: readonly [string, ...string[]]): AppError {
  const [field] = fields;
  return new AppError(
    'CONSENT_REQUIRED',
    `${quote(field)} of item ${quote(vulcanKey)} is a consent: send true once the recipient gives it, and leave it out until then`,
    { item: vulcanKey, field, fields },
  );
}

/** CONSENT_REQUIRED: a signature without explicit consent. */
export function signingNeedsConsent(): AppError {
  return new AppError('CONSENT_REQUIRED', 'signing needs explicit consent (consent: true)', {
    field: 'consent',
  });
}

/**
 * ESIGN_CONSENT_REQUIRED: a recipient's signature while no consent to use electronic records and signatures is on
 * record for them, or after they withdrew it (`withdrawn`: when, and whether they asked for paper).
 */
export function esignConsentRequired(withdrawn: { at: Date; paperRequested: boolean } | null): AppError {
  return new AppError(
    'ESIGN_CONSENT_REQUIRED',
    withdrawn === null
      ? 'the recipient has not agreed to use electronic records and signatures: accept the disclosure, then sign'
      : `the recipient withdrew their agreement to use electronic records and signatures${withdrawn.paperRequested ? ' and asked for paper' : ''}: accept the disclosure again to sign here`,
    withdrawn === null
      ? { consent: null }
      : {
          consent: withdrawn.paperRequested ? 'paper_requested' : 'withdrawn',
          at: withdrawn.at.toISOString(),
        },
  );
}

// ── FILE_EMPTY, FILE_TOO_LARGE, FILENAME_INVALID, FILE_TYPE_NOT_ALLOWED, MULTIPART_INVALID: a recipient's upload ──

/** The refusals of an uploaded file (`recipients/uploads.ts` checks it, `http/multipart-file.ts` reads it). */
export const fileErrors = {
  /** FILE_EMPTY: a file without content. */
  empty: (field: string) => new AppError('FILE_EMPTY', 'the file is empty; choose it again', { field }),
  /** FILE_TOO_LARGE: a file over its field's limit, `size` as a person reads it ("25 MB"). */
  tooLarge: (size: string, details: { field: string; maxBytes: number }) =>
    new AppError('FILE_TOO_LARGE', `the file is larger than ${size}, the most this field takes`, details),
  /** FILENAME_INVALID: a file name that `why` says is not one to keep ("is empty", "holds a path"). */
  nameInvalid: (why: string) =>
    new AppError('FILENAME_INVALID', `the file name ${why}; rename the file and upload it again`, {
      field: 'file',
    }),
  /** FILE_TYPE_NOT_ALLOWED: content of another type (`detected`, if any) than the field takes (`takes`: "PDF or PNG"). */
  typeNotAllowed: (detected: string | undefined, takes: string, details: Record<string, unknown>) =>
    new AppError(
      'FILE_TYPE_NOT_ALLOWED',
      `the file's content is ${detected ?? 'of no type this field takes'}, whatever its name says; this field takes ${takes}`,
      details,
    ),
  /**
   * MULTIPART_INVALID: a body that does not parse as the multipart/form-data its Content-Type announces (no
   * boundary there, another boundary in the body, or a body that ends before its closing boundary).
   */
  multipartInvalid: (cause: unknown) =>
    new AppError(
      'MULTIPART_INVALID',
      'The body is not the multipart/form-data its Content-Type announces: name the boundary the body uses in ' +
        'the Content-Type (multipart/form-data; boundary=…) and send the whole body, up to its closing boundary.',
      undefined,
      { cause },
    ),
};

// ── FORBIDDEN: a signed download link ──

/** FORBIDDEN: a download link (a file's, an evidence bundle's) that is forged, altered or expired. */
export function downloadLinkRefused(): AppError {
  return new AppError(
    'FORBIDDEN',
    'This download link is invalid or has expired. Ask the API for a new one.',
  );
}

// ── MONEY_INVALID ──

/** MONEY_INVALID: an amount of a money field that its field refuses; `problem` says why. */
export function moneyInvalid(field: string, vulcanKey: string, problem: string): AppError {
  return new AppError('MONEY_INVALID', `${quote(field)} of item ${quote(vulcanKey)}: ${problem}`, {
    item: vulcanKey,
    field,
  });
}

// ── METHOD_NOT_ALLOWED, URI_TOO_LONG ──

/** METHOD_NOT_ALLOWED: a write to the read-only Portfolio API. */
export function readOnly(method: string): AppError {
  return new AppError(
    'METHOD_NOT_ALLOWED',
    `${method} is not allowed here: the Portfolio API is read-only, use GET.`,
  );
}

/** URI_TOO_LONG: a part of the path longer than Fastify reads. */
export function pathPartTooLong(maxLength: number): AppError {
  return new AppError(
    'URI_TOO_LONG',
    `A part of the path is longer than this API reads (${String(maxLength)} characters).`,
  );
}

// ── CONFLICT: a change to a tenant's people that cannot be made as things are ──

/**
 * CONFLICT for a change that would leave a tenant without an active admin (one who has set a password and is not
 * deactivated): `person` is the admin it would remove or make something else (`'you'` for one's own change),
 * `then` what to do once another person is admin.
 *
 * @example
 * throw lastAdmin('ada@example.com', 'instance "acme"', 'make them member');
 * // 'ada@example.com is the last admin of instance "acme": make another person admin first, then make them member, …'
 */
export function lastAdmin(person: string, tenant: string, then: string): AppError {
  const who = person === 'you' ? 'You are' : `${person} is`;
  return new AppError(
    'CONFLICT',
    `${who} the last admin of ${tenant}: make another person admin first, then ${then}, so that someone can still do what only an admin may.`,
    { reason: 'lastAdmin' },
  );
}

// ── IDEMPOTENCY_KEY_REUSED ──

/** IDEMPOTENCY_KEY_REUSED: an `Idempotency-Key` used in the last 24 hours with other input. */
export function idempotencyKeyReused(): AppError {
  return new AppError(
    'IDEMPOTENCY_KEY_REUSED',
    'This Idempotency-Key was used in the last 24 hours with other input. Use a new key for a new request.',
  );
}

// ── SERVICE_UNAVAILABLE ──

/**
 * SERVICE_UNAVAILABLE for mail that did not go out: what was not mailed and what to do once mail works; for
 * operators (the `portico` command, the log), the mailer's reason too.
 *
 * @example
 * throw notMailed('The invitation', error, 'invite them again');
 * // message:      "The invitation could not be mailed just now: invite them again once mail works."
 * // forOperators: "The invitation could not be mailed (the SMTP server … did not take the message: …): invite them again once mail works."
 */
export function notMailed(what: string, error: unknown, then: string): AppError {
  const reason = operatorMessage(error);
  return new AppError(
    'SERVICE_UNAVAILABLE',
    `${what} could not be mailed just now: ${then} once mail works.`,
    undefined,
    {
      cause: error,
      forOperators: `${what} could not be mailed (${reason}): ${then} once mail works.`,
    },
  );
}

/**
 * SERVICE_UNAVAILABLE while every document worker is busy and the queue before them is full, or while the server
 * stops (documents/document-workers.ts): a moment later there is room.
 */
export function documentWorkersBusy(retryAfterSeconds: number): AppError {
  return new AppError(
    'SERVICE_UNAVAILABLE',
    'Too many documents are being made right now; try again in a few seconds.',
    undefined,
    { retryAfterSeconds },
  );
}

// ── DOCUMENT_TOO_COMPLEX ──

/**
 * DOCUMENT_TOO_COMPLEX: a document (a preview, a signed copy) that took longer than its time limit to make, or
 * more memory than a document worker has: the answers or the fund's PDF are too large to lay out.
 */
export function documentTooComplex(what: string, limit: string): AppError {
  return new AppError(
    'DOCUMENT_TOO_COMPLEX',
    `${what} could not be made within ${limit}: an answer or the fund's PDF is too large. Shorten the longest answers, or ask the organization to check its agreement.`,
    { limit },
  );
}

// ── RATE_LIMITED ──

/**
 * RATE_LIMITED for attempts past their budget (failed sign-ins, codes asked for), in minutes a person reads,
 * with `Retry-After` in seconds.
 *
 * @example
 * throw tooManyAttempts('failed sign-ins', 540); // "Too many failed sign-ins; try again in 9 minutes."
 */
export function tooManyAttempts(
  what: string,
  retryAfterSeconds: number,
  details?: Record<string, unknown>,
): AppError {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return new AppError(
    'RATE_LIMITED',
    `Too many ${what}; try again in ${String(minutes)} minute${minutes === 1 ? '' : 's'}.`,
    details,
    { retryAfterSeconds: Math.max(1, retryAfterSeconds) },
  );
}

/**
 * RATE_LIMITED for more requests in a minute than the rate limit allows, with the wait in words ("1 minute",
 * "30 seconds").
 *
 * @example
 * throw rateLimitExceeded(100, 60); // "Rate limit of 100 requests a minute exceeded; try again in 1 minute."
 */
export function rateLimitExceeded(max: number, retryAfterSeconds: number): AppError {
  const seconds = Math.max(1, retryAfterSeconds);
  const wait =
    seconds % 60 === 0
      ? `${String(seconds / 60)} minute${seconds === 60 ? '' : 's'}`
      : `${String(seconds)} second${seconds === 1 ? '' : 's'}`;
  return new AppError(
    'RATE_LIMITED',
    `Rate limit of ${String(max)} requests a minute exceeded; try again in ${wait}.`,
    { limit: max },
    { retryAfterSeconds: seconds },
  );
}
