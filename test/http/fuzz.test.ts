import { connect as connectHttp2 } from 'node:http2';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { answerProblem, type Shape } from '../support/documented-answers.ts';
import { startListeningServices, type ListeningServices } from '../support/peers/listening-services.ts';
import { createTestPortfolio } from '../support/data/portfolio.ts';
import { exchange, parseResponse, rawRequest } from '../support/peers/raw-socket.ts';
import type { Service } from '../support/data/service-apps.ts';
import { REFERENCE_QUERY } from '../support/data/transactions.ts';

/**
 * Both services under generated malformed requests, sent as raw bytes over real TLS connections to listening
 * apps. Every answer must be below 500, carry a request id, and be JSON in the documented shape; and neither
 * service may log an unexpected error. Runs are seeded: a failure names its seed, and `FUZZ_SEED=<seed>`
 * replays it.
 */
const SEED =
  process.env.FUZZ_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED);
/** Requests sent at once; each property run sends one batch. */
const BATCH = 8;
/** Planned batches per property; 2,048 requests in all. */
const RUNS = { graphql: 76, portfolio: 60, odd: 80, raw: 40 } as const;
/** A connection's headers must arrive within this, so that a request line alone is answered quickly. */
const HEADERS_TIMEOUT_MS = 1500;
const ALLOWED_ORIGIN = 'https://app.example.com';

/** One generated request: its bytes, and what its answer may look like. */
interface FuzzCase {
  service: Service;
  bytes: Buffer;
  shapes: Shape[];
  head: boolean;
  /** What fast-check prints for the case (the bytes can be megabytes). */
  label: string;
}

let services: ListeningServices;
let ca: string;
let ports: ListeningServices['ports'];
let organization: ListeningServices['organization'];
let portfolio: { apiKey: string; companyId: string; cursor: string };
/** Every line the services logged at level error or above. */
const errorsLogged: string[] = [];

beforeAll(async () => {
  const logger = createLogger('error', {
    write: (line: string) => {
      errorsLogged.push(line);
    },
  });
  services = await startListeningServices({
    logger,
    corsOrigins: [ALLOWED_ORIGIN],
    connectionLimits: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: 5000 },
  });
  ({ ca, ports, organization } = services);
  // Three companies: a page of two has a cursor.
  const seeded = await createTestPortfolio(services.db, { companies: 3 });
  const page = await services.apps.portfolio.inject({
    url: '/v1/external/companies?limit=2',
    headers: { authorization: seeded.apiKey },
  });
  portfolio = { apiKey: seeded.apiKey, companyId: seeded.companyId, cursor: page.json().nextCursor };
});

afterAll(async () => {
  await services.close();
});

/** Sends one case on a connection of its own; what is wrong with its answer, or undefined. */
async function problemOf(testCase: FuzzCase): Promise<string | undefined> {
  const result = await exchange({
    port: ports[testCase.service],
    ca,
    chunks: [testCase.bytes],
    timeoutMs: 15_000,
  });
  const answer = parseResponse(result.received, { head: testCase.head });
  const problem = result.closedByServer
    ? answerProblem(answer, { shapes: testCase.shapes, head: testCase.head })
    : 'the server neither answered nor closed the connection within 15 s';
  if (problem === undefined) return undefined;
  const seen = answer
    ? `${answer.status} ${answer.headers['content-type'] ?? ''} ${answer.body.slice(0, 300)}`
    : JSON.stringify(result.received.toString('latin1').slice(0, 300));
  return `${problem}: ${testCase.label} → ${seen}`;
}

/** Runs a property over batches of cases, sent at once; returns how many requests were answered. */
async function fuzz(cases: fc.Arbitrary<FuzzCase>, runs: number, seedOffset: number): Promise<number> {
  let answered = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(cases, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
      const problems = await Promise.all(batch.map(problemOf));
      answered += batch.length;
      expect(
        problems.filter((problem) => problem !== undefined),
        `FUZZ_SEED=${SEED} replays this run`,
      ).toEqual([]);
    }),
    { seed: SEED + seedOffset, numRuns: runs, endOnFailure: true },
  );
  return answered;
}

function fuzzCase(fields: Omit<FuzzCase, 'label'>, description: string): FuzzCase {
  const label = `${fields.service}: ${description.length > 400 ? `${description.slice(0, 400)}…` : description}`;
  return Object.assign(fields, { label, [fc.toStringMethod]: () => label });
}

/** A short description of a request's bytes for failure messages. */
function describeBytes(bytes: Buffer): string {
  return JSON.stringify(bytes.subarray(0, 600).toString('latin1'));
}

// Generators ---------------------------------------------------------------------------------------------

const LONE_SURROGATES = ['\uD800', '\uDBFF', '\uDC00', '\uDFFF'];

/** Strings that have broken parsers before: control characters, NUL, lone surrogates, odd words. */
const nastyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({
    unit: fc.constantFrom('\u0000', ...LONE_SURROGATES, 'a', '"', '\\', '{', '%', 'é', '😀', '\u202e'),
    maxLength: 12,
  }),
  fc.constantFrom(
    '',
    ' ',
    'null',
    'undefined',
    '0',
    '-1',
    '1e309',
    'NaN',
    '__proto__',
    'constructor',
    '../..',
    '%00',
    '<script>',
    "' or 1=1 --",
  ),
);

/** Arrays or objects nested 20 to 3,000 levels deep. */
const deepJson = fc.tuple(fc.integer({ min: 20, max: 3000 }), fc.boolean()).map(([depth, arrays]) => {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level += 1) value = arrays ? [value] : { a: value };
  return value;
});

/** Any JSON value, with nasty strings (also as keys), and deep nesting now and then. */
const jsonish: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: nastyString },
  { weight: 1, arbitrary: deepJson },
  {
    weight: 1,
    arbitrary: fc.dictionary(nastyString, fc.oneof(nastyString, fc.jsonValue({ maxDepth: 2 })), {
      maxKeys: 4,
    }),
  },
);

const GRAPHQL_WORDS = [
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ':',
  '!',
  '$id',
  '...',
  '=',
  '|',
  ',',
  'query',
  'mutation',
  'subscription',
  'fragment F on Query',
  'on',
  'viewer',
  'transaction',
  'transactions',
  'id',
  'state',
  'nodes',
  'first: 5',
  'first: -1',
  'first: 99999999999',
  'after: "x"',
  'id: "00000000-0000-4000-8000-000000000000"',
  '__typename',
  '__schema { types { name fields { name } } }',
  '@include(if: true)',
  '@skip(if: $x)',
  '@deprecated',
  'createTransaction',
  'input: {}',
  'uuid!',
  'String',
  '"\\u0000"',
  '"\\ud800"',
  '"""block"""',
  '#comment\n',
  '1',
  '-1.5e3',
  'null',
  'true',
];

/** Documents that parse and validate, with `$V` for a nasty literal. */
const VALID_DOCUMENTS = [
  'query { transaction(id: $V) { id state } }',
  'query { viewer { transactions(first: 5, after: $V) { nodes { id } } } }',
  'query { file(id: $V) { id signedUrl } }',
  'mutation { triggerTransactionEvent(input: { transactionId: $V, eventKey: $V }) { targetStateKey } }',
];

/** Text that looks more or less like GraphQL: random tokens, deep or wide selections, nasty literals. */
const graphqlText = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(fc.constantFrom(...GRAPHQL_WORDS), { maxLength: 40 }).map((words) => words.join(' ')),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 100 }) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 2, max: 3000 }).map((n) => `${'{ viewer '.repeat(n)}${'}'.repeat(n)}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 2, max: 400 })
      .map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...VALID_DOCUMENTS), nastyString)
      .map(([document, literal]) => document.replaceAll('$V', JSON.stringify(literal))),
  },
);

/** Documents with variables, so that random variable values reach variable coercion and the resolvers. */
const OPERATIONS_WITH_VARIABLES = [
  REFERENCE_QUERY,
  'query ($id: UUID!) { file(id: $id) { id signedUrl } }',
  'query ($first: Int, $after: String) { viewer { transactions(first: $first, after: $after) { nodes { id } } } }',
  'mutation ($input: CreateTransactionInput!) { createTransaction(input: $input) { transactionId } }',
  'mutation ($input: TriggerTransactionEventInput!) { triggerTransactionEvent(input: $input) { targetStateKey } }',
  'mutation ($id: uuid!, $seconds: Int) { genTransactionFileLink(input: { transactionFileId: $id, expiresInSeconds: $seconds }) { url } }',
];

/** Percent-encodes any string, lone surrogates too (as the bytes of their WTF-8 encoding). */
function encodeAny(text: string): string {
  let out = '';
  for (const char of text) {
    try {
      out += encodeURIComponent(char);
    } catch {
      const unit = char.charCodeAt(0);
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    }
  }
  return out;
}

/** What Node's parser refuses in a header value (all control characters but tab). */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000a-\u001f\u007f]/g;

/** Removes what would end a header line early. */
const headerSafe = (text: string) => text.replace(/[\r\n]/g, '');

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/JSON',
  'application/json; charset=latin1',
  'application/graphql',
  'application/graphql-response+json',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  '',
  ';',
  'application/json;;;',
  '*/*',
];

/** Authorization values a confused or hostile client might send, given the services' real keys. */
function junkAuthorization(keys: { transactions: string; portfolio: string }): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'binary-ascii', maxLength: 200 }).map(headerSafe),
    nastyString.map((text) => `Bearer ${headerSafe(text)}`),
    fc.integer({ min: 200, max: 20_000 }).map((n) => `Bearer ${'x'.repeat(n)}`),
    fc
      .string({
        unit: fc.constantFrom(...Array.from('0123456789ABCDEFabcdef')),
        minLength: 38,
        maxLength: 38,
      })
      .map((body) => `Bearer sk_test_${body}`),
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      'bearer  ',
      'Basic dXNlcjpwYXNz',
      `Bearer ${keys.transactions} extra`,
      `Bearer ${keys.transactions}${keys.transactions}`,
      `Bearer ${keys.portfolio}`,
      keys.transactions,
      `Bearer ${keys.transactions.replace('sk_test_', 'sk_live_')}`,
      `${keys.portfolio} `,
      `Token ${keys.portfolio}`,
      '\u00ff\u00fe\u00fd',
    ),
  );
}

/** What `shapes` an error answer from this path of this service may take. */
function shapesFor(service: Service, target: string, method: string): Shape[] {
  const path = target.split('?')[0];
  return service === 'transactions' && path === '/beta' && ['GET', 'POST', 'HEAD'].includes(method)
    ? ['graphql']
    : ['rest'];
}

function graphqlCases(): fc.Arbitrary<FuzzCase> {
  const keys = { transactions: organization.apiKey, portfolio: portfolio.apiKey };
  const variableValue = fc.oneof(
    jsonish,
    fc.uuid(),
    fc.constantFrom(
      organization.transactionId,
      organization.templateId,
      organization.senderEntityId,
      2 ** 53,
      1e308,
      -1,
      0,
      86_400,
    ),
    fc.record(
      {
        templateId: fc.oneof(fc.constant(organization.templateId), jsonish),
        senderEntityId: fc.oneof(fc.constant(organization.senderEntityId), jsonish),
        transactionId: fc.oneof(fc.constant(organization.transactionId), jsonish),
        noticeEmail: fc.oneof(
          nastyString.map((local) => `${local}@example.com`),
          jsonish,
        ),
        noticeName: jsonish,
        eventKey: jsonish,
        inputData: jsonish,
      },
      { requiredKeys: [] },
    ),
  );
  const variables = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.dictionary(
        fc.constantFrom('id', 'input', 'first', 'after', 'seconds', 'x'),
        variableValue,
      ),
    },
    { weight: 1, arbitrary: jsonish },
  );
  const extensions = fc.oneof(
    jsonish,
    fc.record({
      persistedQuery: fc.oneof(
        jsonish,
        fc.record(
          {
            version: fc.oneof(fc.constant(1), jsonish),
            sha256Hash: fc.oneof(
              fc.string({
                unit: fc.constantFrom(...Array.from('0123456789abcdef')),
                minLength: 64,
                maxLength: 64,
              }),
              nastyString,
            ),
          },
          { requiredKeys: [] },
        ),
      ),
    }),
  );
  const envelope = fc.record(
    {
      query: fc.oneof(
        { weight: 3, arbitrary: graphqlText },
        { weight: 3, arbitrary: fc.constantFrom(...OPERATIONS_WITH_VARIABLES) },
        { weight: 1, arbitrary: jsonish },
      ),
      variables,
      operationName: fc.oneof(nastyString, jsonish),
      extensions,
    },
    { requiredKeys: [] },
  );
  // Junk that Node's parser takes as a header value (no control characters, not over 16 KB), so that the
  // request reaches the GraphQL route; the parser's own refusals are fuzzed with the odd requests.
  const authorization = fc.oneof(
    { weight: 6, arbitrary: fc.constant(`Bearer ${organization.apiKey}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: junkAuthorization(keys).map((value) => value.replace(CONTROL_CHARACTERS, '').slice(0, 8000)),
    },
  );
  const accept = fc.option(
    fc.constantFrom(
      'application/graphql-response+json',
      'application/json',
      '*/*',
      'text/html',
      'application/xml',
    ),
    { nil: undefined },
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  );
  /** A body that is JSON, then sometimes cut short, padded with junk, or emptied. */
  const body = fc
    .tuple(
      fc.oneof(
        { weight: 6, arbitrary: envelope },
        { weight: 1, arbitrary: jsonish },
        { weight: 1, arbitrary: fc.array(envelope, { maxLength: 3 }) },
      ),
      fc.constantFrom('keep', 'keep', 'keep', 'keep', 'truncate', 'append', 'empty'),
      fc.nat(),
    )
    .map(([value, mangle, at]) => {
      const text = JSON.stringify(value);
      if (mangle === 'truncate') return text.slice(0, at % (text.length + 1));
      if (mangle === 'append') return `${text}${['}', ',', 'x', '\u0000', '{"a":'][at % 5] ?? ''}`;
      if (mangle === 'empty') return '';
      return text;
    });
  const post = fc.tuple(body, contentType, authorization, accept).map(([text, type, auth, acceptValue]) => {
    const headers: [string, string][] = [['content-type', type]];
    if (auth !== undefined) headers.push(['authorization', auth]);
    if (acceptValue !== undefined) headers.push(['accept', acceptValue]);
    const bytes = rawRequest({ method: 'POST', target: '/beta', headers, body: text });
    return fuzzCase(
      { service: 'transactions', bytes, shapes: ['graphql'], head: false },
      `POST /beta ${type} ${auth === undefined ? '(no key)' : JSON.stringify(auth.slice(0, 60))} ${JSON.stringify(text.slice(0, 300))}`,
    );
  });
  const get = fc
    .tuple(
      fc.dictionary(
        fc.constantFrom('query', 'variables', 'operationName', 'extensions', 'query', 'x'),
        fc.oneof(
          graphqlText,
          fc.constantFrom(...OPERATIONS_WITH_VARIABLES),
          jsonish.map((value) => JSON.stringify(value)),
        ),
        { maxKeys: 4 },
      ),
      fc.option(fc.constantFrom('%', '&&&', 'query[]=x', 'query=1&query=2', '=', 'variables=%7B', '%ZZ'), {
        nil: undefined,
      }),
      authorization,
      fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
    )
    .map(([params, junk, auth, method]) => {
      const search = Object.entries(params)
        .map(([name, value]) => `${name}=${encodeAny(value)}`)
        .concat(junk === undefined ? [] : [junk])
        .join('&');
      const target = `/beta?${search}`;
      const bytes = rawRequest({
        method,
        target,
        headers: auth === undefined ? [] : [['authorization', auth]],
      });
      // A query string that makes the head larger than Node reads is refused before any route, as 431.
      const shapes: Shape[] = bytes.length > 15 * 1024 ? ['graphql', 'rest'] : ['graphql'];
      return fuzzCase(
        { service: 'transactions', bytes, shapes, head: method === 'HEAD' },
        `${method} ${target.slice(0, 400)}`,
      );
    });
  return fc.oneof({ weight: 3, arbitrary: post }, { weight: 1, arbitrary: get });
}

function portfolioCases(): fc.Arbitrary<FuzzCase> {
  const keys = { transactions: organization.apiKey, portfolio: portfolio.apiKey };
  const limit = fc.oneof(
    fc.integer({ min: -10, max: 500 }).map(String),
    fc.constantFrom(
      '',
      ' ',
      '1e2',
      '0x10',
      '5.5',
      'NaN',
      'Infinity',
      '99999999999999999999999',
      '-0',
      '+5',
      '5 ',
      '05',
    ),
    nastyString,
  );
  const cursor = fc.oneof(
    fc.constant(portfolio.cursor),
    fc.tuple(fc.nat(), fc.constantFrom(...Array.from('AZaz09-_.=+/ %'))).map(([at, char]) => {
      const index = at % portfolio.cursor.length;
      return `${portfolio.cursor.slice(0, index)}${char}${portfolio.cursor.slice(index + 1)}`;
    }),
    fc.string({
      unit: fc.constantFrom(
        ...Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
      ),
      maxLength: 300,
    }),
    fc.integer({ min: 1000, max: 12_000 }).map((n) => 'A'.repeat(n)),
    nastyString,
  );
  const updatedSince = fc.oneof(
    fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    fc.constantFrom(
      '2026-01-01',
      '2026-13-45T99:99:99Z',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59Z',
      '+275760-09-13T00:00:00Z',
      '2026-01-01T00:00:00+25:00',
      '2026-01-01T00:00:00.1234567890Z',
      '2026-02-30T00:00:00Z',
      '2026-01-01T00:00:00',
      '2026-01-01t00:00:00z',
      '1970-01-01T00:00:00-00:00',
    ),
    nastyString,
  );
  const param = fc.oneof(
    fc.tuple(fc.constant('limit'), limit),
    fc.tuple(fc.constant('cursor'), cursor),
    fc.tuple(fc.constant('updatedSince'), updatedSince),
    fc.tuple(
      fc.oneof(
        fc.constantFrom('limt', 'limit[]', '__proto__', 'constructor', 'offset', 'page', ''),
        nastyString,
      ),
      nastyString,
    ),
  );
  const path = fc.oneof(
    { weight: 3, arbitrary: fc.constant('/companies') },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.oneof(fc.constant(portfolio.companyId), fc.uuid(), nastyString.map(encodeAny)),
          fc.constantFrom('updates', 'investments'),
        )
        .map(([id, list]) => `/company/${id}/${list}`),
    },
  );
  const authorization = fc.oneof(
    { weight: 7, arbitrary: fc.constant(portfolio.apiKey) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: junkAuthorization(keys) },
  );
  return fc
    .tuple(
      path,
      fc.array(param, { maxLength: 5 }),
      fc.option(fc.constantFrom('&', '%', '%zz', '=&=', 'limit', 'limit=1&limit=2', 'a[b]=c'), {
        nil: undefined,
      }),
      authorization,
      fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
    )
    .map(([list, params, junk, auth, method]) => {
      const search = params
        .map(([name, value]) => `${encodeAny(name)}=${encodeAny(value)}`)
        .concat(junk === undefined ? [] : [junk])
        .join('&');
      const target = `/v1/external${list}${search === '' ? '' : `?${search}`}`;
      const bytes = rawRequest({
        method,
        target,
        headers: auth === undefined ? [] : [['authorization', auth]],
      });
      return fuzzCase(
        { service: 'portfolio', bytes, shapes: ['rest'], head: method === 'HEAD' },
        `${method} ${target.slice(0, 400)} ${auth === undefined ? '(no key)' : JSON.stringify(auth.slice(0, 60))}`,
      );
    });
}

const KNOWN_SEGMENTS = [
  'beta',
  'healthz',
  'readyz',
  'files',
  'recipient',
  'v1',
  'external',
  'companies',
  'company',
  'updates',
  'investments',
  'openapi.json',
  'items',
  'documents',
  'signatures',
  'submit',
  '..',
  '.',
  '%2e%2e',
  '%00',
  '%2F',
  '%5C',
  '%',
  '%zz',
  '%ED%A0%80',
  '%C0%AF',
  '%FF',
  '~',
  '',
  '*',
  ';',
  '%3B',
];

/** Odd paths: known words, traversal, bad escapes, unicode (encoded or raw), long segments. */
const oddPath = fc
  .tuple(
    fc.array(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...KNOWN_SEGMENTS) },
        { weight: 2, arbitrary: fc.uuid() },
        { weight: 2, arbitrary: nastyString.map(encodeAny) },
        { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
        { weight: 1, arbitrary: fc.integer({ min: 90, max: 6000 }).map((n) => 'a'.repeat(n)) },
      ),
      { maxLength: 7 },
    ),
    fc.option(
      fc.oneof(
        fc.dictionary(nastyString, nastyString, { maxKeys: 3 }).map((query) =>
          Object.entries(query)
            .map(([name, value]) => `${encodeAny(name)}=${encodeAny(value)}`)
            .join('&'),
        ),
        fc.constantFrom('', '%', '&&', '#frag', '?', 'expires=1&signature=x', 'a=%00'),
      ),
      { nil: undefined },
    ),
  )
  .map(([segments, query]) => `/${segments.join('/')}${query === undefined ? '' : `?${query}`}`);

const METHODS = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'TRACE',
      'CONNECT',
      'PROPFIND',
      'MKCOL',
      'PURGE',
      'SEARCH',
      'QUERY',
      'LINK',
      'REPORT',
      'M-SEARCH',
      'NOTIFY',
      'SOURCE',
      'LOCK',
    ),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z-]{1,12}$/) },
);

function oddCases(): fc.Arbitrary<FuzzCase> {
  const keys = { transactions: organization.apiKey, portfolio: portfolio.apiKey };
  const headerName = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'accept',
        'accept-encoding',
        'accept-language',
        'content-encoding',
        'x-request-id',
        'x-forwarded-proto',
        'x-forwarded-for',
        'forwarded',
        'idempotency-key',
        'user-agent',
        'cookie',
        'range',
        'if-none-match',
        'if-modified-since',
        'expect',
        'upgrade',
        'te',
        'host',
        'origin',
        'access-control-request-method',
        'access-control-request-headers',
        'authorization',
      ),
    },
    { weight: 2, arbitrary: fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,40}$/) },
    {
      weight: 1,
      arbitrary: fc
        .string({ unit: 'binary-ascii', minLength: 1, maxLength: 10 })
        .map((name) => headerSafe(name).replace(/:/g, '') || 'x y'),
    },
  );
  const headerValue = fc.oneof(
    fc.string({ unit: 'binary-ascii', maxLength: 60 }).map(headerSafe),
    nastyString.map(headerSafe),
    fc.integer({ min: 100, max: 20_000 }).map((n) => 'v'.repeat(n)),
    fc.constantFrom(
      '',
      ' ',
      '*',
      ALLOWED_ORIGIN,
      'https://evil.example',
      'null',
      'gzip',
      'gzip, deflate, br',
      'chunked',
      '100-continue',
      'websocket',
      'https',
      'bytes=0-1',
      'trace-1234567890',
      'POST',
    ),
  );
  const body = fc.option(
    fc.oneof(
      { weight: 3, arbitrary: jsonish.map((value) => Buffer.from(JSON.stringify(value))) },
      {
        weight: 2,
        arbitrary: fc.string({ unit: 'binary', maxLength: 300 }).map((text) => Buffer.from(text)),
      },
      { weight: 2, arbitrary: fc.uint8Array({ maxLength: 3000 }).map((bytes) => Buffer.from(bytes)) },
      { weight: 1, arbitrary: fc.constant(Buffer.alloc(1024 * 1024 + 10, '[')) },
    ),
    { nil: undefined },
  );
  return fc
    .tuple(
      fc.constantFrom<Service>('transactions', 'portfolio'),
      METHODS,
      fc.oneof({ weight: 1, arbitrary: fc.constant('/beta') }, { weight: 4, arbitrary: oddPath }),
      fc.array(fc.tuple(headerName, headerValue), { maxLength: 8 }),
      fc.option(junkAuthorization(keys), { nil: undefined }),
      fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined }),
      body,
    )
    .map(([service, method, target, headers, auth, type, content]) => {
      const all: [string, string][] = [...headers];
      if (auth !== undefined) all.push(['authorization', auth]);
      if (type !== undefined) all.push(['content-type', type]);
      const bytes = rawRequest({ method, target, headers: all, ...(content ? { body: content } : {}) });
      const shapes: Shape[] = shapesFor(service, target, method).includes('graphql')
        ? ['graphql', 'rest']
        : ['rest'];
      return fuzzCase({ service, bytes, shapes, head: method === 'HEAD' }, describeBytes(bytes));
    });
}

/** Bytes that are not quite HTTP/1.1: garbage, wrong versions, broken header lines, smuggling, floods. */
function rawCases(): fc.Arbitrary<FuzzCase> {
  const service = fc.constantFrom<Service>('transactions', 'portfolio');
  const garbage = fc.uint8Array({ minLength: 1, maxLength: 2000 }).map((bytes) => {
    // 0x16 opens a TLS handshake: nested in our TLS connection it would be a TLS-in-TLS handshake, which
    // fails without an HTTP answer (there is no HTTP to answer in).
    if (bytes[0] === 0x16) bytes[0] = 0x17;
    return Buffer.concat([Buffer.from(bytes), Buffer.from('\r\n\r\n')]);
  });
  const version = fc.constantFrom(
    'HTTP/1.1',
    'HTTP/1.0',
    'HTTP/2.0',
    'HTTP/0.9',
    'HTTP/9.9',
    'HTTP/1.x',
    'HTTP/1.1 x',
    '',
    'http/1.1',
  );
  const requestLine = fc
    .tuple(
      METHODS,
      fc.oneof(fc.constantFrom('/healthz', '/beta', '/v1/external/companies', '*'), oddPath),
      version,
    )
    .map(([method, target, v]) => `${method} ${target} ${v}`.trimEnd());
  const lineEnding = fc.constantFrom('\r\n', '\n', '\r', '\r\r\n');
  const oddHeaderLine = fc.constantFrom(
    'Host: localhost',
    'Host:',
    'Host: a b',
    'Host: localhost\r\nHost: other',
    'no-colon-here',
    ' folded: continuation',
    'X-A: b\r\n  folded',
    ': empty-name',
    'X-Nul: a\u0000b',
    'X-Tab:\tvalue',
    'Content-Length: 0',
    'Content-Length: -1',
    'Content-Length: 1e3',
    'Content-Length: 0\r\nContent-Length: 1',
    'Transfer-Encoding: chunked\r\nContent-Length: 3',
    'Transfer-Encoding: gzip, chunked',
    'Transfer-Encoding: identity',
    'Connection: close',
    'Connection: keep-alive, Upgrade',
    'Expect: 100-continue',
    'Expect: something-else',
  );
  const malformed = fc
    .tuple(requestLine, fc.array(oddHeaderLine, { maxLength: 4 }), lineEnding)
    .map(([line, headers, eol]) => ({
      bytes: Buffer.from(`${[line, 'Connection: close', ...headers].join(eol)}${eol}${eol}`, 'utf8'),
      head: line.startsWith('HEAD '),
    }));
  const bytesOnly = (arbitrary: fc.Arbitrary<Buffer>) => arbitrary.map((bytes) => ({ bytes, head: false }));
  const chunked = fc
    .tuple(
      fc.constantFrom('/beta', '/v1/external/companies', '/healthz'),
      fc.constantFrom('0', '1', 'zz', '-1', '1;ext=x', ' 1', '1 '),
    )
    .map(([target, size]) =>
      Buffer.from(
        `POST ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n` +
          `Transfer-Encoding: chunked\r\n\r\n${size}\r\n{\r\n0\r\n\r\n`,
      ),
    );
  const flood = fc
    .tuple(fc.integer({ min: 100, max: 400 }), fc.integer({ min: 50, max: 120 }))
    .map(([count, size]) =>
      rawRequest({
        method: 'GET',
        target: '/healthz',
        headers: Array.from({ length: count }, (_, i) => [`x-h${i}`, 'v'.repeat(size)] as const),
      }),
    );
  const longUrl = fc
    .integer({ min: 16 * 1024, max: 64 * 1024 })
    .map((n) => rawRequest({ method: 'GET', target: `/v1/external/companies?cursor=${'A'.repeat(n)}` }));
  const noHost = fc
    .constantFrom('/healthz', '/beta', '/v1/external/companies')
    .map((target) => rawRequest({ method: 'GET', target, host: null }));
  return fc
    .tuple(
      service,
      fc.oneof(
        { weight: 3, arbitrary: bytesOnly(garbage) },
        { weight: 4, arbitrary: malformed },
        { weight: 1, arbitrary: bytesOnly(chunked) },
        { weight: 1, arbitrary: bytesOnly(flood) },
        { weight: 1, arbitrary: bytesOnly(longUrl) },
        { weight: 1, arbitrary: bytesOnly(noHost) },
      ),
    )
    .map(([name, { bytes, head }]) =>
      fuzzCase({ service: name, bytes, shapes: ['rest', 'graphql'], head }, describeBytes(bytes)),
    );
}

// Tests --------------------------------------------------------------------------------------------------

// A generous limit for each run of generated requests: it guards against a hang, and CI runs this file beside
// other work on two cores.
describe('both services under generated malformed requests over HTTPS', { timeout: 120_000 }, () => {
  it('answers GraphQL envelopes with random JSON, GraphQL-ish text, NUL, lone surrogates and deep nesting in the GraphQL error shape', async () => {
    expect(await fuzz(graphqlCases(), RUNS.graphql, 1)).toBe(RUNS.graphql * BATCH);
  });

  it('answers Portfolio lists with bad limit, cursor, updatedSince, unknown parameters and keys in the REST error shape', async () => {
    expect(await fuzz(portfolioCases(), RUNS.portfolio, 2)).toBe(RUNS.portfolio * BATCH);
  });

  it('answers odd methods, paths, headers, content types, keys and bodies on both services in the documented shapes', async () => {
    expect(await fuzz(oddCases(), RUNS.odd, 3)).toBe(RUNS.odd * BATCH);
  });

  it('answers garbage bytes, broken request lines and headers, smuggling attempts and floods with JSON refusals', async () => {
    expect(await fuzz(rawCases(), RUNS.raw, 4)).toBe(RUNS.raw * BATCH);
  });

  it('sends over 2,000 generated requests per run, and neither service logs an unexpected error', () => {
    const total = Object.values(RUNS).reduce((sum, runs) => sum + runs * BATCH, 0);
    expect(total).toBeGreaterThanOrEqual(2000);
    expect(errorsLogged, `FUZZ_SEED=${SEED}`).toEqual([]);
  });
});

describe('raw-socket refusals', () => {
  const SERVICES: Service[] = ['transactions', 'portfolio'];

  /** Sends bytes to a service over TLS and returns the parsed answer, expecting the documented REST shape. */
  async function refusal(service: Service, chunks: (string | Buffer)[], timeoutMs = 10_000) {
    const result = await exchange({ port: ports[service], ca, chunks, timeoutMs });
    expect(result.closedByServer, `${service} closed the connection`).toBe(true);
    const answer = parseResponse(result.received);
    expect(answerProblem(answer, { shapes: ['rest'] }), service).toBeUndefined();
    return { answer: answer!, error: JSON.parse(answer!.body).error, elapsedMs: result.elapsedMs };
  }

  it('answers a request line without headers with 408 REQUEST_TIMEOUT once the headers timeout passes', async () => {
    for (const service of SERVICES) {
      const { answer, error, elapsedMs } = await refusal(service, ['GET /healthz HTTP/1.1\r\n']);
      expect(answer.status).toBe(408);
      expect(error.code).toBe('REQUEST_TIMEOUT');
      expect(elapsedMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    }
  });

  it('answers the HTTP/2 preface over TLS with 400 BAD_USER_INPUT saying to use HTTP/1.1', async () => {
    for (const service of SERVICES) {
      const { answer, error } = await refusal(service, ['PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n']);
      expect(answer.status).toBe(400);
      expect(error).toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringContaining('HTTP/1.1') });
    }
  });

  it('answers an HTTP/2 request over cleartext (h2c) with a JSON 400 and a request id', async () => {
    for (const service of SERVICES) {
      const session = connectHttp2(`http://127.0.0.1:${ports[service]}`);
      try {
        const { status, headers, body } = await new Promise<{
          status: number;
          headers: Record<string, unknown>;
          body: string;
        }>((resolve, reject) => {
          const stream = session.request({ ':path': '/healthz' });
          let text = '';
          let head: Record<string, unknown> = {};
          stream.on('response', (received) => {
            head = received;
          });
          stream.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
          });
          stream.on('end', () => {
            resolve({ status: Number(head[':status']), headers: head, body: text });
          });
          stream.on('error', reject);
        });
        expect(status, service).toBe(400);
        expect(headers['content-type']).toMatch(/^application\/json/);
        expect(JSON.parse(body).error).toMatchObject({
          code: 'BAD_USER_INPUT',
          requestId: headers['x-request-id'],
        });
      } finally {
        session.close();
      }
    }
  });

  it('answers HTTP/1.1 without Host with 400 BAD_USER_INPUT', async () => {
    for (const service of SERVICES) {
      const { answer, error } = await refusal(service, [
        rawRequest({ method: 'GET', target: '/healthz', host: null }),
      ]);
      expect(answer.status).toBe(400);
      expect(error.message).toContain('Host');
    }
  });

  it('answers a URL over 16 KB and headers over 16 KB with 431 HEADERS_TOO_LARGE', async () => {
    for (const service of SERVICES) {
      const url = await refusal(service, [
        rawRequest({ method: 'GET', target: `/healthz?x=${'a'.repeat(17 * 1024)}` }),
      ]);
      expect(url.answer.status).toBe(431);
      expect(url.error.code).toBe('HEADERS_TOO_LARGE');
      const headers = Array.from({ length: 40 }, (_, i) => [`x-filler-${i}`, 'v'.repeat(500)] as const);
      const many = await refusal(service, [rawRequest({ method: 'GET', target: '/healthz', headers })]);
      expect(many.answer.status).toBe(431);
      const one = await refusal(service, [
        rawRequest({
          method: 'GET',
          target: '/healthz',
          headers: [['authorization', `Bearer ${'j'.repeat(20_000)}`]],
        }),
      ]);
      expect(one.answer.status).toBe(431);
    }
  });

  it('lets the client read its 431 even when it is still sending a head far over 16 KB', async () => {
    const head = rawRequest({
      method: 'GET',
      target: '/healthz',
      headers: Array.from({ length: 1000 }, (_, i) => [`x-filler-${i}`, 'v'.repeat(200)] as const),
    });
    for (const service of SERVICES) {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const { answer } = await refusal(service, [head]);
        expect(answer.status).toBe(431);
      }
    }
  });

  it('answers garbage bytes with 400 BAD_USER_INPUT', async () => {
    for (const service of SERVICES) {
      const { answer, error } = await refusal(service, [
        Buffer.from([0x00, 0xff, 0x13, 0x10, 0x0d, 0x0a, 0x0d, 0x0a]),
      ]);
      expect(answer.status).toBe(400);
      expect(error.code).toBe('BAD_USER_INPUT');
    }
  });

  it('answers CONNECT with 405 METHOD_NOT_ALLOWED instead of dropping the connection', async () => {
    for (const service of SERVICES) {
      const { answer, error } = await refusal(service, [
        rawRequest({ method: 'CONNECT', target: 'example.com:443' }),
      ]);
      expect(answer.status).toBe(405);
      expect(error.code).toBe('METHOD_NOT_ALLOWED');
    }
  });

  it('answers a path that is not valid percent-encoding, and an over-long path parameter, in the REST shape', async () => {
    const bad = await refusal('portfolio', [
      rawRequest({ method: 'GET', target: '/v1/external/company/%E0%A4%A/updates' }),
    ]);
    expect(bad.answer.status).toBe(400);
    expect(bad.error.code).toBe('BAD_USER_INPUT');
    const long = await refusal('transactions', [
      rawRequest({ method: 'GET', target: `/files/${'a'.repeat(150)}` }),
    ]);
    expect(long.answer.status).toBe(414);
    expect(long.error.code).toBe('URI_TOO_LONG');
  });
});
