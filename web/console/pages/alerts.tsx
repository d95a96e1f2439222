import { Box, Button, Card, Checkbox, Flex, Skeleton, Text } from '@radix-ui/themes';
import { useEffect, useState, type SubmitEvent } from 'react';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { Notice } from '../../shared/notice.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { useApiAction } from '../../shared/use-api-action.ts';
import { useResource } from '../../shared/use-resource.ts';
import { consoleApi } from '../api.ts';
import { useSignedIn } from '../session.tsx';
import type { AlertsAnswer } from '../types.ts';

type AlertKind = AlertsAnswer['alerts'][number]['kind'];

/**
 * "Mail alerts": the signed-in person picks which alerts they get by mail (every role, their own), as checkboxes
 * in the server's words, and saves them; the page says what was saved. None is picked until they pick some.
 */
export default function AlertsPage() {
  const { tenant } = useSignedIn();
  const alerts = useResource(consoleApi, 'GET /alerts');
  const saving = useApiAction();
  const [picked, setPicked] = useState<ReadonlySet<AlertKind>>();
  const [saved, setSaved] = useState<AlertsAnswer>();
  const shown = saved ?? alerts.data;

  // What the server says is picked, until the person changes it.
  useEffect(() => {
    if (alerts.data && picked === undefined) {
      setPicked(new Set(alerts.data.alerts.filter((alert) => alert.picked).map((alert) => alert.kind)));
    }
  }, [alerts.data, picked]);

  const toggle = (kind: AlertKind, on: boolean) => {
    setSaved(undefined);
    setPicked((current) => {
      const next = new Set(current);
      if (on) next.add(kind);
      else next.delete(kind);
      return next;
    });
  };

  const save = (event: SubmitEvent) => {
    event.preventDefault();
    if (!shown || !picked) return;
    const kinds = shown.alerts.map((alert) => alert.kind).filter((kind) => picked.has(kind));
    void saving.run(async () => {
      setSaved(await consoleApi('PUT /alerts', { body: { kinds } }));
    });
  };

  const savedCount = saved?.alerts.filter((alert) => alert.picked).length;
  return (
    <Flex direction="column" gap="4" maxWidth="640px">
      <Flex direction="column" gap="1">
        <PageHeading title="Mail alerts" documentTitle={`Mail alerts · ${tenant.name}`} />
        <Text size="2" color="gray">
          Pick what you want to hear about by mail. Everything that happened in {tenant.name} comes together
          in one message
          {shown ? `, at most one every ${String(shown.everyMinutes)} minutes` : ''}
          {shown ? `, to ${shown.email}` : ''}.
        </Text>
      </Flex>
      <ErrorCallout error={alerts.error} />
      {shown === undefined || picked === undefined ? (
        alerts.error === undefined ? (
          <Skeleton height="240px" />
        ) : null
      ) : (
        <form onSubmit={save} aria-label="Mail alerts">
          <Card size="2">
            <Flex direction="column" gap="4">
              <div role="group" aria-labelledby="alerts-choices">
                <Text as="p" weight="medium" id="alerts-choices">
                  Mail me when
                </Text>
                <Flex direction="column" gap="3" mt="3">
                  {shown.alerts.map((alert) => (
                    <Text as="label" size="2" key={alert.kind}>
                      <Flex gap="2" align="center" minHeight="24px">
                        <Checkbox
                          checked={picked.has(alert.kind)}
                          onCheckedChange={(checked) => {
                            toggle(alert.kind, checked === true);
                          }}
                        />
                        {alert.label}
                      </Flex>
                    </Text>
                  ))}
                </Flex>
              </div>
              <ErrorCallout error={saving.error} />
              {savedCount === undefined ? null : (
                <Notice tone="done" role="status">
                  {savedCount === 0
                    ? 'Saved: you get no mail alerts.'
                    : `Saved: you get ${savedCount === 1 ? 'this alert' : `these ${String(savedCount)} alerts`} by mail, at most once every ${String(shown.everyMinutes)} minutes.`}
                </Notice>
              )}
              <Box>
                <Button type="submit" loading={saving.busy}>
                  Save alerts
                </Button>
              </Box>
            </Flex>
          </Card>
        </form>
      )}
      <Text size="1" color="gray">
        Every alert mail has a link to stop them, which works without signing in.
      </Text>
    </Flex>
  );
}
