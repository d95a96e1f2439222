import { Button, Code, Dialog, Flex, Heading, Text } from '@radix-ui/themes';
import { useEffect, useState } from 'react';
import { ErrorCallout } from '../../error-callout.tsx';
import { PasswordField } from '../../form/person-fields.tsx';
import { Form } from '../../form/submit-form.tsx';
import { useFormFields } from '../../form/use-form-fields.ts';
import { errorsOfFields, useApiAction } from '../../use-api-action.ts';
import { useAccountActions, type FactorProof, type PasskeySummary } from '../session.tsx';
import { CodeField } from './code-field.tsx';
import { PasskeysSection } from './passkeys-section.tsx';
import { RecoveryCodesList } from './recovery-codes-list.tsx';

type Step =
  | { kind: 'loading' }
  | { kind: 'none' }
  | { kind: 'scan'; secret: string; qrSvg: string }
  | { kind: 'codes'; codes: string[] }
  | { kind: 'added'; addedAt: string; left: number };

/**
 * "Two-step sign-in", opened from the person's menu of a surface's shell: adds an authenticator app (its QR code
 * and its secret as text, then a code of it to confirm, then the ten recovery codes shown once), or, once added,
 * makes new recovery codes or removes the app, each given a code of the app or the password; and the person's
 * passkeys ({@link PasskeysSection}).
 */
export function AuthenticatorDialog({ open, setOpen }: { open: boolean; setOpen: (open: boolean) => void }) {
  const account = useAccountActions();
  const [step, setStep] = useState<Step>({ kind: 'loading' });
  const [passkeys, setPasskeys] = useState<PasskeySummary[]>();
  const [byPassword, setByPassword] = useState(false);
  const form = useFormFields({ code: '', password: '' });
  const action = useApiAction();

  const load = async () => {
    if (!account) return;
    const factors = await account.factors();
    setPasskeys(factors.passkeys);
    setStep(
      factors.authenticatorAddedAt === null
        ? { kind: 'none' }
        : { kind: 'added', addedAt: factors.authenticatorAddedAt, left: factors.recoveryCodesLeft },
    );
  };

  useEffect(() => {
    if (open) void action.run(load);
    // Asked again each time it opens.
  }, [open]);

  const close = (next: boolean) => {
    setOpen(next);
    if (!next) {
      form.reset();
      action.clear();
      setByPassword(false);
      setStep({ kind: 'loading' });
      setPasskeys(undefined);
    }
  };

  const begin = () =>
    action.run(async () => {
      if (!account) return;
      const { secret, qrSvg } = await account.beginAuthenticator();
      setStep({ kind: 'scan', secret, qrSvg });
    });

  const confirm = async () => {
    const code = form.values.code.trim();
    if (!form.check({ code: code === '' ? 'Enter the code your app shows.' : undefined }) || !account) return;
    await action.run(
      async () => {
        const { recoveryCodes } = await account.confirmAuthenticator(code);
        form.reset();
        setStep({ kind: 'codes', codes: recoveryCodes });
      },
      errorsOfFields(['code'], form.setProblems),
    );
  };

  /** The proof typed, or undefined (and the field's problem shown) when it is empty. */
  const proof = (): FactorProof | undefined => {
    const { code, password } = form.values;
    if (byPassword) {
      return form.check({ password: password === '' ? 'Enter your password.' : undefined })
        ? { password }
        : undefined;
    }
    return form.check({ code: code.trim() === '' ? 'Enter the code your app shows.' : undefined })
      ? { code: code.trim() }
      : undefined;
  };

  const remake = async () => {
    const given = proof();
    if (!given || !account) return;
    await action.run(
      async () => {
        const { recoveryCodes } = await account.remakeRecoveryCodes(given);
        form.reset();
        setStep({ kind: 'codes', codes: recoveryCodes });
      },
      errorsOfFields(['code', 'password'], form.setProblems),
    );
  };

  const remove = async () => {
    const given = proof();
    if (!given || !account) return;
    await action.run(
      async () => {
        await account.removeAuthenticator(given);
        form.reset();
        setStep({ kind: 'none' });
      },
      errorsOfFields(['code', 'password'], form.setProblems),
    );
  };

  return (
    <Dialog.Root open={open} onOpenChange={close}>
      <Dialog.Content maxWidth="520px">
        <Flex direction="column" gap="3">
          <Dialog.Title mb="0">Two-step sign-in</Dialog.Title>
          <Dialog.Description size="2" color="gray">
            With an authenticator app, signing in asks for a code from your phone after your password. With a
            passkey, your device's lock signs you in.
          </Dialog.Description>
          <Heading as="h3" size="3">
            Authenticator app
          </Heading>
          <ErrorCallout error={action.error} />
          {step.kind === 'none' ? (
            <Flex justify="start">
              <Button onClick={() => void begin()} loading={action.busy}>
                Add an authenticator app
              </Button>
            </Flex>
          ) : null}
          {step.kind === 'scan' ? (
            <Form onSubmit={confirm}>
              <Text as="p" size="2">
                Scan this QR code with your authenticator app, or type the secret below in it.
              </Text>
              <img
                src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(step.qrSvg)}`}
                alt="QR code of your authenticator app's secret (the same secret is written below)"
                width={200}
                height={200}
              />
              <Text as="p" size="2">
                Secret: <Code size="3">{step.secret}</Code>
              </Text>
              <CodeField id="confirm-code" label="Code from your app" {...form.field('code')} />
              <Flex justify="end">
                <Button type="submit" loading={action.busy}>
                  Confirm
                </Button>
              </Flex>
            </Form>
          ) : null}
          {step.kind === 'codes' ? <RecoveryCodesList codes={step.codes} /> : null}
          {step.kind === 'added' ? (
            <Form onSubmit={remake}>
              <Text as="p" size="2" role="status">
                Your authenticator app was added on {new Date(step.addedAt).toLocaleDateString()};{' '}
                {String(step.left)} recovery {step.left === 1 ? 'code is' : 'codes are'} left.
              </Text>
              {byPassword ? (
                <PasswordField id="factor-password" label="Your password" {...form.field('password')} />
              ) : (
                <CodeField id="factor-code" label="Code from your app" {...form.field('code')} />
              )}
              <Flex gap="3" wrap="wrap" justify="between">
                <Button
                  type="button"
                  variant="ghost"
                  onClick={() => {
                    setByPassword(!byPassword);
                    form.reset();
                  }}
                >
                  {byPassword ? 'Use a code from the app' : 'Use your password instead'}
                </Button>
                <Flex gap="3">
                  <Button type="submit" variant="soft" loading={action.busy}>
                    Make new recovery codes
                  </Button>
                  <Button type="button" color="red" variant="soft" onClick={() => void remove()}>
                    Remove the app
                  </Button>
                </Flex>
              </Flex>
            </Form>
          ) : null}
          {passkeys !== undefined && step.kind !== 'codes' && step.kind !== 'scan' ? (
            <PasskeysSection
              passkeys={passkeys}
              hasApp={step.kind === 'added'}
              onChange={async () => {
                setPasskeys((await account?.factors())?.passkeys);
              }}
            />
          ) : null}
          <Flex justify="end">
            <Dialog.Close>
              <Button variant="soft" color="gray">
                {step.kind === 'codes' ? 'I have kept them' : 'Close'}
              </Button>
            </Dialog.Close>
          </Flex>
        </Flex>
      </Dialog.Content>
    </Dialog.Root>
  );
}
