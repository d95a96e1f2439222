import { Box, Button, DataList, Dialog, Flex } from '@radix-ui/themes';
import type { SuccessOf } from '../../../../src/http/contract.ts';
import type { ConsoleRoutes } from '../../../../src/transactions/console/contract.ts';
import type { ApiError } from '../../../shared/api-error.ts';
import { ErrorCallout } from '../../../shared/error-callout.tsx';

/** The invitation mail as the investor will get it: the server's preview. */
export type InvitationMail = SuccessOf<ConsoleRoutes['previewInvitation']>['mail'];

/**
 * The invitation as the investor will get it, in a dialog over the form: to whom, its subject, then its text as
 * the mail writes it (its lines kept). From there the person sends it, or goes back to the form to change it;
 * a refusal of the send that is not about a field of the form shows here.
 */
export function InvitationPreview({
  mail,
  sending,
  error,
  onSend,
  onClose,
}: {
  /** The mail shown; the dialog is closed while there is none. */
  mail: InvitationMail | undefined;
  sending: boolean;
  error: ApiError | undefined;
  onSend: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog.Root
      open={mail !== undefined}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
    >
      <Dialog.Content maxWidth="680px">
        <Flex direction="column" gap="4">
          <Dialog.Title mb="0">The invitation</Dialog.Title>
          <Dialog.Description size="2" color="gray">
            As the investor will get it when you send it. Their own link is made then, in place of “…”.
          </Dialog.Description>
          {mail === undefined ? null : (
            <>
              <DataList.Root size="2" orientation={{ initial: 'vertical', sm: 'horizontal' }}>
                <DataList.Item>
                  <DataList.Label minWidth="80px">To</DataList.Label>
                  <DataList.Value>{mail.to}</DataList.Value>
                </DataList.Item>
                <DataList.Item>
                  <DataList.Label minWidth="80px">Subject</DataList.Label>
                  <DataList.Value>{mail.subject}</DataList.Value>
                </DataList.Item>
              </DataList.Root>
              <Box className="start-mail-text">{mail.text}</Box>
            </>
          )}
          <ErrorCallout error={error} />
          <Flex gap="3" justify="end" wrap="wrap">
            <Dialog.Close>
              <Button type="button" variant="soft" color="gray">
                Back to the form
              </Button>
            </Dialog.Close>
            <Button type="button" loading={sending} onClick={onSend}>
              Send invitation
            </Button>
          </Flex>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}
