import { Badge, Flex, Link as ThemeLink, Skeleton, Table, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { EmptyState } from '../../../shared/list/empty-state.tsx';
import { PageHeading } from '../../../shared/page-heading.tsx';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import { NewButton } from '../../new-button.tsx';
import { may } from '../../roles.ts';
import { useSignedIn } from '../../session.tsx';
import { formatDate } from '../../words.ts';
import { transactionCount, type TemplateSummary } from './template-words.ts';
import './templates.css';

/** One template of the list: its name (its page's link), whether archived, and each version with its use. */
function Row({ template }: { template: TemplateSummary }) {
  const [latest] = template.versions;
  return (
    <Table.Row>
      <Table.RowHeaderCell>
        <Flex direction="column" gap="1" align="start">
          <ThemeLink asChild weight="medium">
            <Link to={`/templates/${encodeURIComponent(template.key)}`}>{template.name}</Link>
          </ThemeLink>
          {template.archived === null ? null : (
            <Badge color="gray" highContrast>
              Archived {formatDate(template.archived.at)}
            </Badge>
          )}
          {latest === undefined ? null : (
            <Text size="1" color="gray" className="show-on-phone">
              v{latest.version} · imported {formatDate(latest.importedAt)}
            </Text>
          )}
        </Flex>
      </Table.RowHeaderCell>
      <Table.Cell>
        <ul className="plain-list template-versions">
          {template.versions.map((version) => (
            <li key={version.id}>
              <Text size="2" weight="medium">
                v{version.version}
              </Text>{' '}
              <Text size="2" color="gray">
                {transactionCount(version.transactions)}
              </Text>
            </li>
          ))}
        </ul>
      </Table.Cell>
      <Table.Cell className="hide-on-phone">
        {latest === undefined ? null : (
          <time dateTime={latest.importedAt}>{formatDate(latest.importedAt)}</time>
        )}
      </Table.Cell>
    </Table.Row>
  );
}

/**
 * The organization's templates (`/console/templates`): each by its latest version's name, with its versions and
 * how many transactions run on each, when it was last imported, and whether it is archived. Admins import one;
 * the others see why they cannot.
 */
export default function TemplatesPage() {
  const { tenant, user } = useSignedIn();
  const templates = useResource(consoleApi, 'GET /templates');
  const shown = templates.data ?? templates.previous;
  return (
    <Flex direction="column" gap="4">
      <Flex justify="between" align="start" gap="3" wrap="wrap">
        <Flex direction="column" gap="1">
          <PageHeading title="Templates" documentTitle={`Templates · ${tenant.name}`} />
          <Text size="2" color="gray">
            What each transaction asks of its investor and how it moves. A version some transaction uses never
            changes: importing a change makes the next version.
          </Text>
        </Flex>
        <NewButton
          to="/templates/import"
          label="Import a template"
          allowed={may(user.role, 'manageTemplates')}
          reasonId="import-template-reason"
          reason="Only admins import templates."
        />
      </Flex>
      <ErrorCallout error={templates.error} />
      {shown === undefined ? (
        templates.error === undefined ? (
          <Skeleton height="160px" />
        ) : null
      ) : shown.templates.length === 0 ? (
        <EmptyState title="No templates yet" hint="An admin imports one from a YAML or JSON file." />
      ) : (
        <div className="table-scroll">
          <Table.Root variant="surface">
            <caption className="visually-hidden">Templates</caption>
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>Template</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>Versions and their use</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Last imported</Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {shown.templates.map((template) => (
                <Row key={template.key} template={template} />
              ))}
            </Table.Body>
          </Table.Root>
        </div>
      )}
    </Flex>
  );
}
