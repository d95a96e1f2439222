// The inputs of item forms, made of Radix Themes components: text (and e-mail, date, number…), text area,
// select, radio buttons, one checkbox, a group of checkboxes. Each is named by its field's label and described by
// its hint and its error (see form-context.ts), and reports leaving it (rjsf's onBlur) so its problems then show.

import {
  enumOptionsIndexForValue,
  enumOptionsValueForIndex,
  getInputProps,
  optionId,
  schemaRequiresTrueValue,
  type BaseInputTemplateProps,
  type EnumValue,
  type WidgetProps,
} from '@rjsf/utils';
import {
  Checkbox,
  CheckboxGroup,
  Flex,
  RadioGroup,
  Select,
  Text,
  TextArea,
  TextField,
} from '@radix-ui/themes';
import type { FocusEvent } from 'react';
import { describedBy, showsError } from './form-context.ts';

/** The Select item that stands for "no answer" (a Radix Select item cannot have an empty value). */
const NO_ANSWER = 'none';

/** Whether a pattern takes digits only (an amount in cents, a code), for the phone's number keyboard. */
function digitsOnly(pattern: unknown): boolean {
  if (typeof pattern !== 'string') return false;
  try {
    const compiled = new RegExp(pattern, 'u');
    return compiled.test('1234567') && !compiled.test('12a4567') && !compiled.test('12.4567');
  } catch {
    return false;
  }
}

const invalid = (props: WidgetProps) => (showsError(props) ? true : undefined);

/** Calls `leave` when the focus leaves `event`'s element and everything inside it (a group of options). */
function leftGroup(event: FocusEvent<HTMLElement>, leave: () => void) {
  if (!(event.relatedTarget instanceof Node) || !event.currentTarget.contains(event.relatedTarget)) leave();
}

/**
 * What a group of options (radio buttons, checkboxes) takes: its name from the field's label, its hints, and
 * the report of leaving it (the focus leaving the group, not moving between its options).
 */
function groupProps(props: WidgetProps) {
  const { id, disabled, readonly, onBlur } = props;
  const value: unknown = props.value;
  return {
    id,
    size: '3' as const,
    disabled: disabled || readonly,
    'aria-labelledby': `${id}__label`,
    'aria-describedby': describedBy(props),
    'aria-invalid': invalid(props),
    onBlur: (event: FocusEvent<HTMLDivElement>) => {
      leftGroup(event, () => {
        onBlur(id, value);
      });
    },
  };
}

/** Whether the template disabled this option (`ui:enumDisabled`). */
const optionDisabled = (props: WidgetProps, option: { value: unknown }) =>
  Array.isArray(props.options.enumDisabled) && props.options.enumDisabled.includes(option.value as EnumValue);

/**
 * What a typed answer's input (one line or several) takes from rjsf: its name, hints, state, and the reports of
 * its changes (an emptied field is no answer), of leaving it and of entering it.
 */
function typedAnswerProps(props: WidgetProps) {
  const { id, htmlName, readonly, disabled, autofocus, onBlur, onFocus, onChange, options, schema } = props;
  return {
    id,
    name: htmlName ?? id,
    size: '3' as const,
    placeholder: props.placeholder || undefined,
    autoComplete: typeof options.autocomplete === 'string' ? options.autocomplete : undefined,
    readOnly: readonly,
    disabled,
    autoFocus: autofocus,
    required: props.required,
    maxLength: typeof schema.maxLength === 'number' ? schema.maxLength : undefined,
    'aria-invalid': invalid(props),
    'aria-describedby': describedBy(props),
    color: invalid(props) ? ('red' as const) : undefined,
    onChange: (event: { target: { value: string } }) => {
      onChange(event.target.value === '' ? options.emptyValue : event.target.value);
    },
    onBlur: (event: { target: { value: string } }) => {
      onBlur(id, event.target.value);
    },
    onFocus: (event: { target: { value: string } }) => {
      onFocus(id, event.target.value);
    },
  };
}

/** A one-line text input: text, e-mail, date, number, telephone or web address, by the schema and its hints. */
export function BaseInputTemplate(props: BaseInputTemplateProps) {
  const { options, schema } = props;
  const value: unknown = props.value;
  const inputProps = getInputProps(schema, props.type as string | undefined, options);
  const autocomplete = typeof options.autocomplete === 'string' ? options.autocomplete : undefined;
  const inputType = inputProps.type === 'text' && autocomplete?.startsWith('tel') ? 'tel' : inputProps.type;
  const numeric = inputType === 'number' || digitsOnly(schema.pattern);
  return (
    <TextField.Root
      {...typedAnswerProps(props)}
      type={inputType as 'text'}
      step={inputProps.step}
      min={inputProps.min}
      max={inputProps.max}
      value={typeof value === 'number' || typeof value === 'string' ? String(value) : ''}
      inputMode={numeric ? (inputType === 'number' ? 'decimal' : 'numeric') : undefined}
    />
  );
}

export function TextareaWidget(props: WidgetProps) {
  const value: unknown = props.value;
  return (
    <TextArea
      {...typedAnswerProps(props)}
      rows={typeof props.options.rows === 'number' ? props.options.rows : 4}
      value={typeof value === 'string' ? value : ''}
    />
  );
}

/** A list to choose one answer from; several answers (an array) are a group of checkboxes instead. */
export function SelectWidget(props: WidgetProps) {
  const { id, required, disabled, readonly, onChange, onBlur, options, multiple } = props;
  const value: unknown = props.value;
  const emptyValue: unknown = options.emptyValue;
  if (multiple) return <CheckboxesWidget {...props} />;
  const { enumOptions = [] } = options;
  const index = enumOptionsIndexForValue(value, enumOptions, false);
  return (
    <Select.Root
      size="3"
      value={typeof index === 'string' ? index : ''}
      required={required}
      disabled={disabled || readonly}
      onValueChange={(chosen) => {
        onChange(
          chosen === NO_ANSWER ? emptyValue : enumOptionsValueForIndex(chosen, enumOptions, emptyValue),
        );
      }}
      onOpenChange={(open) => {
        if (!open) onBlur(id, value);
      }}
    >
      <Select.Trigger
        id={id}
        className="select-trigger"
        placeholder={props.placeholder || 'Choose…'}
        aria-invalid={invalid(props)}
        aria-describedby={describedBy(props)}
        color={invalid(props) ? 'red' : undefined}
      />
      <Select.Content position="popper">
        {required ? null : <Select.Item value={NO_ANSWER}>No answer</Select.Item>}
        {enumOptions.map((option, i) => (
          <Select.Item key={String(i)} value={String(i)} disabled={optionDisabled(props, option)}>
            {option.label}
          </Select.Item>
        ))}
      </Select.Content>
    </Select.Root>
  );
}

/** Each option of a group as an `Item` of it (a radio button, a checkbox), with the id rjsf gives it. */
function optionItems(props: WidgetProps, Item: typeof RadioGroup.Item | typeof CheckboxGroup.Item) {
  return (props.options.enumOptions ?? []).map((option, i) => (
    <Item
      key={String(i)}
      id={optionId(props.id, i)}
      value={String(i)}
      disabled={optionDisabled(props, option)}
    >
      {option.label}
    </Item>
  ));
}

/** Radio buttons, one answer, named by the field's label (the group) and each option's. */
export function RadioWidget(props: WidgetProps) {
  const { required, onChange, options } = props;
  const value: unknown = props.value;
  const emptyValue: unknown = options.emptyValue;
  const { enumOptions = [] } = options;
  const index = enumOptionsIndexForValue(value, enumOptions, false);
  return (
    <RadioGroup.Root
      {...groupProps(props)}
      value={typeof index === 'string' ? index : ''}
      onValueChange={(chosen) => {
        onChange(enumOptionsValueForIndex(chosen, enumOptions, emptyValue));
      }}
      required={required}
    >
      <Flex direction={options.inline ? 'row' : 'column'} gap="2" wrap="wrap">
        {optionItems(props, RadioGroup.Item)}
      </Flex>
    </RadioGroup.Root>
  );
}

/** Checkboxes, any number of answers (an array of options). */
export function CheckboxesWidget(props: WidgetProps) {
  const { onChange, options } = props;
  const value: unknown = props.value;
  const { enumOptions = [] } = options;
  const selected = enumOptionsIndexForValue(
    Array.isArray(value) ? (value as unknown[]) : [],
    enumOptions,
    true,
  );
  return (
    <CheckboxGroup.Root
      {...groupProps(props)}
      value={Array.isArray(selected) ? selected : []}
      onValueChange={(chosen) => {
        const ordered = chosen.map(Number).sort((a, b) => a - b);
        onChange(ordered.map((i): unknown => enumOptionsValueForIndex(String(i), enumOptions)));
      }}
    >
      <Flex direction="column" gap="2">
        {optionItems(props, CheckboxGroup.Item)}
      </Flex>
    </CheckboxGroup.Root>
  );
}

/** One checkbox, named by the field's label beside it (a yes/no, or a statement to confirm). */
export function CheckboxWidget(props: WidgetProps) {
  const { id, disabled, readonly, onChange, onBlur, label, schema } = props;
  const value: unknown = props.value;
  // A consent (`const: true`): only a tick gives it, and an untick takes it back (no answer, never `false`, which
  // the server refuses); the server counts it as required whatever `required` says.
  const consent = schemaRequiresTrueValue(schema);
  const mustTick = consent;
  return (
    <Text as="label" size="3" className="checkbox-field">
      <Flex gap="2" align="start">
        <Checkbox
          id={id}
          size="3"
          checked={value === true}
          onCheckedChange={(checked) => {
            onChange(checked === true ? true : consent ? undefined : false);
          }}
          onBlur={() => {
            onBlur(id, value);
          }}
          disabled={disabled || readonly}
          required={mustTick}
          aria-describedby={describedBy(props)}
          aria-invalid={invalid(props)}
          className="checkbox-box"
        />
        <span>
          {label}
          {mustTick ? (
            <span className="required-mark" aria-hidden>
              {' '}
              *
            </span>
          ) : null}
        </span>
      </Flex>
    </Text>
  );
}
