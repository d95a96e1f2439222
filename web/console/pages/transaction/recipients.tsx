import { Badge, Card, DataList, Flex, Heading, Link, Text } from '@radix-ui/themes';
import { HeadedSection } from '../../../shared/layout/headed-section.tsx';
import type { RecipientProgress, TransactionDetail, TransactionFile } from '../../types.ts';
import { formatBytes, formatDateTime, label, words } from '../../words.ts';

/** When something happened, or what it is waiting for. */
const when = (at: string | null, otherwise: string) => (at === null ? otherwise : formatDateTime(at));

/** Where the investor stands about electronic records and signatures (docs/esign-consent.md), in words. */
function esignInWords(esign: RecipientProgress['esign']): string {
  if (esign === null) return 'Not agreed yet (asked before their first signature)';
  const at = formatDateTime(esign.at);
  if (esign.act === 'consented') return `Agreed ${at}`;
  return esign.act === 'withdrawn' ? `Withdrawn ${at}` : `Asked for paper ${at}`;
}

/** What the mail to a recipient did: invited when, the last message sent, and the mail server's last refusal. */
function MailProgress({ mail }: { mail: NonNullable<RecipientProgress['mail']> }) {
  return (
    <>
      <DataList.Item>
        <DataList.Label minWidth="110px">Invited</DataList.Label>
        <DataList.Value>
          {mail.invitedAt === null
            ? mail.invitationDueAt === null
              ? 'Not yet'
              : `Not yet (due ${formatDateTime(mail.invitationDueAt)})`
            : formatDateTime(mail.invitedAt)}
        </DataList.Value>
      </DataList.Item>
      <DataList.Item>
        <DataList.Label minWidth="110px">Mail</DataList.Label>
        <DataList.Value>
          <Flex direction="column" gap="1">
            <Text>
              {mail.lastSent === null
                ? 'None sent yet'
                : `${label(mail.lastSent.message)} sent ${formatDateTime(mail.lastSent.at)}`}
            </Text>
            {mail.failures > 0 ? (
              <Text color="red">
                {mail.failures === 1 ? 'Failed once' : `Failed ${String(mail.failures)} times`}
                {mail.lastFailure === null ? '' : `: “${mail.lastFailure}”`}
              </Text>
            ) : null}
            <Text color="gray" size="1">
              {mail.remindersSent === 0
                ? 'No reminder yet'
                : `${String(mail.remindersSent)} reminder${mail.remindersSent === 1 ? '' : 's'}, the last ${when(mail.lastReminderAt, '')}`}
              {mail.nextReminderAt === null ? '' : `; next ${formatDateTime(mail.nextReminderAt)}`}
            </Text>
          </Flex>
        </DataList.Value>
      </DataList.Item>
    </>
  );
}

/** Each recipient and how far they have got: invited, mail sent or failed, link opened, share filled, submitted, signed. */
export function Recipients({ recipients }: { recipients: RecipientProgress[] }) {
  return (
    <HeadedSection id="recipients-heading" title="Recipients">
      <Flex direction="column" gap="3">
        {recipients.map((recipient) => (
          <Card key={recipient.id} size="2">
            <Flex direction="column" gap="3">
              <Flex gap="2" align="center" wrap="wrap">
                <Heading as="h3" size="3">
                  {recipient.name}
                </Heading>
                <Badge color="gray">{words(recipient.role)}</Badge>
                {recipient.primary ? <Badge color="blue">primary</Badge> : null}
              </Flex>
              {recipient.email === null ? null : (
                <Text size="2" color="gray">
                  {recipient.email}
                </Text>
              )}
              <DataList.Root size="2">
                {recipient.mail === null ? null : <MailProgress mail={recipient.mail} />}
                <DataList.Item>
                  <DataList.Label minWidth="110px">Link opened</DataList.Label>
                  <DataList.Value>{when(recipient.openedAt, 'Not yet')}</DataList.Value>
                </DataList.Item>
                {recipient.percentDone === null ? null : (
                  <DataList.Item>
                    <DataList.Label minWidth="110px">Filled in</DataList.Label>
                    <DataList.Value>
                      <Flex gap="2" align="center" width="100%">
                        <progress
                          className="filled-bar"
                          max={100}
                          value={recipient.percentDone}
                          aria-label={`${recipient.name} filled in`}
                        />
                        <Text>{recipient.percentDone}%</Text>
                      </Flex>
                    </DataList.Value>
                  </DataList.Item>
                )}
                {recipient.primary ? (
                  <DataList.Item>
                    <DataList.Label minWidth="110px">Submitted</DataList.Label>
                    <DataList.Value>{when(recipient.submittedAt, 'Not yet')}</DataList.Value>
                  </DataList.Item>
                ) : null}
                {recipient.primary ? (
                  <DataList.Item>
                    <DataList.Label minWidth="110px">Electronic records</DataList.Label>
                    <DataList.Value>{esignInWords(recipient.esign)}</DataList.Value>
                  </DataList.Item>
                ) : null}
                <DataList.Item>
                  <DataList.Label minWidth="110px">Signed</DataList.Label>
                  <DataList.Value>{when(recipient.signedAt, 'Not yet')}</DataList.Value>
                </DataList.Item>
              </DataList.Root>
            </Flex>
          </Card>
        ))}
      </Flex>
    </HeadedSection>
  );
}

/** Each kind of file, as its badge names it: a paper form is one staff received from the investor and uploaded. */
const FILE_KINDS: Record<TransactionFile['kind'], { words: string; color: 'green' | 'gray' | 'blue' }> = {
  signed: { words: 'signed', color: 'green' },
  upload: { words: 'upload', color: 'gray' },
  paper: { words: 'paper form', color: 'blue' },
};

/** The certificate of completion: "being made" while due, then its link (docs/evidence.md). */
function Certificate({ certificate }: { certificate: TransactionDetail['certificate'] }) {
  if (certificate === null) return null;
  return (
    <Flex gap="2" align="center" wrap="wrap">
      <Badge color="green" highContrast>
        certificate
      </Badge>
      {certificate.status === 'made' ? (
        <Link href={certificate.downloadPath} download={certificate.name}>
          {certificate.name}
        </Link>
      ) : (
        <Text size="2" color="gray">
          The certificate of completion is being made.
        </Text>
      )}
    </Flex>
  );
}

/**
 * The transaction's files, signed copies and the investor's uploads, each with its (signed, expiring) link, and
 * its certificate of completion once complete.
 */
export function Files({
  files,
  certificate,
}: {
  files: TransactionFile[];
  certificate: TransactionDetail['certificate'];
}) {
  return (
    <HeadedSection id="files-heading" title="Files">
      <Certificate certificate={certificate} />
      {files.length === 0 ? (
        <Text size="2" color="gray">
          No files yet: the investor&apos;s uploads and the signed documents appear here.
        </Text>
      ) : (
        <Flex direction="column" gap="2" asChild>
          <ul className="plain-list">
            {files.map((file) => (
              <li key={`${file.kind} ${file.id}`}>
                <Flex gap="2" align="center" wrap="wrap">
                  <Badge color={FILE_KINDS[file.kind].color} highContrast>
                    {FILE_KINDS[file.kind].words}
                  </Badge>
                  <Link href={file.downloadPath} download={file.name}>
                    {file.name}
                  </Link>
                  <Text size="1" color="gray">
                    {file.of}
                    {file.byteSize === null ? '' : ` · ${formatBytes(file.byteSize)}`}
                  </Text>
                </Flex>
              </li>
            ))}
          </ul>
        </Flex>
      )}
    </HeadedSection>
  );
}
