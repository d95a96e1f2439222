import type { FastifyInstance } from 'fastify';
import type { ContractRoute } from '../../../http/contract-routes.ts';
import type { SignedInRouteContract } from '../../../http/signed-in/surface.ts';
import { consoleRoutes as contract } from '../contract.ts';
import type { ConsoleCaller, ConsoleDeps } from '../deps.ts';
import {
  diffTemplateVersions,
  listConsoleTemplates,
  setTemplateArchived,
  templateDetail,
} from './templates-admin.ts';
import { registerTemplateImportRoute } from './import-route.ts';

/**
 * Templates: the list, a template's page, the diff of two versions, archiving, and the import (a multipart body,
 * read by its own route on `api`: import-route.ts).
 */
export function registerTemplateRoutes(
  route: ContractRoute<ConsoleCaller, SignedInRouteContract>,
  api: FastifyInstance,
  deps: ConsoleDeps,
): void {
  const { db } = deps;
  registerTemplateImportRoute(api, { db });
  route(contract.listTemplates, async (caller) => ({
    templates: await listConsoleTemplates(db, caller.organization.id),
  }));
  route(contract.readTemplate, (caller, { params, query }) =>
    templateDetail(db, { organizationId: caller.organization.id, key: params.key, version: query.version }),
  );
  route(contract.diffTemplate, (caller, { params, query }) =>
    diffTemplateVersions(db, {
      organizationId: caller.organization.id,
      key: params.key,
      from: query.from,
      to: query.to,
    }),
  );
  route(contract.archiveTemplate, (caller, { params, body }) =>
    setTemplateArchived(db, {
      organizationId: caller.organization.id,
      key: params.key,
      userId: caller.user.id,
      archived: body.archived,
    }),
  );
}
