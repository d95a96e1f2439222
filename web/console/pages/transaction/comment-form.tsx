import { Button, Flex, RadioGroup, Text, TextArea } from '@radix-ui/themes';
import { useState } from 'react';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { consoleApi } from '../../api.ts';
import type { ProcessReview } from '../../types.ts';
import { label } from '../../words.ts';

type Item = ProcessReview['items'][number];
type Field = Item['fields'][number];

/** Who reads a comment: the investor, in their form beside the answer, or only the organization's team. */
type Audience = 'investor' | 'internal';

/**
 * A reviewer's comment on one field, in a small form under it: for the investor or an internal note, chosen
 * each time (nothing reaches the investor by default). What was typed stays through live refreshes.
 */
export function CommentForm({
  transactionId,
  item,
  field,
  onDone,
}: {
  transactionId: string;
  item: Item;
  field: Field;
  onDone: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [body, setBody] = useState('');
  const [audience, setAudience] = useState<Audience>();
  const [problem, setProblem] = useState<string>();
  const send = useApiAction();
  const id = `comment-${item.vulcanKey}-${field.key}`;
  const fieldName = `${field.label} (${item.title ?? label(item.vulcanKey)})`;
  if (!open) {
    return (
      <Button
        size="1"
        variant="ghost"
        aria-label={`Comment on ${fieldName}`}
        onClick={() => {
          setOpen(true);
        }}
      >
        Comment
      </Button>
    );
  }
  const hint =
    audience === 'investor'
      ? 'The investor will see this, beside this answer in their form, under your name.'
      : audience === 'internal'
        ? 'Only your team sees this: never the investor, a mail or the API.'
        : 'Choose who reads it first.';
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        if (audience === undefined) {
          setProblem('Choose who reads it: the investor, or only your team.');
          return;
        }
        if (body.trim() === '') {
          setProblem(
            audience === 'investor'
              ? 'Write the comment first: what should the investor change?'
              : 'Write the note first: what did you check, or what should your team know?',
          );
          return;
        }
        setProblem(undefined);
        void send.run(async () => {
          await consoleApi('POST /transactions/:id/comments', {
            params: { id: transactionId },
            body: {
              vulcanKey: item.vulcanKey,
              field: field.key,
              body: body.trim(),
              forInvestor: audience === 'investor',
            },
          });
          setBody('');
          setAudience(undefined);
          setOpen(false);
          onDone();
        });
      }}
    >
      <Flex direction="column" gap="2" mt="2">
        <Text as="p" size="2" weight="medium" id={`${id}-audience`}>
          Who reads your comment on {fieldName}?
        </Text>
        <RadioGroup.Root
          size="2"
          aria-labelledby={`${id}-audience`}
          value={audience ?? ''}
          onValueChange={(value) => {
            setAudience(value as Audience);
            setProblem(undefined);
          }}
        >
          <RadioGroup.Item value="investor">The investor</RadioGroup.Item>
          <RadioGroup.Item value="internal">Only my team (an internal note)</RadioGroup.Item>
        </RadioGroup.Root>
        <Text as="label" htmlFor={id} size="2" weight="medium">
          {audience === 'internal' ? 'Your note' : 'Your comment'} on {fieldName}
        </Text>
        <TextArea
          id={id}
          value={body}
          maxLength={10_000}
          aria-invalid={problem === undefined ? undefined : true}
          aria-describedby={problem === undefined ? `${id}-hint` : `${id}-hint ${id}-error`}
          onChange={(event) => {
            setBody(event.target.value);
          }}
        />
        <Text id={`${id}-hint`} size="1" color={audience === 'investor' ? 'blue' : 'gray'}>
          {hint}
        </Text>
        {problem === undefined ? null : (
          <Text id={`${id}-error`} size="2" color="red" role="alert">
            {problem}
          </Text>
        )}
        <ErrorCallout error={send.error} />
        <Flex gap="2">
          <Button size="1" type="submit" loading={send.busy}>
            {audience === 'investor'
              ? 'Send to the investor'
              : audience === 'internal'
                ? 'Add note'
                : 'Add comment'}
          </Button>
          <Button
            size="1"
            type="button"
            variant="soft"
            color="gray"
            onClick={() => {
              setOpen(false);
              setProblem(undefined);
            }}
          >
            Cancel
          </Button>
        </Flex>
      </Flex>
    </form>
  );
}
