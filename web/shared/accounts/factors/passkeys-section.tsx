import { Button, Flex, Heading, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { ErrorCallout } from '../../error-callout.tsx';
import { Field } from '../../form/field.tsx';
import { PasswordField } from '../../form/person-fields.tsx';
import { Form } from '../../form/submit-form.tsx';
import { useFormFields } from '../../form/use-form-fields.ts';
import { errorsOfFields, useApiAction } from '../../use-api-action.ts';
import { useAccountActions, type FactorProof, type PasskeySummary } from '../session.tsx';
import { CodeField } from './code-field.tsx';
import { makePasskey, passkeysWork } from './passkey-ceremony.ts';

/** What the section is doing: listing, naming a new passkey, renaming or removing one. */
type Mode =
  { kind: 'list' } | { kind: 'add' } | { kind: 'rename'; id: string } | { kind: 'remove'; id: string };

const day = (iso: string) => new Date(iso).toLocaleDateString();

/**
 * The passkeys of the "Two-step sign-in" dialog: each with its name, when it was added and last used; "Add a
 * passkey" asks a name, then the device makes it (its fingerprint, face or PIN); rename one; remove one, given
 * the password or a code of the app (`hasApp`). `onChange` reads the list again.
 */
export function PasskeysSection({
  passkeys,
  hasApp,
  onChange,
}: {
  passkeys: PasskeySummary[];
  hasApp: boolean;
  onChange: () => Promise<void>;
}) {
  const account = useAccountActions();
  const [mode, setMode] = useState<Mode>({ kind: 'list' });
  const [byCode, setByCode] = useState(false);
  const form = useFormFields({ name: '', password: '', code: '' });
  const action = useApiAction();

  const back = () => {
    setMode({ kind: 'list' });
    setByCode(false);
    form.reset();
    action.clear();
  };

  const named = (): string | undefined => {
    const name = form.values.name.trim();
    return form.check({ name: name === '' ? 'Name the passkey, e.g. "Work laptop" or "Phone".' : undefined })
      ? name
      : undefined;
  };

  const add = async () => {
    const name = named();
    if (name === undefined || !account) return;
    await action.run(
      async () => {
        const options = await account.passkeyOptions();
        await account.addPasskey(name, await makePasskey(options));
        await onChange();
        back();
      },
      errorsOfFields(['name'], form.setProblems),
    );
  };

  const rename = async (id: string) => {
    const name = named();
    if (name === undefined || !account) return;
    await action.run(
      async () => {
        await account.renamePasskey(id, name);
        await onChange();
        back();
      },
      errorsOfFields(['name'], form.setProblems),
    );
  };

  const remove = async (id: string) => {
    const { password, code } = form.values;
    const found = byCode
      ? { code: code.trim() === '' ? 'Enter the code your app shows.' : undefined }
      : { password: password === '' ? 'Enter your password.' : undefined };
    if (!form.check(found) || !account) return;
    const proof: FactorProof = byCode ? { code: code.trim() } : { password };
    await action.run(
      async () => {
        await account.removePasskey(id, proof);
        await onChange();
        back();
      },
      errorsOfFields(['code', 'password'], form.setProblems),
    );
  };

  return (
    <Flex direction="column" gap="3" asChild>
      <section aria-labelledby="passkeys-heading">
        <Heading as="h3" size="3" id="passkeys-heading">
          Passkeys
        </Heading>
        <Text as="p" size="2" color="gray">
          A passkey signs you in with your device's lock (fingerprint, face or PIN), without typing your
          address, password or a code. After your password, it also works as the second step.
        </Text>
        <ErrorCallout error={action.error} />
        {passkeys.length === 0 ? (
          <Text as="p" size="2">
            You have no passkey yet.
          </Text>
        ) : (
          <Flex direction="column" gap="2" asChild>
            <ul aria-label="Your passkeys" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
              {passkeys.map((passkey) => (
                <li key={passkey.id}>
                  <Flex direction="column" gap="2" p="2" style={{ border: '1px solid var(--gray-a5)' }}>
                    <Flex justify="between" align="center" gap="2" wrap="wrap">
                      <Flex direction="column">
                        <Text weight="medium">{passkey.name}</Text>
                        <Text size="1" color="gray">
                          Added {day(passkey.createdAt)} · last used{' '}
                          {passkey.lastUsedAt === null ? 'never' : day(passkey.lastUsedAt)}
                        </Text>
                      </Flex>
                      {mode.kind === 'list' ? (
                        <Flex gap="2">
                          <Button
                            size="1"
                            variant="soft"
                            aria-label={`Rename ${passkey.name}`}
                            onClick={() => {
                              form.set('name', passkey.name);
                              setMode({ kind: 'rename', id: passkey.id });
                            }}
                          >
                            Rename
                          </Button>
                          <Button
                            size="1"
                            variant="soft"
                            color="red"
                            aria-label={`Remove ${passkey.name}`}
                            onClick={() => {
                              setMode({ kind: 'remove', id: passkey.id });
                            }}
                          >
                            Remove
                          </Button>
                        </Flex>
                      ) : null}
                    </Flex>
                    {mode.kind === 'rename' && mode.id === passkey.id ? (
                      <Form onSubmit={() => rename(passkey.id)}>
                        <Field id="passkey-rename" label="New name" autoFocus {...form.field('name')} />
                        <Flex gap="2" justify="end">
                          <Button type="button" variant="soft" color="gray" onClick={back}>
                            Cancel
                          </Button>
                          <Button type="submit" loading={action.busy}>
                            Save name
                          </Button>
                        </Flex>
                      </Form>
                    ) : null}
                    {mode.kind === 'remove' && mode.id === passkey.id ? (
                      <Form onSubmit={() => remove(passkey.id)}>
                        {byCode ? (
                          <CodeField
                            id="passkey-remove-code"
                            label="Code from your app"
                            {...form.field('code')}
                          />
                        ) : (
                          <PasswordField
                            id="passkey-remove-password"
                            label="Your password"
                            {...form.field('password')}
                          />
                        )}
                        <Flex gap="2" justify="between" wrap="wrap">
                          {hasApp ? (
                            <Button
                              type="button"
                              variant="ghost"
                              onClick={() => {
                                setByCode(!byCode);
                                form.reset();
                              }}
                            >
                              {byCode ? 'Use your password instead' : 'Use a code from the app'}
                            </Button>
                          ) : (
                            <span />
                          )}
                          <Flex gap="2">
                            <Button type="button" variant="soft" color="gray" onClick={back}>
                              Cancel
                            </Button>
                            <Button type="submit" color="red" loading={action.busy}>
                              Remove passkey
                            </Button>
                          </Flex>
                        </Flex>
                      </Form>
                    ) : null}
                  </Flex>
                </li>
              ))}
            </ul>
          </Flex>
        )}
        {mode.kind === 'add' ? (
          <Form onSubmit={add}>
            <Field
              id="passkey-name"
              label="Name of the passkey"
              hint="Say which device holds it, e.g. Work laptop or Phone."
              autoFocus
              {...form.field('name')}
            />
            <Flex gap="2" justify="end">
              <Button type="button" variant="soft" color="gray" onClick={back}>
                Cancel
              </Button>
              <Button type="submit" loading={action.busy}>
                Create passkey
              </Button>
            </Flex>
          </Form>
        ) : null}
        {mode.kind === 'list' ? (
          <Flex justify="start">
            {passkeysWork() ? (
              <Button
                variant="soft"
                onClick={() => {
                  setMode({ kind: 'add' });
                }}
              >
                Add a passkey
              </Button>
            ) : (
              <Text size="2" color="gray">
                This browser cannot use passkeys.
              </Text>
            )}
          </Flex>
        ) : null}
      </section>
    </Flex>
  );
}
