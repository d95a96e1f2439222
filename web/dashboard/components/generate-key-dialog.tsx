import { Button, Code, Dialog, Flex, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { dashboardApi } from '../api.ts';
import { Field } from '../../shared/form/field.tsx';
import { useFormFields } from '../../shared/form/use-form-fields.ts';
import { DialogForm, FormDialog } from '../../shared/list/form-dialog.tsx';
import { Notice } from '../../shared/notice.tsx';
import { SecretField } from '../../shared/secret-field.tsx';
import { errorsOfFields, useApiAction } from '../../shared/use-api-action.ts';
import type { ApiKey } from '../types.ts';

/** The longest key name (KEY_NAME_MAX in src/portfolio/instances.ts). */
const NAME_MAX = 100;

/** "Generate key": a name, then the key, once, with a copy button and a warning to keep it safe. */
export function GenerateKeyDialog({
  slug,
  onGenerated,
}: {
  slug: string;
  onGenerated: (key: ApiKey) => void;
}) {
  const [open, setOpen] = useState(false);
  const form = useFormFields({ name: '' });
  const action = useApiAction();
  const [generated, setGenerated] = useState<{ key: ApiKey; secret: string }>();

  const reset = () => {
    form.reset();
    action.clear();
    setGenerated(undefined);
  };

  const submit = async () => {
    const trimmed = form.values.name.trim();
    const problem =
      trimmed === ''
        ? 'Enter a name, so that you can tell the key from others later.'
        : trimmed.length > NAME_MAX
          ? `A key name has at most ${String(NAME_MAX)} characters; this one has ${String(trimmed.length)}.`
          : undefined;
    if (!form.check({ name: problem })) return;
    await action.run(
      async () => {
        const answer = await dashboardApi('POST /instances/:slug/keys', {
          params: { slug },
          body: { name: trimmed },
        });
        setGenerated(answer);
        onGenerated(answer.key);
      },
      errorsOfFields(['name'], form.setProblems),
    );
  };

  return (
    <FormDialog trigger="Generate key" open={open} setOpen={setOpen} onClose={reset}>
      {generated === undefined ? (
        <DialogForm
          title="Generate an API key"
          description="The key can read everything in this instance's portfolio through the Portfolio API."
          action={action}
          onSubmit={submit}
          submit="Generate key"
        >
          <Field
            id="key-name"
            label="Name"
            hint={`What uses the key, e.g. "warehouse sync". 1 to ${String(NAME_MAX)} characters.`}
            {...form.field('name')}
            autoComplete="off"
            required
          />
        </DialogForm>
      ) : (
        <Flex direction="column" gap="4">
          <Dialog.Title mb="0">Copy your new key</Dialog.Title>
          <Dialog.Description size="2">
            <strong>{generated.key.name}</strong> is ready and works at once.
          </Dialog.Description>
          <Notice tone="warning" highContrast>
            This is the only time the key is shown. Store it in a secret manager now: Portico keeps only a
            hash of it and cannot show it again. If you lose it, revoke it and generate another.
          </Notice>
          <SecretField id="new-key" label="Your API key" secret={generated.secret} />
          <Text as="p" size="2" color="gray">
            Try it, with the key in <Code>PORTFOLIO_KEY</Code>:{' '}
            <Code className="break-all">
              curl -H &quot;Authorization: $PORTFOLIO_KEY&quot; {window.location.origin}
              /v1/external/companies
            </Code>
          </Text>
          <Flex justify="end">
            <Dialog.Close>
              <Button type="button">I have stored the key</Button>
            </Dialog.Close>
          </Flex>
        </Flex>
      )}
    </FormDialog>
  );
}
