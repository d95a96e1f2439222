import { Button, Checkbox, Flex, Select, Text, TextArea } from '@radix-ui/themes';
import { useState } from 'react';
import type { SsoSettingsAnswer, SsoSettingsBody } from '../../../../src/http/signed-in/sso-contract.ts';
import { CopyButton } from '../../copy-button.tsx';
import { ErrorCallout } from '../../error-callout.tsx';
import { Field } from '../../form/field.tsx';
import { Form } from '../../form/submit-form.tsx';
import { useFormFields } from '../../form/use-form-fields.ts';
import { HeadedSection } from '../../layout/headed-section.tsx';
import { Notice } from '../../notice.tsx';
import type { Resource } from '../../use-resource.ts';
import { useApiAction } from '../../use-api-action.ts';
import type { RoleTexts } from '../roles.tsx';

/** The e-mail domains typed, one per line or separated by commas or spaces. */
const domainsOf = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((domain) => domain.trim())
    .filter((domain) => domain !== '');

/**
 * An admin's "Single sign-on" section, the same on both surfaces: the callback URL to register with the identity
 * provider (with Copy), then the connection's issuer, client id, secret (written, never shown: the page says
 * whether one is set), the e-mail domains it covers, whether new people get an account (and as which role) and
 * whether it is the only way in ("SSO only"; admins keep their password). Saving checks the issuer first.
 */
export function SsoSettings<Role extends string>({
  settings,
  save,
  remove,
  roles,
  people,
}: {
  settings: Resource<SsoSettingsAnswer>;
  save: (body: SsoSettingsBody) => Promise<SsoSettingsAnswer>;
  remove: () => Promise<void>;
  /** The roles a new account may get (admin is not offered). */
  roles: RoleTexts<Role>;
  /** Who signs in, in the surface's words, e.g. "people of your organization". */
  people: string;
}) {
  const connection = settings.data?.connection ?? null;
  const callbackUrl = settings.data?.callbackUrl ?? '';
  const form = useFormFields<'issuer' | 'clientId' | 'clientSecret' | 'domains'>({
    issuer: '',
    clientId: '',
    clientSecret: '',
    domains: '',
  });
  const newRoles = (Object.keys(roles) as Role[]).filter((role) => role !== 'admin');
  const [allowNewAccounts, setAllowNewAccounts] = useState(false);
  const [defaultRole, setDefaultRole] = useState<string>(newRoles[0] ?? '');
  const [ssoOnly, setSsoOnly] = useState(false);
  const [done, setDone] = useState<string>();
  const action = useApiAction();
  // The form starts from the connection as saved, and again after each save (state adjusted while rendering,
  // as React's docs advise for state that follows a prop).
  const [shown, setShown] = useState<string>();
  if (connection && connection.updatedAt !== shown) {
    setShown(connection.updatedAt);
    form.set('issuer', connection.issuer);
    form.set('clientId', connection.clientId);
    form.set('domains', connection.domains.join('\n'));
    form.set('clientSecret', '');
    setAllowNewAccounts(connection.allowNewAccounts);
    setDefaultRole(connection.defaultRole);
    setSsoOnly(connection.ssoOnly);
  }

  const submit = async () => {
    const { issuer, clientId, clientSecret, domains } = form.values;
    const found = {
      issuer: issuer.trim() === '' ? 'Enter the issuer URL of your identity provider.' : undefined,
      clientId: clientId.trim() === '' ? 'Enter the client id your identity provider gave.' : undefined,
      domains:
        domainsOf(domains).length === 0 ? 'Enter at least one e-mail domain, e.g. example.com.' : undefined,
    };
    if (!form.check(found)) return;
    setDone(undefined);
    await action.run(
      async () => {
        await save({
          issuer: issuer.trim(),
          clientId: clientId.trim(),
          ...(clientSecret === '' ? {} : { clientSecret }),
          domains: domainsOf(domains),
          allowNewAccounts,
          defaultRole,
          ssoOnly,
        });
        settings.reload();
        setDone('Single sign-on is saved: people of these domains can sign in with SSO.');
      },
      (error) => {
        const field = error.field;
        if (field !== 'issuer' && field !== 'clientId' && field !== 'clientSecret' && field !== 'domains') {
          return false;
        }
        form.check({ [field]: error.message });
        return true;
      },
    );
  };

  return (
    <HeadedSection id="sso-heading" title="Single sign-on" size="3">
      <Flex direction="column" gap="4" maxWidth="40rem">
        <Text as="p" size="2" color="gray">
          Let {people} sign in through your identity provider (OpenID Connect: Okta, Microsoft Entra ID,
          Google Workspace, Keycloak…). Register Portico there as a web application with this callback URL:
        </Text>
        <Flex gap="2" align="end">
          <div style={{ flexGrow: 1 }}>
            <Field id="sso-callback-url" label="Callback URL" value={callbackUrl} readOnly />
          </div>
          <CopyButton text={callbackUrl} label="Copy" fallbackInputId="sso-callback-url" />
        </Flex>
        {done === undefined ? null : (
          <Notice tone="done" highContrast role="status">
            {done}
          </Notice>
        )}
        <ErrorCallout error={settings.error ?? action.error} />
        <Form onSubmit={submit}>
          <Field
            id="sso-issuer"
            label="Issuer URL"
            placeholder="https://login.example.com"
            inputMode="url"
            hint="Portico reads its discovery document, and checks it answers before saving."
            {...form.field('issuer')}
          />
          <Field id="sso-client-id" label="Client id" autoComplete="off" {...form.field('clientId')} />
          <Field
            id="sso-client-secret"
            label="Client secret"
            type="password"
            autoComplete="new-password"
            hint={
              connection?.clientSecretSet
                ? 'A secret is set; it is never shown. Leave this empty to keep it.'
                : 'Kept encrypted, and never shown again.'
            }
            {...form.field('clientSecret')}
          />
          <Flex direction="column" gap="1">
            <Text as="label" htmlFor="sso-domains" size="2" weight="medium">
              E-mail domains
            </Text>
            <TextArea
              id="sso-domains"
              rows={2}
              placeholder="example.com"
              aria-describedby="sso-domains-hint"
              aria-invalid={form.problems.domains === undefined ? undefined : true}
              value={form.values.domains}
              onChange={(event) => {
                form.set('domains', event.target.value);
              }}
            />
            <Text id="sso-domains-hint" size="1" color="gray">
              One per line. People whose address ends in one of them sign in through this provider.
            </Text>
            {form.problems.domains === undefined ? null : (
              <Text size="2" color="red" role="alert">
                {form.problems.domains}
              </Text>
            )}
          </Flex>
          <Text as="label" size="2">
            <Flex gap="2" align="start">
              <Checkbox
                checked={allowNewAccounts}
                onCheckedChange={(checked) => {
                  setAllowNewAccounts(checked === true);
                }}
              />
              Make an account for a person of these domains at their first sign-in
            </Flex>
          </Text>
          <Flex direction="column" gap="1">
            <Text as="label" id="sso-role-label" size="2" weight="medium">
              Role of a new account
            </Text>
            <Select.Root value={defaultRole} onValueChange={setDefaultRole} disabled={!allowNewAccounts}>
              <Select.Trigger aria-labelledby="sso-role-label" />
              <Select.Content>
                {newRoles.map((role) => (
                  <Select.Item key={role} value={role}>
                    {roles[role].label}
                  </Select.Item>
                ))}
              </Select.Content>
            </Select.Root>
          </Flex>
          <Text as="label" size="2">
            <Flex gap="2" align="start">
              <Checkbox
                checked={ssoOnly}
                onCheckedChange={(checked) => {
                  setSsoOnly(checked === true);
                }}
              />
              SSO only: people of these domains cannot sign in with a password (admins still can, in case the
              provider is down)
            </Flex>
          </Text>
          <Flex gap="3" wrap="wrap">
            <Button type="submit" size="3" loading={action.busy}>
              {connection ? 'Save single sign-on' : 'Connect'}
            </Button>
            {connection ? (
              <Button
                type="button"
                size="3"
                color="red"
                variant="soft"
                disabled={action.busy}
                onClick={() => {
                  void action.run(async () => {
                    await remove();
                    form.reset();
                    setDone('Single sign-on is removed: its people sign in with their password.');
                    settings.reload();
                  });
                }}
              >
                Remove
              </Button>
            ) : null}
          </Flex>
        </Form>
      </Flex>
    </HeadedSection>
  );
}
