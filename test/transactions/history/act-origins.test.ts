// Who did what, from where (issue 41, item 3): each act a request makes keeps, beside its history entry, the
// client's address (behind the trusted proxy, the one it forwards), its user agent and how the person was
// identified; the console's timeline shows them, and PORTICO_RETENTION's `addresses` removes them after its days
// while the history, and its hash chain, stay whole. Requests come "through a TLS-terminating proxy".
import { describe, expect, it } from 'vitest';
import { cleanUp } from '../../../src/admin/retention.ts';
import type { TimelineEntry } from '../../../src/transactions/console/contract.ts';
import { verifyHistory } from '../../../src/transactions/history/chain.ts';
import {
  consoleApiWorld,
  portalRequest,
  signedIn,
  transactionWithTeam,
} from '../../support/data/console-api.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';

const world = madeBeforeAll('where acts came from', consoleApiWorld);

const INVESTOR = { ip: '203.0.113.7', userAgent: 'origins-test/1.0 (investor)' };
const OPERATOR = { userAgent: 'origins-test/1.0 (operator)' };

/** A request of the investor's portal, through the proxy. */
const portal = (token: string, method: 'GET' | 'POST', path: string, payload?: Record<string, unknown>) =>
  portalRequest(world, INVESTOR, token, method, path, payload);

async function timelineOf(team: Awaited<ReturnType<typeof transactionWithTeam>>): Promise<TimelineEntry[]> {
  const viewer = await signedIn(world, team.people.viewer);
  const { body } = await viewer.get(team.path('/timeline'));
  return (body as { entries: TimelineEntry[] }).entries;
}

describe('where each act came from', () => {
  it("keeps a recipient's acts with their address, user agent and the link they used, and a console action with the person signed in", async () => {
    const team = await transactionWithTeam(world, 'sent');
    const [made] = team.story.transactions;
    if (!made) throw new Error('the story made no transaction');
    expect((await portal(made.transmitToken, 'GET', '')).status).toBe(200);
    expect((await portal(made.transmitToken, 'POST', '/esign', { act: 'consented' })).status).toBe(200);

    const operator = await signedIn(world, team.people.operator);
    const assigned = await operator.request(
      'PUT',
      team.path('/assignee'),
      { userId: team.people.operator?.id ?? null },
      { headers: { 'user-agent': OPERATOR.userAgent } },
    );
    expect(assigned.status).toBe(200);

    const entries = await timelineOf(team);
    const origin = (action: string) => entries.find((entry) => entry.action === action)?.origin;
    const link = {
      ipAddress: INVESTOR.ip,
      userAgent: INVESTOR.userAgent,
      identifiedBy: `the link mailed to ${made.investor.email}`,
    };
    expect(origin('opened')).toEqual(link);
    expect(origin('esign_consented')).toEqual(link);
    expect(origin('assigned')).toEqual({
      ipAddress: operator.clientAddress,
      userAgent: OPERATOR.userAgent,
      identifiedBy: `signed in to the console as ${team.people.operator?.email ?? ''}`,
    });
    // What no request did (the invitation's mail, the story's own setup) has none.
    expect(entries.filter((entry) => entry.kind === 'mail').every((entry) => entry.origin === null)).toBe(
      true,
    );
  });

  it("removes the addresses past PORTICO_RETENTION's addresses days, and leaves the history and its chain whole", async () => {
    const team = await transactionWithTeam(world, 'sent');
    const [made] = team.story.transactions;
    if (!made) throw new Error('the story made no transaction');
    await portal(made.transmitToken, 'GET', '');
    await world.db.query(
      `update transaction_history_origins set created_at = created_at - interval '40 days' where transaction_id = $1`,
      [team.story.transactionId],
    );
    const removed = await cleanUp(world.db, { dataDir: '/nonexistent', settings: { addresses: 30 } });
    expect(
      removed.find((each) => each.table === 'transaction_history_origins')?.removed,
    ).toBeGreaterThanOrEqual(1);
    const entries = await timelineOf(team);
    expect(entries.find((entry) => entry.action === 'opened')?.origin).toBeNull();
    expect(
      await verifyHistory(world.db, {
        organizationId: team.story.organizationId,
        transactionId: team.story.transactionId,
      }),
    ).toMatchObject({ ok: true });
  });
});
