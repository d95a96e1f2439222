import { Box, Button, Card, DataList, Flex, Heading, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { useLocation } from 'react-router';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { Field } from '../../../shared/form/field.tsx';
import { ConfirmDialog } from '../../../shared/list/confirm-dialog.tsx';
import { PageHeading } from '../../../shared/page-heading.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { consoleApi } from '../../api.ts';
import { useResource } from '../../../shared/use-resource.ts';
import { StateBadge } from '../../state-badge.tsx';
import { useWorkflowNames } from './workflow-names.tsx';
import type { TransactionDetail } from '../../types.ts';
import { contactOf, formatDateTime } from '../../words.ts';
import { queueAddressFrom } from '../queue-address.ts';
import { BackLink } from '../../../shared/layout/back-link.tsx';
import { Notice } from '../../../shared/notice.tsx';

/**
 * The top of a transaction's page: the way back to the work queue (with the filters it was opened from), its
 * investor (the heading: their entity's name) and contact person, its state, its template and sender, when it was
 * made and changed, until when the investor's link works; and, for operators, what they may do about the link.
 * The state's badge is coloured by the stage the server reads from the workflow.
 */
export function TransactionHeader({
  transaction,
  operate,
  onChanged,
}: {
  transaction: TransactionDetail;
  operate: boolean;
  onChanged: () => void;
}) {
  const primary = transaction.recipients.find((recipient) => recipient.primary);
  const location = useLocation();
  const names = useWorkflowNames();
  return (
    <Flex direction="column" gap="4">
      <Flex direction="column" gap="2">
        <BackLink to={queueAddressFrom(location.state)}>Work queue</BackLink>
        <PageHeading
          title={transaction.investorName}
          documentTitle={`${transaction.investorName} · ${transaction.template.name}`}
        />
        <Flex gap="3" align="center" wrap="wrap">
          <StateBadge
            state={transaction.state}
            stage={transaction.stage}
            size="2"
            title={names.state(transaction.state)}
          />
          <Text size="2">
            <Text color="gray">Contact: </Text>
            {contactOf(transaction)}
          </Text>
        </Flex>
      </Flex>
      <DataList.Root orientation={{ initial: 'vertical', sm: 'horizontal' }} size="2">
        <DataList.Item>
          <DataList.Label minWidth="140px">Template</DataList.Label>
          <DataList.Value>
            {transaction.template.name} (version {transaction.template.version})
          </DataList.Value>
        </DataList.Item>
        <DataList.Item>
          <DataList.Label minWidth="140px">Sender</DataList.Label>
          <DataList.Value>{transaction.sender.name}</DataList.Value>
        </DataList.Item>
        <DataList.Item>
          <DataList.Label minWidth="140px">Created</DataList.Label>
          <DataList.Value>{formatDateTime(transaction.createdAt)}</DataList.Value>
        </DataList.Item>
        <DataList.Item>
          <DataList.Label minWidth="140px">Last changed</DataList.Label>
          <DataList.Value>{formatDateTime(transaction.updatedAt)}</DataList.Value>
        </DataList.Item>
        {transaction.completedAt === null ? null : (
          <DataList.Item>
            <DataList.Label minWidth="140px">Completed</DataList.Label>
            <DataList.Value>{formatDateTime(transaction.completedAt)}</DataList.Value>
          </DataList.Item>
        )}
        <DataList.Item>
          <DataList.Label minWidth="140px">
            {operate ? <label htmlFor="assignee">Assigned to</label> : 'Assigned to'}
          </DataList.Label>
          <DataList.Value>
            {operate ? (
              <Assignee transaction={transaction} onChanged={onChanged} />
            ) : (
              (transaction.assignee?.name ?? 'No one')
            )}
          </DataList.Value>
        </DataList.Item>
        <DataList.Item>
          <DataList.Label minWidth="140px">Investor&apos;s link</DataList.Label>
          <DataList.Value>
            {transaction.linkExpiresAt === null
              ? 'No working link'
              : `Works until ${formatDateTime(transaction.linkExpiresAt)}`}
          </DataList.Value>
        </DataList.Item>
      </DataList.Root>
      {primary ? <EsignWithdrawn recipient={primary} /> : null}
      {operate && primary ? (
        <LinkActions
          transaction={transaction}
          lastReminderAt={primary.mail?.lastReminderAt ?? null}
          onChanged={onChanged}
        />
      ) : null}
    </Flex>
  );
}

/**
 * What the page says first when the investor withdrew their consent to sign electronically or asked for paper
 * (docs/esign-consent.md): their link takes no more signatures, and the way on is paper.
 */
function EsignWithdrawn({ recipient }: { recipient: TransactionDetail['recipients'][number] }) {
  const { esign } = recipient;
  if (esign === null || esign.act === 'consented') return null;
  const did =
    esign.act === 'paper_requested'
      ? 'asked to sign on paper instead of electronically'
      : 'withdrew their consent to use electronic records and signatures';
  return (
    <Notice tone="warning" highContrast>
      <Text as="span" weight="bold">
        {recipient.name} {did} on {formatDateTime(esign.at)}.
      </Text>{' '}
      Their link takes no more signatures until they agree again: go on with them on paper, and run their step
      on their behalf with the signed paper form.
      {esign.message === null ? null : <> They wrote: “{esign.message}”</>}
    </Notice>
  );
}

/**
 * Who of the organization looks after the transaction, chosen among its people (an operator's choice): the
 * change is in the timeline, and the queue shows it.
 */
function Assignee({ transaction, onChanged }: { transaction: TransactionDetail; onChanged: () => void }) {
  const options = useResource(consoleApi, 'GET /queue/options');
  const action = useApiAction();
  const chosen = transaction.assignee?.id ?? '';
  const people = options.data?.people ?? (transaction.assignee ? [transaction.assignee] : []);
  return (
    <Flex direction="column" gap="1">
      <select
        id="assignee"
        className="native-select"
        value={chosen}
        disabled={action.busy}
        onChange={(event) => {
          const userId = event.target.value === '' ? null : event.target.value;
          void action.run(async () => {
            await consoleApi('PUT /transactions/:id/assignee', {
              params: { id: transaction.id },
              body: { userId },
            });
            onChanged();
          });
        }}
      >
        <option value="">No one</option>
        {people.map((person) => (
          <option key={person.id} value={person.id}>
            {person.name}
          </option>
        ))}
      </select>
      <ErrorCallout error={action.error} />
    </Flex>
  );
}

/** Today's date in the reader's time zone, as a date input writes it (`2026-11-26`). */
function inputDate(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${String(date.getFullYear())}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * An operator's actions on the investor's link: remind now, reset it (a new link, mailed; the old one stops), set
 * until when it works (to the end of a day). Each says what the server refused, and why.
 */
function LinkActions({
  transaction,
  lastReminderAt,
  onChanged,
}: {
  transaction: TransactionDetail;
  lastReminderAt: string | null;
  onChanged: () => void;
}) {
  const remind = useApiAction();
  const expiry = useApiAction();
  const [done, setDone] = useState<string>();
  const [date, setDate] = useState(() =>
    transaction.linkExpiresAt === null ? '' : inputDate(new Date(transaction.linkExpiresAt)),
  );
  const [dateError, setDateError] = useState<string>();
  const params = { id: transaction.id };
  const { linkActions } = transaction;
  /**
   * Why actions are greyed, each reason once (a complete transaction refuses all three alike), and for each
   * greyed action the id of the line that says why.
   */
  const reasons = [
    ...new Set(Object.values(linkActions).flatMap(({ reason }) => (reason === null ? [] : [reason]))),
  ];
  const reasonId = (action: keyof typeof linkActions) => {
    const { reason } = linkActions[action];
    return reason === null ? undefined : `link-action-reason-${String(reasons.indexOf(reason))}`;
  };

  const setExpiry = async () => {
    setDone(undefined);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
      setDateError('Choose the last day the link works.');
      return;
    }
    const endOfDay = new Date(`${date}T23:59:59`);
    if (endOfDay.getTime() <= Date.now()) {
      setDateError('Choose today or a later day: a link cannot work until a time that has passed.');
      return;
    }
    setDateError(undefined);
    await expiry.run(async () => {
      const answer = await consoleApi('PUT /transactions/:id/link-expiry', {
        params,
        body: { expiresAt: endOfDay.toISOString() },
      });
      setDone(`The link now works until ${formatDateTime(answer.expiresAt)}.`);
      onChanged();
    });
  };

  return (
    <Card size="2">
      <Flex direction="column" gap="3">
        <Heading as="h2" size="3">
          The investor&apos;s link
        </Heading>
        <Flex gap="3" align="center" wrap="wrap">
          <Button
            variant="soft"
            loading={remind.busy}
            disabled={!linkActions.remind.allowed}
            aria-describedby={reasonId('remind')}
            onClick={() => {
              setDone(undefined);
              void remind.run(async () => {
                const answer = await consoleApi('POST /transactions/:id/remind', { params });
                setDone(`A reminder is on its way (queued ${formatDateTime(answer.queuedAt)}).`);
                onChanged();
              });
            }}
          >
            Remind now
          </Button>
          <ConfirmDialog
            trigger="Reset link"
            triggerLabel="Reset link for the investor"
            title="Reset the investor's link?"
            confirm="Reset and mail the new link"
            unavailable={
              linkActions.resetLink.allowed ? undefined : { reasonId: reasonId('resetLink') ?? '' }
            }
            onConfirm={async () => {
              setDone(undefined);
              const answer = await consoleApi('POST /transactions/:id/reset-link', { params });
              setDone(
                `A new link is mailed to the investor; it works until ${formatDateTime(answer.expiresAt)}.`,
              );
              onChanged();
            }}
          >
            The link the investor has now stops working at once, and a new one is mailed to{' '}
            {transaction.noticeEmail}. What they filled in stays.
          </ConfirmDialog>
          <Text size="2" color="gray">
            {lastReminderAt === null
              ? 'No reminder sent yet.'
              : `Last reminder: ${formatDateTime(lastReminderAt)}.`}
          </Text>
        </Flex>
        {reasons.map((reason, index) => (
          <Text as="p" size="2" color="gray" id={`link-action-reason-${String(index)}`} key={reason}>
            Not now: {reason}
          </Text>
        ))}
        <ErrorCallout error={remind.error} />
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void setExpiry();
          }}
        >
          <Flex gap="3" align="end" wrap="wrap">
            <Box minWidth="220px">
              <Field
                id="link-expiry"
                label="Link works until the end of"
                type="date"
                size="2"
                value={date}
                onChange={(event) => {
                  setDate(event.target.value);
                }}
                error={dateError}
              />
            </Box>
            <Button
              type="submit"
              variant="soft"
              loading={expiry.busy}
              disabled={!linkActions.setLinkExpiry.allowed}
              aria-describedby={reasonId('setLinkExpiry')}
            >
              Set expiry
            </Button>
          </Flex>
        </form>
        <ErrorCallout error={expiry.error} />
        {done === undefined ? null : (
          <Text size="2" color="green" role="status">
            {done}
          </Text>
        )}
      </Flex>
    </Card>
  );
}
