import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { createDemoSignIn, type DemoSignIn } from './demo-sign-in.ts';
import type { ImportSource } from '../portfolio/import/files.ts';
import type { RecordType } from '../portfolio/record-types.ts';
import { importPortfolio } from '../portfolio/import/import.ts';
import { createInstance, createPortfolioKey } from '../portfolio/instances.ts';

/** What `seedPortfolioDemo` made: the demo instance, a key for it, and a company to ask about. */
export interface PortfolioDemo {
  instanceId: string;
  /** The demo instance's Portfolio key, in full: only its hash is in the database. */
  apiKey: string;
  /** A company with updates and investments, for the banner's example requests. */
  companyId: string;
  /** The demo instance's admin, who signs in to the dashboard: a fresh random password per data dir. */
  dashboardSignIn: DemoSignIn;
}

/** The demo instance's admin. */
export const DEMO_ADMIN_EMAIL = 'admin@demo-ventures.example';

const PREFIXES = [
  'Acme',
  'Blue',
  'Bright',
  'Cedar',
  'Cobalt',
  'Delta',
  'Ember',
  'Fern',
  'Granite',
  'Harbor',
  'Indigo',
  'Juniper',
  'Kite',
  'Lumen',
  'Maple',
  'Nimbus',
  'Orbit',
  'Pioneer',
  'Quartz',
  'Rapid',
];
const SUFFIXES = ['Analytics', 'Robotics', 'Health', 'Labs', 'Logistics', 'Energy', 'Payments', 'Foods'];
const FORMS = ['Inc.', 'GmbH', 'Ltd', 'SAS', 'B.V.'];
const ROUNDS = ['Pre-Seed', 'Seed', 'Series A', 'Series B', 'Series C'] as const;
const INSTRUMENTS = ['preferred_equity', 'safe', 'convertible_note', 'common_equity'] as const;
const CURRENCIES = ['USD', 'USD', 'USD', 'EUR', 'GBP'] as const;
const DAY = 24 * 3600 * 1000;

/** A small deterministic generator (mulberry32): the same demo every time, apart from ids. */
function generator(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(values: readonly T[]): T => values[int(0, values.length - 1)] as T;
  return { next, int, pick };
}

/**
 * The portfolio records of the demo: 3 funds and 40 companies, each with 4–10 quarterly updates (fewer for a company added since) and 1–3
 * investments of realistic sizes, as an import would read them from a file.
 */
export function demoPortfolioRecords(now = new Date()): ImportSource {
  const random = generator(2026);
  const funds = ['Northwind Ventures I', 'Northwind Ventures II', 'Northwind Opportunity Fund'].map(
    (name) => ({
      id: randomUUID(),
      name,
    }),
  );
  const records: Record<RecordType, Record<string, unknown>[]> = {
    companies: [],
    updates: [],
    investments: [],
  };
  for (let index = 0; index < 40; index += 1) {
    const id = randomUUID();
    const prefix = PREFIXES[index % PREFIXES.length] ?? 'Acme';
    const suffix = SUFFIXES[(index * 3 + Math.floor(index / PREFIXES.length)) % SUFFIXES.length] ?? 'Labs';
    const addedDaysAgo = 1100 - index * 27;
    const createdAt = new Date(now.getTime() - addedDaysAgo * DAY);
    const holders = funds.filter((_, fund) => (index + fund) % 3 !== 2 || fund === index % 3);
    records.companies.push({
      id,
      legalName: `${prefix} ${suffix} ${random.pick(FORMS)}`,
      createdAt: createdAt.toISOString(),
      funds: holders,
    });

    const currency = random.pick(CURRENCIES);
    let customers = random.int(5, 60);
    let cash = random.int(800, 6000) * 1000;
    const updates = random.int(4, 10);
    for (let quarter = updates - 1; quarter >= 0; quarter -= 1) {
      const date = new Date(now.getTime() - (quarter * 91 + random.int(3, 20)) * DAY);
      if (date < createdAt) continue;
      customers += random.int(0, 40);
      cash = Math.max(50_000, cash + random.int(-900, 700) * 1000);
      const burn = random.int(80, 400) * 1000;
      const raising = random.next() < 0.25;
      records.updates.push({
        id: randomUUID(),
        companyId: id,
        title: `Q${Math.floor(date.getUTCMonth() / 3) + 1} ${date.getUTCFullYear()} investor update`,
        updateDate: new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)).toISOString(),
        cashInBankAmountValue: cash,
        cashInBankAmountCurrency: currency,
        productUpdatesSummary:
          random.next() < 0.8 ? `Shipped ${random.int(2, 9)} features; churn at ${random.int(1, 6)}%.` : null,
        businessUpdatesSummary:
          random.next() < 0.7 ? `Revenue up ${random.int(3, 45)}% quarter on quarter.` : null,
        numberOfCustomers: customers,
        hasNewRound: raising,
        newRoundDescription: raising ? `Raising a ${random.pick(ROUNDS)} round.` : null,
        runwayInMonths: Math.round((cash / burn) * 10) / 10,
        summary: random.next() < 0.5 ? 'On plan.' : null,
      });
    }

    const investments = random.int(1, 3);
    for (let round = 0; round < investments; round += 1) {
      const instrument = random.pick(INSTRUMENTS);
      const priced = instrument === 'preferred_equity' || instrument === 'common_equity';
      const amount = random.int(25, 400) * 10_000_00;
      const pricePerShare = random.int(50, 900);
      const date = new Date(createdAt.getTime() + round * random.int(200, 320) * DAY);
      if (date > now) break;
      const valuation = amount * random.int(8, 20);
      records.investments.push({
        id: randomUUID(),
        companyId: id,
        date: date.toISOString(),
        amountCents: String(amount),
        amountCurrency: currency,
        unrealizedValueCents: String(Math.round(amount * (0.4 + random.next() * 2.6))),
        unrealizedValueCurrency: currency,
        round: ROUNDS[Math.min(round + random.int(0, 2), ROUNDS.length - 1)],
        instrument,
        shares: priced ? Math.round(amount / pricePerShare) : null,
        dilutedShares: priced ? Math.round((amount / pricePerShare) * 1.08) : null,
        fmvPerShareCents: priced ? String(Math.round(pricePerShare * (1 + random.next()))) : null,
        costPerShareCents: priced ? String(pricePerShare) : null,
        discount: priced ? null : random.pick([10, 15, 20]),
        hasProRataRights: random.next() < 0.7,
        hasInformationRights: random.next() < 0.8,
        roundSizeCents: String(amount * random.int(3, 8)),
        hasCap: priced ? null : true,
        valuationOrCapCents: String(valuation),
        coInvestors: random.next() < 0.6 ? 'Harbor Capital, Lumen Partners' : null,
        leadInvestor: random.next() < 0.5 ? 'Northwind Ventures' : 'Harbor Capital',
        isFollowOnInvestment: round > 0,
        investmentStatus: 'active',
        investmentReason: round === 0 ? 'Strong founding team in a large market.' : 'Pro-rata follow-on.',
        valuationType: priced ? 'pre_money' : 'post_money',
      });
    }
  }
  const sourced = (type: RecordType) =>
    records[type].map((value, index) => ({
      value,
      file: 'demo',
      path: [type, index],
      lineOf: () => undefined,
    }));
  return {
    companies: sourced('companies'),
    updates: sourced('updates'),
    investments: sourced('investments'),
  };
}

/**
 * The demo customer instance `demo-ventures`, its portfolio (through the real import), a key, and an admin who
 * signs in to the dashboard.
 */
export async function seedPortfolioDemo(
  db: Database,
  options: { slug?: string; name?: string } = {},
): Promise<PortfolioDemo> {
  const instance = await createInstance(db, {
    slug: options.slug ?? 'demo-ventures',
    name: options.name ?? 'Demo Ventures',
  });
  const source = demoPortfolioRecords();
  await importPortfolio(db, { instanceId: instance.id, sources: [source] });
  const { key } = await createPortfolioKey(db, { instanceId: instance.id, name: 'demo' });
  const company = source.investments[0]?.value.companyId;
  if (typeof company !== 'string') throw new Error('the demo portfolio has no investments');
  const dashboardSignIn = await createDemoSignIn(db, {
    tenant: { kind: 'instance', id: instance.id },
    email: options.slug === undefined ? DEMO_ADMIN_EMAIL : `admin@${options.slug}.example`,
    name: 'Demo Admin',
    role: 'admin',
  });
  return { instanceId: instance.id, apiKey: key, companyId: company, dashboardSignIn };
}
