import { Button, Card, Checkbox, Flex, Heading, RadioGroup, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { Field } from '../../../shared/form/field.tsx';
import { errorsOfFields, useApiAction } from '../../../shared/use-api-action.ts';
import { consoleApi } from '../../api.ts';
import { label } from '../../words.ts';

type Problems = Partial<Record<'signedName' | 'consent', string>>;

/**
 * The organization's countersignature, for operators, while the sender has a document to sign: the name typed
 * as the signature and an explicit consent. What was typed stays through live refreshes.
 */
export function SignPanel({
  transactionId,
  sender,
  documents,
  onSigned,
}: {
  transactionId: string;
  sender: string;
  /** The keys of the documents the sender signs now. */
  documents: string[];
  onSigned: () => void;
}) {
  const [documentKey, setDocumentKey] = useState(documents[0] ?? '');
  const [signedName, setSignedName] = useState('');
  const [consent, setConsent] = useState(false);
  const [problems, setProblems] = useState<Problems>({});
  const [done, setDone] = useState<string>();
  const sign = useApiAction();

  const submit = async () => {
    const found: Problems = {};
    if (signedName.trim() === '')
      found.signedName = 'Type your name as you sign, e.g. "Alex Morgan for the fund".';
    if (!consent)
      found.consent = 'Tick the box to agree to sign electronically: without it nothing is signed.';
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    await sign.run(
      async () => {
        const answer = await consoleApi('POST /transactions/:id/sign', {
          params: { id: transactionId },
          body: { documentKey, signedName: signedName.trim(), consent },
        });
        setDone(
          answer.state === 'COMPLETED'
            ? `Signed: ${label(answer.documentKey)} has every signature.`
            : `Signed: ${label(answer.documentKey)} waits for other signatures.`,
        );
        onSigned();
      },
      errorsOfFields(['signedName', 'consent'], setProblems),
    );
  };

  return (
    <section aria-labelledby="sign-heading">
      <Card size="2">
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
        >
          <Flex direction="column" gap="3">
            <Heading as="h2" size="4" id="sign-heading">
              Sign for {sender}
            </Heading>
            <Text size="2" color="gray">
              The organization countersigns here. Your typed name is the signature; the signed copy joins the
              files.
            </Text>
            {documents.length > 1 ? (
              <Flex direction="column" gap="1">
                <Text as="p" size="2" weight="medium" id="sign-document-label">
                  Document
                </Text>
                <RadioGroup.Root
                  aria-labelledby="sign-document-label"
                  value={documentKey}
                  onValueChange={setDocumentKey}
                >
                  {documents.map((key) => (
                    <RadioGroup.Item key={key} value={key}>
                      {label(key)}
                    </RadioGroup.Item>
                  ))}
                </RadioGroup.Root>
              </Flex>
            ) : (
              <Text size="2">Document: {label(documentKey)}</Text>
            )}
            <Field
              id="signed-name"
              label="Your name, as you sign"
              size="2"
              value={signedName}
              autoComplete="name"
              onChange={(event) => {
                setSignedName(event.target.value);
              }}
              error={problems.signedName}
            />
            <Flex direction="column" gap="1">
              <Text as="label" size="2">
                <Flex gap="2" align="start">
                  <Checkbox
                    checked={consent}
                    aria-invalid={problems.consent === undefined ? undefined : true}
                    aria-describedby={problems.consent === undefined ? undefined : 'sign-consent-error'}
                    onCheckedChange={(checked) => {
                      setConsent(checked === true);
                    }}
                  />
                  I agree to sign this document electronically for {sender}.
                </Flex>
              </Text>
              {problems.consent === undefined ? null : (
                <Text id="sign-consent-error" size="2" color="red" role="alert">
                  {problems.consent}
                </Text>
              )}
            </Flex>
            <ErrorCallout error={sign.error} />
            {done === undefined ? null : (
              <Text size="2" color="green" role="status">
                {done}
              </Text>
            )}
            <Flex>
              <Button type="submit" loading={sign.busy}>
                Sign for the organization
              </Button>
            </Flex>
          </Flex>
        </form>
      </Card>
    </section>
  );
}
