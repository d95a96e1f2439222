import { expect } from 'vitest';
import type { DemoFacts } from '../../../src/demo/demo-facts.ts';
import { DEMO_ADMIN_EMAIL } from '../../../src/demo/portfolio-seed.ts';
import { DEMO_CONSOLE_ADMIN_EMAIL } from '../../../src/demo/seed.ts';

/**
 * Asserts what `demo.json` (and `portico demo --json`) promises, for the tests about the demo itself: the fields
 * of {@link DemoFacts}, every one present, the console admin's sign-in, and the demo admin's sign-in to the
 * dashboard at `dashboardUrl` (a value or an asymmetric matcher), each with a fresh random password.
 */
export function expectDemoFacts(facts: DemoFacts, dashboardUrl: unknown): void {
  expect(Object.keys(facts).sort()).toEqual(['caCertPath', 'portfolio', 'transactions']);
  expect(Object.keys(facts.transactions).sort()).toEqual(
    [
      'apiKey',
      'console',
      'organizationId',
      'recipientUrl',
      'senderEntityId',
      'templateId',
      'transactionId',
      'url',
    ].sort(),
  );
  expect(facts.transactions.console).toEqual({
    url: expect.stringMatching(/^https:\/\/localhost:\d+\/console$/) as unknown,
    email: DEMO_CONSOLE_ADMIN_EMAIL,
    password: expect.stringMatching(/^[\w-]{16}$/) as unknown,
  });
  expect(Object.keys(facts.portfolio).sort()).toEqual(['apiKey', 'companyId', 'dashboard', 'url']);
  expect(facts.portfolio.dashboard).toEqual({
    url: dashboardUrl,
    email: DEMO_ADMIN_EMAIL,
    password: expect.stringMatching(/^[\w-]{16}$/) as unknown,
  });
}
