// Kept as one file: every setting with its variable, its flag, its default and its check, in the one table that
// `portico --help`, the README and the start read.
import { resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * Every setting Portico reads, with its environment variable. Flags of the `portico` command mirror them
 * (`--data-dir` for `PORTICO_DATA_DIR` and so on) and win over the environment.
 * Nothing outside this file reads `process.env`.
 */
/**
 * When a failed webhook delivery is tried again, in seconds after the failure: the Standard Webhooks schedule,
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (webhooks/retry-schedule.ts adds the jitter).
 */
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];

export const CONFIG_VARIABLES = {
  dataDir: {
    env: 'PORTICO_DATA_DIR',
    flag: '--data-dir <dir>',
    help: 'embedded database, generated TLS certificate, local file storage, demo.json',
    default: './.portico',
  },
  databaseUrl: {
    env: 'DATABASE_URL',
    flag: '--database-url <url>',
    help: 'postgres://… for a PostgreSQL server; unset → embedded PGlite in the data dir',
    default: undefined,
  },
  environment: {
    env: 'PORTICO_ENVIRONMENT',
    flag: '--environment <env>',
    help: 'which keys the Transactions service accepts: staging → sk_test_, production → sk_live_',
    default: 'staging',
  },
  transactionsPort: {
    env: 'PORTICO_TRANSACTIONS_PORT',
    flag: '--transactions-port <port>',
    help: 'Transactions service port (0 = any free port)',
    default: '4000',
  },
  portfolioPort: {
    env: 'PORTICO_PORTFOLIO_PORT',
    flag: '--portfolio-port <port>',
    help: 'Portfolio service port (0 = any free port)',
    default: '4001',
  },
  host: {
    env: 'PORTICO_HOST',
    flag: '--host <address>',
    help: 'listening address',
    default: '127.0.0.1',
  },
  tlsCert: {
    env: 'PORTICO_TLS_CERT',
    flag: '--tls-cert <file>',
    help: 'PEM certificate (chain); unset → self-signed for localhost, generated once into the data dir',
    default: undefined,
  },
  tlsKey: {
    env: 'PORTICO_TLS_KEY',
    flag: '--tls-key <file>',
    help: 'PEM private key of --tls-cert',
    default: undefined,
  },
  sealCert: {
    env: 'PORTICO_SEAL_CERT',
    flag: '--seal-cert <file>',
    help: 'PEM certificate (chain, signer first) that seals completed documents; unset → PORTICO_SEAL_P12, else a self-signed one generated once into the data dir',
    default: undefined,
  },
  sealKey: {
    env: 'PORTICO_SEAL_KEY',
    flag: '--seal-key <file>',
    help: 'PEM private key of --seal-cert (RSA or EC, unencrypted)',
    default: undefined,
  },
  sealP12: {
    env: 'PORTICO_SEAL_P12',
    flag: '--seal-p12 <file>',
    help: 'PKCS#12 file (.p12/.pfx) holding the sealing certificate, its chain and key, in place of --seal-cert and --seal-key',
    default: undefined,
  },
  sealP12Password: {
    env: 'PORTICO_SEAL_P12_PASSWORD',
    flag: '--seal-p12-password <password>',
    help: 'password of --seal-p12 (prefer the variable: a flag shows in the process list)',
    default: undefined,
  },
  sealDir: {
    env: 'PORTICO_SEAL_DIR',
    flag: '--seal-dir <dir>',
    help: "folder of organizations' own seals, by handle: <handle>.p12 with <handle>.p12.password, or <handle>.cert.pem with <handle>.key.pem; an organization without one uses the instance's",
    default: undefined,
  },
  tsaUrl: {
    env: 'PORTICO_TSA_URL',
    flag: '--tsa-url <url>',
    help: 'RFC 3161 timestamp authority that timestamps each seal (http:// or https://); unset → seals without a timestamp',
    default: undefined,
  },
  trustProxy: {
    env: 'PORTICO_TRUST_PROXY',
    flag: '--trust-proxy',
    help: "accept X-Forwarded-Proto: https from a TLS-terminating proxy ('1'/'true' to enable)",
    default: 'false',
  },
  webhookWorker: {
    env: 'PORTICO_WEBHOOK_WORKER',
    flag: '--webhook-worker <mode>',
    help: 'in-process: serve delivers webhooks itself; off: leave it to `portico worker` processes',
    default: 'in-process',
  },
  webhookTimeout: {
    env: 'PORTICO_WEBHOOK_TIMEOUT',
    flag: '--webhook-timeout <seconds>',
    help: 'a webhook delivery succeeds with a 2xx within this many seconds',
    default: '15',
  },
  webhookRetrySchedule: {
    env: 'PORTICO_WEBHOOK_RETRY_SCHEDULE',
    flag: '--webhook-retry-schedule <seconds,…>',
    help: 'seconds before each retry of a failed webhook delivery (each ±10% jitter)',
    default: DEFAULT_RETRY_DELAYS_SECONDS.join(','),
  },
  webhooksAllowInsecure: {
    env: 'PORTICO_WEBHOOKS_ALLOW_INSECURE',
    flag: '--webhooks-allow-insecure',
    help: "allow plain-http webhook URLs and private or loopback addresses: development and tests only ('1'/'true')",
    default: 'false',
  },
  transactionsUrl: {
    env: 'PORTICO_TRANSACTIONS_URL',
    flag: '--transactions-url <url>',
    help: 'public base address of the Transactions service, used in links Portico sends; unset → https://localhost:<port>',
    default: undefined,
  },
  portfolioUrl: {
    env: 'PORTICO_PORTFOLIO_URL',
    flag: '--portfolio-url <url>',
    help: 'public base address of the Portfolio service, used in links Portico sends; unset → https://localhost:<port>',
    default: undefined,
  },
  smtpUrl: {
    env: 'PORTICO_SMTP_URL',
    flag: '--smtp-url <url>',
    help: 'smtp://user:password@host:587 (STARTTLS when the server offers it) or smtps://… for outgoing mail; unset → each message is written to <data dir>/mail/ and its links logged',
    default: undefined,
  },
  mailFrom: {
    env: 'PORTICO_MAIL_FROM',
    flag: '--mail-from <address>',
    help: 'sender of outgoing mail, e.g. "Acme Funds <no-reply@acme.example>"',
    default: 'Portico <no-reply@localhost>',
  },
  s3Endpoint: {
    env: 'PORTICO_S3_ENDPOINT',
    flag: '--s3-endpoint <url>',
    help: 'S3-compatible server for files, e.g. http://minio.internal:9000 (the bucket is named in the path); unset → AWS S3 in the region of --s3-region',
    default: undefined,
  },
  s3Bucket: {
    env: 'PORTICO_S3_BUCKET',
    flag: '--s3-bucket <name>',
    help: 'S3 bucket for uploaded and generated files, shared by every node; setting it stores files in S3, with credentials from the AWS SDK (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or a role); unset → <data dir>/files',
    default: undefined,
  },
  s3Region: {
    env: 'PORTICO_S3_REGION',
    flag: '--s3-region <region>',
    help: 'region of the S3 bucket',
    default: 'us-east-1',
  },
  s3Prefix: {
    env: 'PORTICO_S3_PREFIX',
    flag: '--s3-prefix <prefix>',
    help: "folder of the bucket that holds Portico's files, e.g. portico/production; unset → the bucket's root",
    default: undefined,
  },
  fileStorage: {
    env: 'PORTICO_FILE_STORAGE',
    flag: '--file-storage <kind>',
    help: 'auto: S3 when PORTICO_S3_BUCKET is set, else the data dir (refused on PostgreSQL while another node serves); local: the data dir, stating that this is the only node; s3: S3, refused without PORTICO_S3_BUCKET',
    default: 'auto',
  },
  uploadMaxMb: {
    env: 'PORTICO_UPLOAD_MAX_MB',
    flag: '--upload-max-mb <megabytes>',
    help: 'largest file a recipient may upload, in MB (1 MB = 1,048,576 bytes), more than 0 and at most 100',
    default: '25',
  },
  corsOrigins: {
    env: 'PORTICO_CORS_ORIGINS',
    flag: '--cors-origins <origins>',
    help: 'comma-separated browser origins allowed to call the APIs (e.g. https://app.example.com); none by default',
    default: '',
  },
  redisUrl: {
    env: 'PORTICO_REDIS_URL',
    flag: '--redis-url <url>',
    help: 'redis://… shared by several nodes for rate-limit counters; unset → counters in this process',
    default: undefined,
  },
  redisPrefix: {
    env: 'PORTICO_REDIS_PREFIX',
    flag: '--redis-prefix <prefix>',
    help: 'start of every key Portico writes in Redis, e.g. portico-staging: for a second deployment on the same Redis',
    default: 'portico:',
  },
  rateLimit: {
    env: 'PORTICO_RATE_LIMIT',
    flag: '--rate-limit <requests>',
    help: 'requests per minute per API key, on each service (0 = no limit)',
    default: '6000',
  },
  rateLimitPerAddress: {
    env: 'PORTICO_RATE_LIMIT_PER_ADDRESS',
    flag: '--rate-limit-per-address <requests>',
    help: 'requests per minute per client address on routes without an API key: recipient links, signed file links (0 = no limit)',
    default: '600',
  },
  graphqlLimits: {
    env: 'PORTICO_GRAPHQL_LIMITS',
    flag: '--graphql-limits <limits>',
    help: 'GraphQL operation limits to change, e.g. depth=10,aliases=15,directives=50,tokens=1000,cost=5000,fields=5000',
    default: '',
  },
  sessionIdleMinutes: {
    env: 'PORTICO_SESSION_IDLE_MINUTES',
    flag: '--session-idle-minutes <minutes>',
    help: 'minutes without a request after which a signed-in session of the console or dashboard ends',
    default: '120',
  },
  sessionMaxHours: {
    env: 'PORTICO_SESSION_MAX_HOURS',
    flag: '--session-max-hours <hours>',
    help: 'hours after signing in after which a session ends, however active',
    default: '12',
  },
  shutdownDelay: {
    env: 'PORTICO_SHUTDOWN_DELAY',
    flag: '--shutdown-delay <seconds>',
    help: 'on SIGTERM, seconds of answering /readyz with 503 while still serving, before closing: a load balancer that checks readiness stops sending first',
    default: '0',
  },
  shutdownTimeout: {
    env: 'PORTICO_SHUTDOWN_TIMEOUT',
    flag: '--shutdown-timeout <seconds>',
    help: 'on SIGTERM, seconds (after the delay) that requests in flight and background work get to finish; then the process exits 1 naming what was still running',
    default: '25',
  },
  metricsPort: {
    env: 'PORTICO_METRICS_PORT',
    flag: '--metrics-port <port>',
    help: 'serve Prometheus metrics over plain HTTP at /metrics on this port (0 = any free port); unset → no metrics listener',
    default: undefined,
  },
  metricsHost: {
    env: 'PORTICO_METRICS_HOST',
    flag: '--metrics-host <address>',
    help: 'listening address of the metrics port',
    default: '127.0.0.1',
  },
  metricsToken: {
    env: 'PORTICO_METRICS_TOKEN',
    flag: '--metrics-token <token>',
    help: 'also answer GET /metrics on the service ports to Authorization: Bearer <token> (16 to 200 characters; prefer the variable: a flag shows in the process list); unset → 404 there',
    default: undefined,
  },
  retention: {
    env: 'PORTICO_RETENTION',
    flag: '--retention <days>',
    help: 'days to keep old records before the cleanup removes them, e.g. webhooks=30,sessions=1,links=30,mail=30,addresses=2555 (a number of days, or never)',
    default: '',
  },
  logLevel: {
    env: 'PORTICO_LOG_LEVEL',
    flag: '--log-level <level>',
    help: 'fatal, error, warn, info, debug, trace or silent',
    default: 'info',
  },
} as const;

export type ConfigKey = keyof typeof CONFIG_VARIABLES;
/** Raw values as they come from the environment or flags, before validation. */
export type RawConfig = Partial<Record<ConfigKey, string | boolean | undefined>>;

const Port = Type.Integer({ minimum: 0, maximum: 65535 });
/** Days a kind of old record is kept, or `never` (PORTICO_RETENTION). */
const RetentionDays = Type.Union([Type.Integer({ minimum: 0 }), Type.Literal('never')]);
/**
 * S3's rules for a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a
 * letter or digit, no two dots in a row, not shaped like an IP address.
 */
const BUCKET_NAME = '^(?!\\d+\\.\\d+\\.\\d+\\.\\d+$)(?!.*\\.\\.)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$';
/** A folder of a bucket: segments of the characters S3 calls safe, no `.` or `..` segment. */
const KEY_PREFIX = "^(?!(.*/)?\\.\\.?(/|$))[A-Za-z0-9!_.*'()-]+(/[A-Za-z0-9!_.*'()-]+)*$";

export const ConfigSchema = Type.Object({
  /** @default './.portico' (absolute after parsing) */
  dataDir: Type.String({ minLength: 1 }),
  /** @default undefined: embedded PGlite */
  databaseUrl: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  /** @default 'staging' */
  environment: Type.Union([Type.Literal('staging'), Type.Literal('production')]),
  /** @default 4000 */
  transactionsPort: Port,
  /** @default 4001 */
  portfolioPort: Port,
  /** @default '127.0.0.1' */
  host: Type.String({ minLength: 1 }),
  tlsCert: Type.Optional(Type.String({ minLength: 1 })),
  tlsKey: Type.Optional(Type.String({ minLength: 1 })),
  /** PEM files of the certificate that seals completed documents. @default undefined: PKCS#12, or self-signed */
  sealCert: Type.Optional(Type.String({ minLength: 1 })),
  sealKey: Type.Optional(Type.String({ minLength: 1 })),
  /** A PKCS#12 file of the sealing certificate and key. */
  sealP12: Type.Optional(Type.String({ minLength: 1 })),
  sealP12Password: Type.Optional(Type.String()),
  /** A folder of organizations' own seals, named by handle. @default undefined: the instance's seal for all */
  sealDir: Type.Optional(Type.String({ minLength: 1 })),
  /** The RFC 3161 timestamp authority of the seals. @default undefined: no timestamp */
  tsaUrl: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  /** @default false */
  trustProxy: Type.Boolean(),
  /** @default 'in-process' */
  webhookWorker: Type.Union([Type.Literal('in-process'), Type.Literal('off')]),
  /** Seconds. @default 15 */
  webhookTimeout: Type.Number({ exclusiveMinimum: 0, maximum: 300 }),
  /** Seconds before each retry. @default [5, 300, 1800, 7200, 18000, 36000, 36000] */
  webhookRetrySchedule: Type.Array(Type.Number({ minimum: 0 }), { maxItems: 50 }),
  /** @default false */
  webhooksAllowInsecure: Type.Boolean(),
  /** Public base address of the Transactions service (no trailing slash). @default https://localhost:<port> */
  transactionsUrl: Type.Optional(Type.String({ pattern: '^https?://[^/?#\\s]+$' })),
  /** Public base address of the Portfolio service (no trailing slash). @default https://localhost:<port> */
  portfolioUrl: Type.Optional(Type.String({ pattern: '^https?://[^/?#\\s]+$' })),
  /** SMTP server for outgoing mail. @default undefined: messages are written to `<data dir>/mail/` */
  smtpUrl: Type.Optional(Type.String({ pattern: '^smtps?://[^\\s]+$' })),
  /** Sender of outgoing mail: one address, with or without a display name, on one line. */
  mailFrom: Type.String({ pattern: '^[^\\r\\n]*@[^\\r\\n]*$' }),
  /** S3-compatible server for files, with no user or password in it. @default undefined: AWS's endpoint */
  s3Endpoint: Type.Optional(Type.String({ pattern: '^https?://[^/?#@\\s]+(/[^?#\\s]*)?$' })),
  /** The bucket of files; setting it stores files in S3. @default undefined: files in `<data dir>/files` */
  s3Bucket: Type.Optional(Type.String({ pattern: BUCKET_NAME })),
  /** @default 'us-east-1' */
  s3Region: Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 64 }),
  /** The folder of the bucket that holds Portico's files (no slash at either end). @default undefined: the root */
  s3Prefix: Type.Optional(Type.String({ pattern: KEY_PREFIX, maxLength: 512 })),
  /**
   * Where files go: `auto` follows `PORTICO_S3_BUCKET`; `local` states that one node serves the database, so
   * files may stay in its data dir; `s3` states that they must not. @default 'auto'
   */
  fileStorage: Type.Union([Type.Literal('auto'), Type.Literal('local'), Type.Literal('s3')]),
  /** Megabytes of 1,048,576 bytes. @default 25 */
  uploadMaxMb: Type.Number({ exclusiveMinimum: 0, maximum: 100 }),
  /** Browser origins allowed to call the APIs. @default [] */
  corsOrigins: Type.Array(Type.String({ pattern: '^https?://[^/?#\\s]+$' }), { maxItems: 100 }),
  /** @default undefined: counters in this process */
  redisUrl: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  /** The start of every Redis key. @default 'portico:' */
  redisPrefix: Type.String({ pattern: '^[\\x21-\\x7e]{1,64}$' }),
  /** Requests per minute per API key; 0 turns the limit off. @default 6000 */
  rateLimit: Type.Integer({ minimum: 0 }),
  /** Requests per minute per client address on routes without an API key; 0 turns it off. @default 600 */
  rateLimitPerAddress: Type.Integer({ minimum: 0 }),
  /** Changes to the GraphQL operation limits (see graphql/limits.ts). @default {} */
  graphqlLimits: Type.Partial(
    Type.Object(
      {
        depth: Type.Integer({ minimum: 1 }),
        aliases: Type.Integer({ minimum: 1 }),
        directives: Type.Integer({ minimum: 1 }),
        tokens: Type.Integer({ minimum: 1 }),
        cost: Type.Integer({ minimum: 1 }),
        fields: Type.Integer({ minimum: 1 }),
      },
      { additionalProperties: false },
    ),
  ),
  /** Minutes. @default 120 */
  sessionIdleMinutes: Type.Integer({ minimum: 1, maximum: 10080 }),
  /** Hours. @default 12 */
  sessionMaxHours: Type.Integer({ minimum: 1, maximum: 720 }),
  /** Seconds. @default 0 */
  shutdownDelay: Type.Number({ minimum: 0, maximum: 600 }),
  /** Seconds. @default 25 */
  shutdownTimeout: Type.Number({ exclusiveMinimum: 0, maximum: 600 }),
  /** Port of the plain-HTTP metrics listener. @default undefined: none */
  metricsPort: Type.Optional(Port),
  /** @default '127.0.0.1' */
  metricsHost: Type.String({ minLength: 1 }),
  /** Bearer token of `GET /metrics` on the service ports. @default undefined: no `/metrics` there */
  metricsToken: Type.Optional(Type.String({ minLength: 16, maxLength: 200, pattern: '^[\\x21-\\x7e]+$' })),
  /** Days each kind of old record is kept (see admin/retention.ts). @default {} */
  retention: Type.Partial(
    Type.Object(
      {
        webhooks: RetentionDays,
        sessions: RetentionDays,
        links: RetentionDays,
        mail: RetentionDays,
        addresses: RetentionDays,
      },
      { additionalProperties: false },
    ),
  ),
  /** @default 'info' */
  logLevel: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
  ),
});

/** The settings as given and validated: one property per variable of {@link CONFIG_VARIABLES}. */
type ConfigSettings = Static<typeof ConfigSchema>;

/** Where files are stored when `PORTICO_S3_BUCKET` is set. */
export interface S3Settings {
  /** @default undefined: AWS's own endpoint for the region */
  endpoint: string | undefined;
  bucket: string;
  /** @default 'us-east-1' */
  region: string;
  /** @default undefined: the bucket's root */
  prefix: string | undefined;
}

/** The configuration Portico runs with: the settings, with the S3 ones and the upload limit resolved. */
export type Config = Omit<
  ConfigSettings,
  's3Endpoint' | 's3Bucket' | 's3Region' | 's3Prefix' | 'uploadMaxMb'
> & {
  /** S3-compatible storage for files. @default undefined: files in `<data dir>/files` */
  s3: S3Settings | undefined;
  /** The largest file a recipient may upload, in bytes: `PORTICO_UPLOAD_MAX_MB` × 1,048,576. @default 26214400 */
  uploadMaxBytes: number;
};
export type Environment = Config['environment'];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function toBoolean(value: string | boolean): boolean | string {
  if (typeof value === 'boolean') return value;
  const lowered = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(lowered)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(lowered)) return false;
  return value;
}

function toNumber(value: string | boolean): number | string | boolean {
  return typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
}

function toNumberList(value: string | boolean): (number | string | boolean)[] | boolean {
  if (typeof value === 'boolean') return value;
  return value.trim() === '' ? [] : value.split(',').map((part) => toNumber(part.trim()));
}

function toList(value: string | boolean): string[] | boolean {
  if (typeof value === 'boolean') return value;
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** `depth=10,cost=5000` → `{ depth: 10, cost: 5000 }` (values that are not whole numbers stay strings). */
function toSettings(value: string | boolean): Record<string, number | string> | boolean {
  if (typeof value === 'boolean') return value;
  const settings: Record<string, number | string> = {};
  for (const part of value.split(',')) {
    if (part.trim() === '') continue;
    const [name = '', setting = ''] = part.split('=', 2).map((side) => side.trim());
    settings[name] = /^\d+$/.test(setting) ? Number(setting) : setting;
  }
  return settings;
}

function toInteger(value: string | boolean): number | string | boolean {
  return typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
}

/** What a setting must be, said better than its schema's error would. */
const EXPECTED: Partial<Record<ConfigKey, string>> = {
  graphqlLimits:
    'must be name=value pairs of depth, aliases, directives, tokens, cost or fields, each a whole number of at least 1',
  retention:
    'must be name=days pairs of webhooks, sessions, links, mail or addresses, each a whole number of days or never, e.g. webhooks=90,mail=never',
  smtpUrl: 'must be an smtp:// or smtps:// URL, e.g. smtp://user:password@smtp.example.com:587',
  tsaUrl:
    'must be an http:// or https:// URL of an RFC 3161 timestamp authority, e.g. http://timestamp.example.com/tsa',
  mailFrom: 'must be one address on one line, e.g. "Acme Funds <no-reply@acme.example>"',
  s3Endpoint:
    'must be an http:// or https:// URL without a user or password in it, e.g. http://minio.internal:9000 ' +
    '(credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)',
  s3Bucket:
    'must be an S3 bucket name: 3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a ' +
    'letter or digit, e.g. portico-files',
  s3Region: 'must be a region name, e.g. us-east-1 or eu-central-1',
  s3Prefix:
    "must be a folder name of letters, digits and !_.*'()- with single slashes between its parts, e.g. portico/production",
  uploadMaxMb: 'must be a number of megabytes more than 0 and at most 100, e.g. 25',
  redisPrefix: 'must be 1 to 64 printable characters without spaces, e.g. portico-staging:',
  sessionIdleMinutes: 'must be a whole number of minutes from 1 to 10080, e.g. 120',
  sessionMaxHours: 'must be a whole number of hours from 1 to 720, e.g. 12',
  shutdownDelay: 'must be a number of seconds from 0 to 600, e.g. 10',
  shutdownTimeout: 'must be a number of seconds more than 0 and at most 600, e.g. 25',
  metricsToken:
    'must be 16 to 200 printable characters without spaces, e.g. the output of `openssl rand -hex 32`',
};

/** A value as an error message may quote it: the password of a URL (`scheme://user:password@host`) masked. */
function withoutPassword(value: unknown): unknown {
  return typeof value === 'string'
    ? value.replace(/^([a-z][\w+.-]*:\/\/[^:@/\s]*):[^@/\s]*@/i, '$1:***@')
    : value;
}

/**
 * Parses the configuration once: flags win over the environment, the environment over defaults.
 * Throws a {@link ConfigError} naming each bad variable.
 *
 * @example
 * const config = loadConfig(process.env, { transactionsPort: '0' });
 */
export function loadConfig(env: NodeJS.ProcessEnv, flags: RawConfig = {}): Config {
  const raw: Record<string, unknown> = {};
  // What was given, as it was written: error messages quote it rather than what it was parsed into.
  const given: Record<string, unknown> = {};
  for (const [key, variable] of Object.entries(CONFIG_VARIABLES) as [
    ConfigKey,
    (typeof CONFIG_VARIABLES)[ConfigKey],
  ][]) {
    // An empty variable (common in compose files) means "not set", like an absent one.
    const value =
      [flags[key], env[variable.env]].find((given) => given !== undefined && given !== '') ??
      variable.default;
    if (value === undefined) continue;
    given[key] = value;
    if (key === 'trustProxy' || key === 'webhooksAllowInsecure') raw[key] = toBoolean(value);
    else if (
      key === 'transactionsPort' ||
      key === 'portfolioPort' ||
      key === 'metricsPort' ||
      key === 'sessionIdleMinutes' ||
      key === 'sessionMaxHours'
    )
      raw[key] = toInteger(value);
    else if (
      key === 'webhookTimeout' ||
      key === 'uploadMaxMb' ||
      key === 'shutdownDelay' ||
      key === 'shutdownTimeout'
    )
      raw[key] = toNumber(value);
    else if (key === 'webhookRetrySchedule') raw[key] = toNumberList(value);
    else if (key === 'rateLimit' || key === 'rateLimitPerAddress') raw[key] = toInteger(value);
    else if (key === 'corsOrigins') raw[key] = toList(value);
    else if (key === 'graphqlLimits' || key === 'retention') raw[key] = toSettings(value);
    else if (key === 'transactionsUrl' || key === 'portfolioUrl' || key === 's3Endpoint')
      raw[key] = String(value).replace(/\/+$/, '');
    else if (key === 's3Prefix') raw[key] = String(value).replace(/^\/+|\/+$/g, '');
    else raw[key] = value;
  }
  const problems = new Map<string, string>();
  for (const error of Value.Errors(ConfigSchema, raw)) {
    const key = (error.path.split('/')[1] ?? '') as ConfigKey;
    const variable = key in CONFIG_VARIABLES ? CONFIG_VARIABLES[key].env : error.path;
    if (problems.has(variable)) continue;
    const choices = (error.schema.anyOf as { const?: unknown }[] | undefined)?.map((choice) => choice.const);
    const expected = choices ? `must be one of ${choices.join(', ')}` : (EXPECTED[key] ?? error.message);
    // A token is a secret: a complaint about it never quotes it.
    const got =
      key === 'metricsToken' || key === 'sealP12Password'
        ? ''
        : ` (got ${JSON.stringify(withoutPassword(given[key] ?? raw[key]))})`;
    problems.set(variable, `${variable}: ${expected}${got}`);
  }
  const errors = [...problems.values()];
  if (errors.length > 0) throw new ConfigError(`invalid configuration:\n  ${errors.join('\n  ')}`);
  const { s3Endpoint, s3Bucket, s3Region, s3Prefix, uploadMaxMb, ...settings } = raw as ConfigSettings;
  if ((settings.tlsCert === undefined) !== (settings.tlsKey === undefined)) {
    throw new ConfigError('invalid configuration: PORTICO_TLS_CERT and PORTICO_TLS_KEY must be set together');
  }
  if ((settings.sealCert === undefined) !== (settings.sealKey === undefined)) {
    throw new ConfigError(
      'invalid configuration: PORTICO_SEAL_CERT and PORTICO_SEAL_KEY must be set together',
    );
  }
  if (settings.sealP12 !== undefined && settings.sealCert !== undefined) {
    throw new ConfigError(
      'invalid configuration: set either PORTICO_SEAL_P12 or PORTICO_SEAL_CERT and PORTICO_SEAL_KEY, not both',
    );
  }
  if (settings.sealP12Password !== undefined && settings.sealP12 === undefined) {
    throw new ConfigError(
      'invalid configuration: PORTICO_SEAL_P12_PASSWORD is the password of PORTICO_SEAL_P12: set that too',
    );
  }
  if (s3Bucket === undefined && (s3Endpoint !== undefined || s3Prefix !== undefined)) {
    throw new ConfigError(
      'invalid configuration: PORTICO_S3_ENDPOINT and PORTICO_S3_PREFIX apply to S3 storage, which ' +
        'PORTICO_S3_BUCKET turns on: set the bucket too, or unset them to keep files in the data dir',
    );
  }
  if (settings.fileStorage === 's3' && s3Bucket === undefined) {
    throw new ConfigError(
      'invalid configuration: PORTICO_FILE_STORAGE=s3 needs PORTICO_S3_BUCKET (and PORTICO_S3_ENDPOINT for a ' +
        'server other than AWS): set them, or PORTICO_FILE_STORAGE=local to keep files in the data dir of a single node',
    );
  }
  if (settings.fileStorage === 'local' && s3Bucket !== undefined) {
    throw new ConfigError(
      'invalid configuration: PORTICO_FILE_STORAGE=local keeps files in the data dir, but PORTICO_S3_BUCKET ' +
        'is set: unset one of them',
    );
  }
  return {
    ...settings,
    dataDir: resolve(settings.dataDir),
    s3:
      s3Bucket === undefined
        ? undefined
        : { endpoint: s3Endpoint, bucket: s3Bucket, region: s3Region, prefix: s3Prefix },
    uploadMaxBytes: Math.ceil(uploadMaxMb * 1024 * 1024),
  };
}

/**
 * Whether to trace with OpenTelemetry: the standard variables name an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` for traces alone) and neither
 * `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none` turns it off. They are OpenTelemetry's variables, not
 * Portico's (no flags mirror them): once tracing is on, the SDK reads the others itself (observability/otel-tracing.ts).
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  if (!set('OTEL_EXPORTER_OTLP_ENDPOINT') && !set('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')) return false;
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  return (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase() !== 'none';
}
