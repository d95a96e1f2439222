import type { Environment } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { notMailed } from '../../errors.ts';
import type { Mailer, SentMail } from '../../mail/mailer.ts';
import { keyDeliveryMail } from './mail.ts';
import { issueKeyDelivery, keyDeliveryLink, revokeDelivery, type KeyDelivery } from './deliveries.ts';
import type { ViewsRequired } from './views.ts';
import type { Organization } from '../organizations.ts';

/**
 * `portico keys issue`: issues a key for the organization and environment, and mails its delivery link to each
 * address. Answers the delivery and where each mail went, never the key or the link. When a mail cannot be
 * sent the delivery is revoked (with its key) and SERVICE_UNAVAILABLE says so: nothing half-delivered stays.
 */
export async function deliverKey(
  db: Database,
  services: { mailer: Mailer; transactionsUrl: string },
  options: {
    organization: Pick<Organization, 'id' | 'name'>;
    environment: Environment;
    emails: string[];
    name?: string | undefined;
    expiresInMinutes?: number | undefined;
    viewsRequired?: ViewsRequired | undefined;
  },
): Promise<{ delivery: KeyDelivery; mail: (SentMail & { to: string })[] }> {
  const { delivery, linkId, secret } = await issueKeyDelivery(db, {
    organizationId: options.organization.id,
    environment: options.environment,
    emails: options.emails,
    name: options.name,
    expiresInMinutes: options.expiresInMinutes,
    viewsRequired: options.viewsRequired,
  });
  const link = keyDeliveryLink(services.transactionsUrl, linkId, secret);
  const mail: (SentMail & { to: string })[] = [];
  try {
    for (const { email } of delivery.recipients) {
      const sent = await services.mailer.send(
        keyDeliveryMail({
          to: email,
          organizationName: options.organization.name,
          environment: delivery.environment,
          link,
          expiresAt: delivery.expiresAt,
        }),
      );
      mail.push({ ...sent, to: email });
    }
  } catch (error) {
    await revokeDelivery(db, delivery.id);
    throw notMailed('The delivery to every address', error, 'it and its key are revoked; issue it again');
  }
  return { delivery, mail };
}
