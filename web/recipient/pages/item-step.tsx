// One item to fill in: its form, generated from its JSON Schema and the template's hints, saved as a draft as
// the recipient goes; "Continue" checks the step, lists what is left to fix, and goes on to the next step.

import { ArrowRightIcon, CheckCircledIcon, ReloadIcon } from '@radix-ui/react-icons';
import Form, { type IChangeEvent } from '@rjsf/core';
import type { Experimental_DefaultFormStateBehavior, RJSFSchema } from '@rjsf/utils';
import { Button, Flex, Link as ThemeLink, Spinner, Text } from '@radix-ui/themes';
import { useCallback, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react';
import { useNavigate, useParams } from 'react-router';
import { Answers } from '../components/answers.tsx';
import { ChangesRequested } from '../components/changes-requested.tsx';
import { ProblemCallout } from '../components/problem-callout.tsx';
import { BackLink, LinkButton, StepHeading } from '../components/step-page.tsx';
import { changedPaths } from '../form/changes.ts';
import { startingData, type DraftPlace, type ItemData } from '../form/drafts.ts';
import type { PortalFormContext } from '../form/form-context.ts';
import { fields, templates, widgets } from '../form/theme.tsx';
import { humanize, itemUiSchema, labelAt } from '../form/ui-schema.ts';
import { useItemSaver, type SaveStatus } from '../form/use-item-saver.ts';
import { errorSchemaOf, fieldProblems, schemaValidator, type FieldProblem } from '../form/validator.ts';
import { formatDateTime, formatTime } from '../format.ts';
import { ApiError, uploadFile } from '../api.ts';
import { usePortal } from '../portal-state.tsx';
import { findStep, submitted, type Step } from '../steps.ts';
import { StepNotFound } from './step-not-found.tsx';

type ItemStep = Extract<Step, { kind: 'item' }>;

/**
 * No answer is filled in unless the template says so with `default:`: rjsf would otherwise take a `const` (a
 * consent, `const: true`) or the first of a `oneOf` as the answer, tick a required checkbox's `false`, and start
 * lists at their `minItems` with empty entries, each an answer the recipient never gave.
 */
const EXPLICIT_DEFAULTS_ONLY: Experimental_DefaultFormStateBehavior = {
  constAsDefaults: 'never',
  emptyObjectFields: 'skipEmptyDefaults',
  arrayMinItems: { populate: 'never' },
  requiredBooleanDefault: 'skip',
};

/** rjsf's ids: `answer_<field>`, `answer_<object>_<field>`. */
const ID_PREFIX = 'answer';
const idOf = (path: readonly (string | number)[]) => [ID_PREFIX, ...path.map(String)].join('_');

/** Moves the focus to the field with `id` (the first option of a group), and brings it into view. */
function focusField(id: string): void {
  const element = document.getElementById(id);
  const target =
    element instanceof HTMLInputElement ||
    element instanceof HTMLTextAreaElement ||
    element instanceof HTMLButtonElement
      ? element
      : (element?.querySelector<HTMLElement>('input:not([type=hidden]), button, textarea') ??
        document.querySelector<HTMLElement>(`[id^="${CSS.escape(id)}-"]`));
  target?.focus();
  target?.scrollIntoView({ block: 'center' });
}

export function ItemStepPage() {
  const found = findStep(usePortal().steps, 'item', useParams());
  if (found === undefined) return <StepNotFound />;
  const { step, index } = found;
  return submitted(step.process) ? (
    <SubmittedItem step={step} index={index} />
  ) : (
    <ItemForm key={`${step.process.key}/${step.item.vulcanKey}`} step={step} index={index} />
  );
}

/** A submitted revision's answers, to read. */
function SubmittedItem({ step, index }: { step: ItemStep; index: number }) {
  const { steps, href } = usePortal();
  const following = steps[index + 1];
  return (
    <Flex direction="column" gap="5">
      <StepHeading index={index} title={step.title} />
      <Text as="p" size="2" color="gray">
        You submitted these answers
        {step.process.revision.committedAt ? ` on ${formatDateTime(step.process.revision.committedAt)}` : ''}:
        they can no longer be changed here.
      </Text>
      <Answers item={step.item} data={step.item.data} compare={step.process.revision.number > 1} />
      <Flex gap="3" wrap="wrap">
        <BackLink index={index} />
        <LinkButton to={following ? href(following.path) : href()}>
          Next <ArrowRightIcon aria-hidden />
        </LinkButton>
      </Flex>
    </Flex>
  );
}

function ItemForm({ step, index }: { step: ItemStep; index: number }) {
  const { view, token, steps, href, itemSaved, handleStale } = usePortal();
  const navigate = useNavigate();
  const { process, item } = step;
  const place = useMemo<DraftPlace>(
    () => ({
      transactionId: view.transaction.id,
      processKey: process.key,
      revision: process.revision.number,
      vulcanKey: item.vulcanKey,
    }),
    [view.transaction.id, process.key, process.revision.number, item.vulcanKey],
  );
  // The form's shape is the item's when the step opened: saves change its data, never its schema.
  const [shape] = useState(() => ({
    schema: item.schema,
    ui: itemUiSchema(item),
    serverData: item.data,
  }));
  const [formData, setFormData] = useState<ItemData>(() => startingData(place, item.data));
  const [attempted, setAttempted] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const summary = useRef<HTMLDivElement>(null);

  const problems = useMemo(() => fieldProblems(shape.schema, formData, shape.ui), [shape, formData]);
  const extraErrors = useMemo(() => errorSchemaOf(problems), [problems]);
  const changed = useMemo(
    // An amount of money is one field on the form (money-field.tsx), marked as a whole.
    () => [...changedPaths(item.previousData, formData, Object.keys(item.money))].sort(),
    [item.previousData, formData, item.money],
  );

  const saver = useItemSaver({
    token,
    place,
    schema: shape.schema,
    serverData: shape.serverData,
    formData,
    onSaved: (saved) => {
      itemSaved(process.key, saved);
    },
    onRefused: (error) => {
      handleStale(error);
    },
  });

  const { serverHas } = saver;
  const upload = useCallback<PortalFormContext['upload']>(
    async (field, file, progress, signal) => {
      try {
        return await uploadFile({ token, vulcanKey: item.vulcanKey, field }, file, progress, signal);
      } catch (error) {
        // A link that stopped working, or answers submitted elsewhere, change the whole page.
        if (error instanceof ApiError) handleStale(error);
        throw error;
      }
    },
    [token, item.vulcanKey, handleStale],
  );
  const uploaded = useCallback<PortalFormContext['uploaded']>(
    (answer) => {
      serverHas(answer.item.data);
      itemSaved(process.key, answer.item, answer.file);
    },
    [serverHas, itemSaved, process.key],
  );
  const context = useMemo<PortalFormContext>(
    () => ({ showAll: attempted, changed, comments: item.comments, files: item.files, upload, uploaded }),
    [attempted, changed, item.comments, item.files, upload, uploaded],
  );

  const following = steps[index + 1];
  const goOn = async (data: ItemData) => {
    setAttempted(true);
    if (fieldProblems(shape.schema, data, shape.ui).length > 0) {
      // The list of what to fix takes the focus once it is shown.
      requestAnimationFrame(() => summary.current?.focus());
      return;
    }
    setLeaving(true);
    const saved = await saver.flush();
    setLeaving(false);
    if (saved) void navigate(following ? href(following.path) : href());
  };

  return (
    <Flex direction="column" gap="5">
      <ChangesRequested process={process} />
      <StepHeading index={index} title={step.title} />
      {typeof item.schema.description === 'string' ? (
        <Text as="p" size="3">
          {item.schema.description}
        </Text>
      ) : null}
      {attempted && problems.length > 0 ? <ProblemSummary problems={problems} summary={summary} /> : null}
      <Text as="p" size="2" color="gray">
        Answers marked <span aria-hidden>*</span>
        <span className="visually-hidden">with a star</span> are required.
      </Text>
      <Form<ItemData, RJSFSchema, PortalFormContext>
        schema={shape.schema}
        uiSchema={shape.ui}
        formData={formData}
        validator={schemaValidator}
        experimental_defaultFormStateBehavior={EXPLICIT_DEFAULTS_ONLY}
        // A field the schema asks only under a condition (a date of birth for people) leaves the answers when
        // the condition stops holding (the investor is a trust after all), so it is never saved unseen.
        omitExtraData
        liveOmit
        templates={templates}
        widgets={widgets}
        fields={fields}
        formContext={context}
        extraErrors={extraErrors}
        idPrefix={ID_PREFIX}
        // The page checks the answers itself, as they are typed (see above); rjsf's check at submit stays off.
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- still the switch for that in rjsf 6
        noValidate
        noHtml5Validate
        showErrorList={false}
        className="item-form"
        onChange={(event: IChangeEvent<ItemData>) => {
          setFormData(event.formData ?? {});
        }}
        onSubmit={(event: IChangeEvent<ItemData>) => void goOn(event.formData ?? {})}
      >
        <Flex direction="column" gap="3" mt="6">
          <Flex gap="3" wrap="wrap" align="center">
            <BackLink index={index} />
            <Button type="submit" size="3" loading={leaving}>
              Continue <ArrowRightIcon aria-hidden />
            </Button>
          </Flex>
          <SaveLine status={saver.status} schema={shape.schema} onRetry={() => void saver.flush()} />
        </Flex>
      </Form>
    </Flex>
  );
}

/** What is left to fix before going on: a list of links to the fields, which takes the focus. */
function ProblemSummary({
  problems,
  summary,
}: {
  problems: readonly FieldProblem[];
  summary: RefObject<HTMLDivElement | null>;
}) {
  return (
    <ProblemCallout
      color="red"
      title={
        problems.length === 1
          ? 'One answer needs your attention'
          : `${String(problems.length)} answers need your attention`
      }
      focusRef={summary}
    >
      {problems.map((problem) => {
        const id = idOf(problem.path);
        return (
          <li key={id}>
            <ThemeLink
              href={`#${id}`}
              size="2"
              color="red"
              highContrast
              onClick={(event) => {
                event.preventDefault();
                focusField(id);
              }}
            >
              {problem.label}: {problem.message}
            </ThemeLink>
          </li>
        );
      })}
    </ProblemCallout>
  );
}

/** Where saving stands: saving, saved (when), or not saved and why, with a way to try again. */
function SaveLine({ status, schema, onRetry }: { status: SaveStatus; schema: unknown; onRetry: () => void }) {
  let line: ReactNode = null;
  let problem: string | undefined;
  switch (status.kind) {
    case 'unchanged':
      break;
    case 'saving':
      line = (
        <>
          <Spinner size="1" /> Saving…
        </>
      );
      break;
    case 'saved':
      line = (
        <>
          <CheckCircledIcon aria-hidden /> Saved at {formatTime(status.at)}. You can stop and come back later.
        </>
      );
      break;
    case 'held': {
      const names = status.fields.map((field) => labelAt(schema, [field]) || humanize(field)).join(', ');
      const one = status.fields.length === 1;
      const rest = status.at ? ` Everything else was saved at ${formatTime(status.at)}.` : '';
      problem = `${names}: kept on this device for now, and saved once ${one ? 'it is' : 'they are'} complete.${rest}`;
      break;
    }
    case 'blocked':
      problem = 'Your answers are kept on this device for now, and saved once they are complete.';
      break;
    case 'failed': {
      const problems = Array.isArray(status.error.details.problems)
        ? (status.error.details.problems as unknown[]).filter((each) => typeof each === 'string')
        : [];
      const said =
        problems.length > 0
          ? `Portico refused some answers: ${problems.map((each) => serverProblem(each, schema)).join('; ')}.`
          : status.error.message;
      problem = `Not saved: ${said} Your answers are kept on this device.`;
      break;
    }
  }
  return (
    <>
      {line === null ? null : (
        <Text as="p" size="2" color="gray" className="save-line">
          {line}
        </Text>
      )}
      <div role="status" className={problem === undefined ? 'visually-hidden' : undefined}>
        {problem === undefined ? null : (
          <Flex gap="2" align="center" wrap="wrap">
            <Text size="2" color={status.kind === 'failed' ? 'red' : 'gray'} highContrast>
              {problem}
            </Text>
            {status.kind === 'failed' ? (
              <Button type="button" variant="soft" size="1" onClick={onRetry}>
                <ReloadIcon aria-hidden /> Try again
              </Button>
            ) : null}
          </Flex>
        )}
      </div>
    </>
  );
}

/** A problem the server gave as `path: message`, with the field's label for its path. */
function serverProblem(problem: string, schema: unknown): string {
  const at = problem.indexOf(': ');
  if (at < 0) return problem;
  const path = problem.slice(0, at).replace(/^\//, '').split(/[./]/).filter(Boolean);
  return path.length === 0 ? problem.slice(at + 2) : `${labelAt(schema, path)}: ${problem.slice(at + 2)}`;
}
