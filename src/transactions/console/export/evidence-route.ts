import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { handRoute } from '../../../http/contract-routes.ts';
import { signedInPerson } from '../../../http/signed-in/person.ts';
import { sendEvidenceBundle, type BundleDeps } from '../../evidence/bundle-route.ts';
import { consoleRoutes as contract } from '../contract.ts';

/**
 * GET /transactions/:id/evidence and GET /closings/:id/evidence: the evidence bundle of a transaction, or of
 * every transaction of a closing, streamed as a zip (evidence/bundle-route.ts). The routes answer with a
 * stream of their own, so they are added by hand, with the access their contract entries declare.
 */
export function registerEvidenceRoutes(api: FastifyInstance, deps: BundleDeps): void {
  for (const [entry, scopeOf] of [
    [contract.transactionEvidence, (id: string) => ({ transactionId: id })],
    [contract.closingEvidence, (id: string) => ({ closingId: id })],
  ] as const) {
    api.route<{ Params: Static<typeof entry.params> }>({
      ...handRoute(entry),
      handler: async (request, reply) => {
        const caller = signedInPerson(request, 'organization');
        return sendEvidenceBundle(request, reply, deps, {
          organizationId: caller.organization.id,
          ...scopeOf(request.params.id),
        });
      },
    });
  }
}
