import { isAbsolute, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

/** The message of the ConfigError that `load` throws (fails the test if it throws nothing or something else). */
function configErrorOf(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the documented defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config).toEqual({
      dataDir: resolve('./.portico'),
      environment: 'staging',
      transactionsPort: 4000,
      portfolioPort: 4001,
      host: '127.0.0.1',
      trustProxy: false,
      webhookWorker: 'in-process',
      webhookTimeout: 15,
      webhookRetrySchedule: [5, 300, 1800, 7200, 18000, 36000, 36000],
      webhooksAllowInsecure: false,
      mailFrom: 'Portico <no-reply@localhost>',
      corsOrigins: [],
      rateLimit: 6000,
      rateLimitPerAddress: 600,
      graphqlLimits: {},
      sessionIdleMinutes: 120,
      sessionMaxHours: 12,
      shutdownDelay: 0,
      shutdownTimeout: 25,
      metricsHost: '127.0.0.1',
      retention: {},
      logLevel: 'info',
      uploadMaxBytes: 25 * 1024 * 1024,
      fileStorage: 'auto',
      redisPrefix: 'portico:',
    });
    expect(config.s3).toBeUndefined();
    expect(config.transactionsUrl).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.smtpUrl).toBeUndefined();
    expect(isAbsolute(config.dataDir)).toBe(true);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.tlsCert).toBeUndefined();
  });

  it('reads every setting from its environment variable', () => {
    const config = loadConfig({
      PORTICO_DATA_DIR: 'relative/data',
      DATABASE_URL: 'postgresql://portico@db.example:5432/portico',
      PORTICO_ENVIRONMENT: 'production',
      PORTICO_TRANSACTIONS_PORT: '8443',
      PORTICO_PORTFOLIO_PORT: '0',
      PORTICO_HOST: '0.0.0.0',
      PORTICO_TLS_CERT: '/etc/portico/cert.pem',
      PORTICO_TLS_KEY: '/etc/portico/key.pem',
      PORTICO_TRUST_PROXY: 'true',
      PORTICO_WEBHOOK_WORKER: 'off',
      PORTICO_WEBHOOK_TIMEOUT: '2.5',
      PORTICO_WEBHOOK_RETRY_SCHEDULE: '1, 2,3',
      PORTICO_WEBHOOKS_ALLOW_INSECURE: 'yes',
      PORTICO_TRANSACTIONS_URL: 'https://api.example.com/',
      PORTICO_PORTFOLIO_URL: 'https://portfolio.example.com',
      PORTICO_SMTP_URL: 'smtps://mailer:secret@smtp.example.com:465',
      PORTICO_MAIL_FROM: 'Acme Funds <no-reply@acme.example>',
      PORTICO_S3_ENDPOINT: 'https://minio.example:9000/',
      PORTICO_S3_BUCKET: 'portico-files',
      PORTICO_S3_REGION: 'eu-central-1',
      PORTICO_S3_PREFIX: 'portico/production',
      PORTICO_UPLOAD_MAX_MB: '10',
      PORTICO_CORS_ORIGINS: 'https://app.example.com, https://admin.example.com',
      PORTICO_REDIS_URL: 'redis://cache.example:6379',
      PORTICO_REDIS_PREFIX: 'portico-production:',
      PORTICO_FILE_STORAGE: 's3',
      PORTICO_RATE_LIMIT: '100',
      PORTICO_RATE_LIMIT_PER_ADDRESS: '0',
      PORTICO_GRAPHQL_LIMITS: 'depth=12, cost=10000,fields=8000',
      PORTICO_SHUTDOWN_DELAY: '7.5',
      PORTICO_SESSION_IDLE_MINUTES: '30',
      PORTICO_SESSION_MAX_HOURS: '8',
      PORTICO_SHUTDOWN_TIMEOUT: '40',
      PORTICO_METRICS_PORT: '9464',
      PORTICO_METRICS_HOST: '10.0.0.5',
      PORTICO_METRICS_TOKEN: 'a-token-of-enough-length',
      PORTICO_RETENTION: 'webhooks=90, mail=never',
      PORTICO_LOG_LEVEL: 'warn',
    });
    expect(config).toEqual({
      dataDir: resolve('relative/data'),
      databaseUrl: 'postgresql://portico@db.example:5432/portico',
      environment: 'production',
      transactionsPort: 8443,
      portfolioPort: 0,
      host: '0.0.0.0',
      tlsCert: '/etc/portico/cert.pem',
      tlsKey: '/etc/portico/key.pem',
      trustProxy: true,
      webhookWorker: 'off',
      webhookTimeout: 2.5,
      webhookRetrySchedule: [1, 2, 3],
      webhooksAllowInsecure: true,
      transactionsUrl: 'https://api.example.com',
      portfolioUrl: 'https://portfolio.example.com',
      smtpUrl: 'smtps://mailer:secret@smtp.example.com:465',
      mailFrom: 'Acme Funds <no-reply@acme.example>',
      s3: {
        endpoint: 'https://minio.example:9000',
        bucket: 'portico-files',
        region: 'eu-central-1',
        prefix: 'portico/production',
      },
      uploadMaxBytes: 10 * 1024 * 1024,
      corsOrigins: ['https://app.example.com', 'https://admin.example.com'],
      redisUrl: 'redis://cache.example:6379',
      redisPrefix: 'portico-production:',
      fileStorage: 's3',
      rateLimit: 100,
      rateLimitPerAddress: 0,
      graphqlLimits: { depth: 12, cost: 10000, fields: 8000 },
      sessionIdleMinutes: 30,
      sessionMaxHours: 8,
      shutdownDelay: 7.5,
      shutdownTimeout: 40,
      metricsPort: 9464,
      metricsHost: '10.0.0.5',
      metricsToken: 'a-token-of-enough-length',
      retention: { webhooks: 90, mail: 'never' },
      logLevel: 'warn',
    });
  });

  it('refuses a short metrics token without quoting it', () => {
    expect(() => loadConfig({ PORTICO_METRICS_TOKEN: 'short secret' })).toThrow(
      /PORTICO_METRICS_TOKEN: must be 16 to 200 printable characters without spaces, e\.g\. the output of `openssl rand -hex 32`$/,
    );
  });

  it('lets flags win over the environment', () => {
    const config = loadConfig(
      {
        PORTICO_TRANSACTIONS_PORT: '5000',
        PORTICO_HOST: '0.0.0.0',
        PORTICO_DATA_DIR: '/from/env',
        PORTICO_TRUST_PROXY: 'false',
        PORTICO_ENVIRONMENT: 'production',
      },
      { transactionsPort: '6000', host: '::1', dataDir: '/from/flag', trustProxy: true },
    );
    expect(config.transactionsPort).toBe(6000);
    expect(config.host).toBe('::1');
    expect(config.dataDir).toBe('/from/flag');
    expect(config.trustProxy).toBe(true);
    // What no flag sets still comes from the environment.
    expect(config.environment).toBe('production');
  });

  it.each([
    ['PORTICO_TRANSACTIONS_PORT', 'abc'],
    ['PORTICO_TRANSACTIONS_PORT', '1e3'],
    ['PORTICO_PORTFOLIO_PORT', '65536'],
    ['PORTICO_PORTFOLIO_PORT', '-1'],
    ['PORTICO_ENVIRONMENT', 'prod'],
    ['PORTICO_LOG_LEVEL', 'loud'],
    ['PORTICO_TRUST_PROXY', 'maybe'],
    ['DATABASE_URL', 'mysql://root@localhost/portico'],
    ['PORTICO_TRANSACTIONS_URL', 'https://api.example.com/beta'],
    ['PORTICO_CORS_ORIGINS', 'app.example.com'],
    ['PORTICO_REDIS_URL', 'localhost:6379'],
    ['PORTICO_SMTP_URL', 'smtp.example.com:587'],
    ['PORTICO_SMTP_URL', 'http://smtp.example.com'],
    ['PORTICO_MAIL_FROM', 'no-reply'],
    ['PORTICO_RATE_LIMIT', 'lots'],
    ['PORTICO_GRAPHQL_LIMITS', 'depht=12'],
    ['PORTICO_GRAPHQL_LIMITS', 'cost=0'],
    ['PORTICO_RETENTION', 'outbox=30'],
    ['PORTICO_RETENTION', 'mail=forever'],
    ['PORTICO_S3_ENDPOINT', 'minio.example:9000'],
    ['PORTICO_S3_ENDPOINT', 'ftp://minio.example'],
    ['PORTICO_S3_BUCKET', 'Portico_Files'],
    ['PORTICO_S3_BUCKET', 'ab'],
    ['PORTICO_S3_BUCKET', '192.168.1.10'],
    ['PORTICO_S3_BUCKET', 'portico..files'],
    ['PORTICO_S3_BUCKET', '-portico'],
    ['PORTICO_S3_REGION', 'EU Central'],
    ['PORTICO_S3_PREFIX', 'portico//production'],
    ['PORTICO_S3_PREFIX', 'portico/../other'],
    ['PORTICO_SHUTDOWN_DELAY', '-1'],
    ['PORTICO_SHUTDOWN_TIMEOUT', '0'],
    ['PORTICO_UPLOAD_MAX_MB', '0'],
    ['PORTICO_UPLOAD_MAX_MB', '-5'],
    ['PORTICO_UPLOAD_MAX_MB', '100.5'],
    ['PORTICO_UPLOAD_MAX_MB', 'lots'],
  ])('rejects %s=%s with a ConfigError naming the variable and the value', (variable, value) => {
    const message = configErrorOf(() => loadConfig({ [variable]: value }));
    expect(message).toContain(variable);
    expect(message).toContain(value);
  });

  it('refuses a sender with a line break in it, which would add headers to every message', () => {
    const message = configErrorOf(() =>
      loadConfig({ PORTICO_MAIL_FROM: 'a@example.com\r\nBcc: victim@example.com' }),
    );
    expect(message).toContain('PORTICO_MAIL_FROM: must be one address on one line');
  });

  it('says what an SMTP URL must look like', () => {
    expect(configErrorOf(() => loadConfig({ PORTICO_SMTP_URL: 'smtp.example.com:587' }))).toContain(
      'PORTICO_SMTP_URL: must be an smtp:// or smtps:// URL',
    );
  });

  it('masks the password of a URL it refuses in its message', () => {
    for (const [variable, value] of [
      ['PORTICO_SMTP_URL', 'smtpx://mailer:hunter2@smtp.example.com'],
      ['DATABASE_URL', 'mysql://root:hunter2@localhost/portico'],
      ['PORTICO_REDIS_URL', 'http://default:hunter2@cache.example'],
    ] as const) {
      const message = configErrorOf(() => loadConfig({ [variable]: value }));
      expect(message).toContain(variable);
      expect(message).toContain(value.replace(':hunter2@', ':***@'));
      expect(message).not.toContain('hunter2');
    }
  });

  it('keeps files in the data dir when no bucket is set, and in S3 at AWS when only a bucket is', () => {
    expect(loadConfig({ PORTICO_S3_REGION: 'eu-west-1' }).s3).toBeUndefined();
    expect(loadConfig({ PORTICO_S3_BUCKET: 'portico-files' }).s3).toEqual({
      endpoint: undefined,
      bucket: 'portico-files',
      region: 'us-east-1',
      prefix: undefined,
    });
  });

  it('reads the S3 settings from flags too, and a prefix without its slashes', () => {
    const config = loadConfig(
      { PORTICO_S3_BUCKET: 'from-env' },
      { s3Bucket: 'from-flag', s3Endpoint: 'http://127.0.0.1:9000', s3Prefix: '/portico/' },
    );
    expect(config.s3).toEqual({
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'from-flag',
      region: 'us-east-1',
      prefix: 'portico',
    });
  });

  it('refuses an S3 endpoint or prefix without a bucket, which would keep files in the data dir unnoticed', () => {
    for (const env of [{ PORTICO_S3_ENDPOINT: 'http://127.0.0.1:9000' }, { PORTICO_S3_PREFIX: 'portico' }]) {
      const message = configErrorOf(() => loadConfig(env));
      expect(message).toContain('PORTICO_S3_BUCKET');
      expect(message).toContain(Object.keys(env)[0]);
    }
  });

  it('refuses PORTICO_FILE_STORAGE=s3 without a bucket, and =local with one, saying what to set', () => {
    expect(configErrorOf(() => loadConfig({ PORTICO_FILE_STORAGE: 's3' }))).toContain(
      'PORTICO_FILE_STORAGE=s3 needs PORTICO_S3_BUCKET',
    );
    expect(
      configErrorOf(() => loadConfig({ PORTICO_FILE_STORAGE: 'local', PORTICO_S3_BUCKET: 'portico-files' })),
    ).toContain('unset one of them');
    expect(configErrorOf(() => loadConfig({ PORTICO_FILE_STORAGE: 'nfs' }))).toContain(
      'PORTICO_FILE_STORAGE: must be one of auto, local, s3',
    );
  });

  it('says what an S3 bucket name and endpoint must look like', () => {
    expect(configErrorOf(() => loadConfig({ PORTICO_S3_BUCKET: 'My_Bucket' }))).toContain(
      'PORTICO_S3_BUCKET: must be an S3 bucket name: 3 to 63 lowercase letters',
    );
    expect(
      configErrorOf(() => loadConfig({ PORTICO_S3_BUCKET: 'b-1', PORTICO_S3_ENDPOINT: 's3.example' })),
    ).toContain('PORTICO_S3_ENDPOINT: must be an http:// or https:// URL');
  });

  it('refuses an S3 endpoint with credentials in it, and does not repeat its password', () => {
    const message = configErrorOf(() =>
      loadConfig({
        PORTICO_S3_BUCKET: 'portico-files',
        PORTICO_S3_ENDPOINT: 'http://admin:hunter2@minio:9000',
      }),
    );
    expect(message).toContain(
      'PORTICO_S3_ENDPOINT: must be an http:// or https:// URL without a user or password',
    );
    expect(message).not.toContain('hunter2');
  });

  it('turns the upload limit into whole bytes, up to 100 MB', () => {
    expect(loadConfig({ PORTICO_UPLOAD_MAX_MB: '100' }).uploadMaxBytes).toBe(104_857_600);
    expect(loadConfig({}, { uploadMaxMb: '0.5' }).uploadMaxBytes).toBe(524_288);
    expect(configErrorOf(() => loadConfig({ PORTICO_UPLOAD_MAX_MB: '101' }))).toContain(
      'PORTICO_UPLOAD_MAX_MB: must be a number of megabytes more than 0 and at most 100, e.g. 25 (got "101")',
    );
  });

  it('names the variable of a bad flag value too, and every bad variable at once', () => {
    const message = configErrorOf(() =>
      loadConfig({ PORTICO_ENVIRONMENT: 'prod' }, { transactionsPort: 'http', portfolioPort: '99999' }),
    );
    expect(message).toContain('PORTICO_TRANSACTIONS_PORT');
    expect(message).toContain('PORTICO_PORTFOLIO_PORT');
    expect(message).toContain('PORTICO_ENVIRONMENT');
  });

  it('rejects a TLS certificate without its key, and a key without its certificate', () => {
    for (const env of [
      { PORTICO_TLS_CERT: '/etc/portico/cert.pem' },
      { PORTICO_TLS_KEY: '/etc/portico/key.pem' },
    ]) {
      const message = configErrorOf(() => loadConfig(env));
      expect(message).toContain('PORTICO_TLS_CERT');
      expect(message).toContain('PORTICO_TLS_KEY');
    }
  });

  it.each(['1', 'true', 'yes', 'on', 'TRUE', ' Yes '])(
    'turns trustProxy on for PORTICO_TRUST_PROXY=%j',
    (value) => {
      expect(loadConfig({ PORTICO_TRUST_PROXY: value }).trustProxy).toBe(true);
    },
  );

  it.each(['0', 'false', 'no', 'off'])('leaves trustProxy off for PORTICO_TRUST_PROXY=%j', (value) => {
    expect(loadConfig({ PORTICO_TRUST_PROXY: value }).trustProxy).toBe(false);
  });

  it('does not read process.env, only the environment it is given', () => {
    const saved = process.env.PORTICO_TRANSACTIONS_PORT;
    process.env.PORTICO_TRANSACTIONS_PORT = '4999';
    try {
      expect(loadConfig({}).transactionsPort).toBe(4000);
    } finally {
      if (saved === undefined) delete process.env.PORTICO_TRANSACTIONS_PORT;
      else process.env.PORTICO_TRANSACTIONS_PORT = saved;
    }
  });

  it('treats an empty variable as unset and falls back to its default', () => {
    const config = loadConfig({ PORTICO_TRUST_PROXY: '', PORTICO_HOST: '', PORTICO_TRANSACTIONS_PORT: '' });
    expect(config).toMatchObject({ trustProxy: false, host: '127.0.0.1', transactionsPort: 4000 });
  });

  it('lists the allowed values of a setting that has a fixed set, once per variable', () => {
    expect(() => loadConfig({ PORTICO_ENVIRONMENT: 'prod', PORTICO_LOG_LEVEL: 'loud' })).toThrow(
      /PORTICO_ENVIRONMENT: must be one of staging, production \(got "prod"\)\n\s+PORTICO_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent \(got "loud"\)$/,
    );
  });
});
