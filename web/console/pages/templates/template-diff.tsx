import { Card, Flex, Heading, Select, Skeleton, Text } from '@radix-ui/themes';
import { useId, useState } from 'react';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import { changeWords, type TemplateSummary } from './template-words.ts';

/** The changes from `from` to `to`, read from the server, in words: added, removed and changed, each in a list. */
function Changes({ templateKey, from, to }: { templateKey: string; from: number; to: number }) {
  const diff = useResource(consoleApi, 'GET /templates/:key/diff', {
    params: { key: templateKey },
    query: { from, to },
  });
  const shown = diff.data;
  if (diff.error !== undefined) return <ErrorCallout error={diff.error} />;
  if (shown === undefined) return <Skeleton height="80px" />;
  if (shown.changes.length === 0) {
    return (
      <Text size="2" color="gray">
        {from === to ? 'The same version on both sides.' : 'No change between these versions.'}
      </Text>
    );
  }
  const groups = [
    { kind: 'added', title: 'Added' },
    { kind: 'removed', title: 'Removed' },
    { kind: 'changed', title: 'Changed' },
  ] as const;
  return (
    <Flex direction="column" gap="3">
      <Text size="2" role="status">
        {shown.changes.length} {shown.changes.length === 1 ? 'change' : 'changes'} from v{from} to v{to}.
      </Text>
      {groups.map(({ kind, title }) => {
        const changes = shown.changes.filter((change) => change.kind === kind);
        if (changes.length === 0) return null;
        return (
          <Flex key={kind} direction="column" gap="1">
            <Heading as="h3" size="3">
              {title} ({changes.length})
            </Heading>
            <ul className="template-changes">
              {changes.map((change, index) => (
                <li key={index} className={`template-change-${kind}`}>
                  <Text size="2">{changeWords(change)}</Text>
                </li>
              ))}
            </ul>
          </Flex>
        );
      })}
    </Flex>
  );
}

/**
 * The changes between two versions of a template, chosen on the page (the latest and the one before it, unless
 * the page was opened with others): states, events, fields and processes added, removed and changed, in words.
 */
export function TemplateDiff({ template }: { template: TemplateSummary }) {
  const id = useId();
  const versions = template.versions.map((version) => version.version);
  const [latest = 1, previous = latest] = versions;
  const [from, setFrom] = useState(previous);
  const [to, setTo] = useState(latest);
  const choose = (label: string, value: number, set: (value: number) => void, name: string) => (
    <Flex direction="column" gap="1">
      <Text as="label" size="2" weight="medium" id={`${id}-${name}`}>
        {label}
      </Text>
      <Select.Root
        value={String(value)}
        onValueChange={(chosen) => {
          set(Number(chosen));
        }}
      >
        <Select.Trigger aria-labelledby={`${id}-${name}`} />
        <Select.Content>
          {versions.map((version) => (
            <Select.Item key={version} value={String(version)}>
              v{version}
            </Select.Item>
          ))}
        </Select.Content>
      </Select.Root>
    </Flex>
  );
  return (
    <Card size="2" asChild>
      <section aria-labelledby={`${id}-heading`}>
        <Flex direction="column" gap="3">
          <Heading as="h2" size="4" id={`${id}-heading`}>
            Changes between versions
          </Heading>
          {versions.length < 2 ? (
            <Text size="2" color="gray">
              There is one version: an import of a change adds the next, and its changes show here.
            </Text>
          ) : (
            <>
              <Flex gap="4" wrap="wrap">
                {choose('From', from, setFrom, 'from')}
                {choose('To', to, setTo, 'to')}
              </Flex>
              <Changes templateKey={template.key} from={from} to={to} />
            </>
          )}
        </Flex>
      </section>
    </Card>
  );
}
