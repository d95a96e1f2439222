import { Badge, Button, Callout, Flex, Heading, Skeleton, Table, Text } from '@radix-ui/themes';
import { useId, useMemo, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { PageHeading } from '../../../shared/page-heading.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import { may } from '../../roles.ts';
import { useSignedIn } from '../../session.tsx';
import type { WorkflowPanel } from '../../types.ts';
import { capitalized, formatDate, formatDateTime } from '../../words.ts';
import { WorkflowFigure } from '../transaction/workflow-figure.tsx';
import { WorkflowTitlesProvider } from '../transaction/workflow-names.tsx';
import { TemplateDiff } from './template-diff.tsx';
import {
  OUTCOMES,
  outcomeWords,
  transactionCount,
  type ImportOutcome,
  type TemplateShape,
  type TemplateSummary,
} from './template-words.ts';
import '../transaction/transaction.css';
import './templates.css';
import { BackLink } from '../../../shared/layout/back-link.tsx';
import { CardSection } from '../../../shared/layout/headed-section.tsx';

/** A version's workflow as the transaction page's drawing takes it: no one is in it, nothing is lit. */
function panelOf(shape: TemplateShape): WorkflowPanel {
  const { workflow } = shape;
  // The built-in void's state too: only that event enters it.
  const voided = new Set(workflow.events.filter((event) => event.builtIn).map((event) => event.to));
  return {
    state: workflow.initialState,
    initialState: workflow.initialState,
    version: null,
    states: workflow.states
      .filter((state) => !voided.has(state.key))
      .map((state) => ({ key: state.key, description: null, final: state.final })),
    // The built-in void, from every unfinished state, is said in words rather than drawn.
    events: workflow.events
      .filter((event) => !event.builtIn)
      .map((event) => ({
        key: event.key,
        description: null,
        from: event.from,
        to: event.to,
        guard: null,
        allowed: false,
        reason: null,
        mayTrigger: false,
        messageRequired: false,
        needsSecondPerson: false,
        onBehalf: false,
      })),
    path: [],
    pendingApproval: null,
  };
}

/** The workflow of a version, drawn, and its events in words. */
function Workflow({ shape }: { shape: TemplateShape }) {
  const titles = useMemo(
    () => ({
      states: Object.fromEntries(shape.workflow.states.map((state) => [state.key, state.title])),
      events: Object.fromEntries(shape.workflow.events.map((event) => [event.key, event.title])),
    }),
    [shape],
  );
  const panel = useMemo(() => panelOf(shape), [shape]);
  const state = (key: string) => titles.states[key] ?? key;
  const voidEvent = shape.workflow.events.find((event) => event.builtIn);
  return (
    <CardSection title={`Workflow of v${String(shape.version)}`}>
      <WorkflowTitlesProvider titles={titles}>
        <WorkflowFigure
          workflow={panel}
          caption={`The workflow drawn: a transaction starts in ${state(shape.workflow.initialState)} (filled); final states have a double border. The list below says the same in words.`}
        />
      </WorkflowTitlesProvider>
      <ul className="template-changes">
        {shape.workflow.events
          .filter((event) => !event.builtIn)
          .map((event) => (
            <li key={event.key}>
              <Text size="2">
                <Text weight="medium">{event.title}</Text>: from {event.from.map(state).join(', ')} to{' '}
                {state(event.to)}
              </Text>
            </li>
          ))}
        {voidEvent === undefined ? null : (
          <li>
            <Text size="2">
              <Text weight="medium">{voidEvent.title}</Text>: from any unfinished state to{' '}
              {state(voidEvent.to)}, with the reason
            </Text>
          </li>
        )}
      </ul>
    </CardSection>
  );
}

/** The fields of a version by their titles, by process and item; which the sender prefills, which is the commitment. */
function Fields({ shape }: { shape: TemplateShape }) {
  return (
    <CardSection title={`What the investor fills in (v${String(shape.version)})`}>
      <Flex direction="column" gap="3">
        {shape.processes.map((process) => (
          <Flex key={process.key} direction="column" gap="2">
            <Heading as="h3" size="3">
              {process.title}
            </Heading>
            {process.items.map((item) => (
              <Flex key={item.key} direction="column" gap="1">
                <Text size="2" weight="medium">
                  {item.title}
                </Text>
                <ul className="template-fields">
                  {item.fields.map((field) => (
                    <li key={field.answer}>
                      <Text size="2">{field.title}</Text>
                      {field.required ? (
                        <Text size="1" color="gray">
                          {' '}
                          (required)
                        </Text>
                      ) : null}{' '}
                      {field.prefill ? (
                        <Badge color="blue" size="1" highContrast>
                          Sender may prefill
                        </Badge>
                      ) : null}{' '}
                      {field.commitment ? (
                        <Badge color="green" size="1" highContrast>
                          The commitment
                        </Badge>
                      ) : null}
                    </li>
                  ))}
                </ul>
              </Flex>
            ))}
            {process.documents.length === 0 ? null : (
              <Text size="2" color="gray">
                Signed: {process.documents.join(', ')}
              </Text>
            )}
          </Flex>
        ))}
        <Text size="2" color="gray">
          Recipients: {shape.recipientRoles.join(', ')}. Links work for {shape.linkValidDays} days.
        </Text>
      </Flex>
    </CardSection>
  );
}

/** The versions of the template, newest first, each with its use; the one shown is chosen here. */
function Versions({
  template,
  shown,
  onShow,
}: {
  template: TemplateSummary;
  shown: number;
  onShow: (version: number) => void;
}) {
  return (
    <CardSection title="Versions">
      <div className="table-scroll">
        <Table.Root variant="surface">
          <caption className="visually-hidden">Versions of {template.name}</caption>
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>Version</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Used by</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell className="hide-on-phone">Imported</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>
                <span className="visually-hidden">Show</span>
              </Table.ColumnHeaderCell>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {template.versions.map((version) => (
              <Table.Row key={version.id}>
                <Table.RowHeaderCell>
                  v{version.version}
                  <Text as="div" size="1" color="gray">
                    {version.name}
                  </Text>
                </Table.RowHeaderCell>
                <Table.Cell>{transactionCount(version.transactions)}</Table.Cell>
                <Table.Cell className="hide-on-phone">{formatDateTime(version.importedAt)}</Table.Cell>
                <Table.Cell>
                  {version.version === shown ? (
                    <Text size="2" color="gray">
                      Shown
                    </Text>
                  ) : (
                    <Button
                      size="1"
                      variant="soft"
                      onClick={() => {
                        onShow(version.version);
                      }}
                    >
                      Show v{version.version}
                    </Button>
                  )}
                </Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      </div>
    </CardSection>
  );
}

/** Archiving or restoring the template: admins; the others see why they cannot. */
function Archive({ template, onChanged }: { template: TemplateSummary; onChanged: () => void }) {
  const { user } = useSignedIn();
  const action = useApiAction();
  const [stopped, setStopped] = useState<number>();
  const allowed = may(user.role, 'manageTemplates');
  const archived = template.archived !== null;
  const reasonId = useId();
  const change = () =>
    action.run(async () => {
      const answer = await consoleApi('PUT /templates/:key/archived', {
        params: { key: template.key },
        body: { archived: !archived },
      });
      setStopped(answer.stoppedClosings);
      onChanged();
    });
  return (
    <CardSection title={archived ? 'Archived' : 'Archive'}>
      <Flex direction="column" gap="2" align="start">
        <Text size="2">
          {archived
            ? `Archived ${formatDateTime(template.archived?.at ?? '')}${template.archived?.by ? ` by ${template.archived.by.name}` : ''}. It starts no new transaction; those made before go on.`
            : 'An archived template starts no new transaction, from the console or the API, and its running closings stop. Transactions already made go on.'}
        </Text>
        {stopped !== undefined && stopped > 0 ? (
          <Text size="2" role="status">
            {stopped === 1 ? 'A running closing stopped' : `${String(stopped)} running closings stopped`}: the
            rows not created yet are listed on {stopped === 1 ? 'its page' : 'their pages'}.
          </Text>
        ) : null}
        <Button
          color={archived ? undefined : 'red'}
          variant="soft"
          disabled={!allowed}
          loading={action.busy}
          aria-describedby={allowed ? undefined : reasonId}
          onClick={() => void change()}
        >
          {archived ? 'Restore' : 'Archive'} {template.name}
        </Button>
        {allowed ? null : (
          <Text id={reasonId} size="1" color="gray">
            Only admins archive and restore templates.
          </Text>
        )}
        <ErrorCallout error={action.error} />
      </Flex>
    </CardSection>
  );
}

/**
 * A template's page (`/console/templates/:key`): its name, whether it is archived, its versions with their use,
 * a version's workflow drawn and its fields, the changes between two versions, and archiving. Opened after an
 * import (`?imported=<outcome>&version=N`), it says what became of the import and shows that version's changes.
 */
export default function TemplatePage() {
  const { key = '' } = useParams();
  const [search] = useSearchParams();
  const imported = search.get('imported');
  const outcome: ImportOutcome | undefined = OUTCOMES.find((each) => each === imported);
  const importedVersion = Number(search.get('version') ?? '0');
  const [version, setVersion] = useState<number>();
  const read = useResource(consoleApi, 'GET /templates/:key', {
    params: { key },
    query: version === undefined ? {} : { version },
  });
  const answer = read.data ?? read.previous;
  const template = answer?.template;
  return (
    <Flex direction="column" gap="4">
      <Flex direction="column" gap="2">
        <BackLink to="/templates">Templates</BackLink>
        {template === undefined ? (
          read.error === undefined ? (
            <Skeleton height="32px" />
          ) : null
        ) : (
          <>
            <PageHeading title={template.name} documentTitle={`${template.name} · Templates`} />
            <Flex gap="2" align="center" wrap="wrap">
              {template.archived === null ? (
                <Badge color="green" highContrast>
                  In use
                </Badge>
              ) : (
                <Badge color="gray" highContrast>
                  Archived {formatDate(template.archived.at)}
                </Badge>
              )}
              <Text size="2" color="gray">
                {capitalized(
                  `${String(template.versions.length)} ${template.versions.length === 1 ? 'version' : 'versions'}`,
                )}
              </Text>
            </Flex>
            {template.description === null ? null : <Text size="2">{template.description}</Text>}
          </>
        )}
      </Flex>
      {outcome === undefined ? null : (
        <Callout.Root color={outcome === 'unchanged' ? 'gray' : 'green'} highContrast role="status">
          <Callout.Text>{outcomeWords(outcome, importedVersion)}</Callout.Text>
        </Callout.Root>
      )}
      <ErrorCallout error={read.error} />
      {template === undefined || answer === undefined ? null : (
        <>
          {template.versions.length > 1 ? <TemplateDiff template={template} /> : null}
          <Versions template={template} shown={answer.shape.version} onShow={setVersion} />
          <Workflow shape={answer.shape} />
          <Fields shape={answer.shape} />
          {template.versions.length > 1 ? null : <TemplateDiff template={template} />}
          <Archive template={template} onChanged={read.reload} />
        </>
      )}
    </Flex>
  );
}
