// A react-jsonschema-form theme of Radix Themes components: each field with its label (and a mark when it is
// required, or changed since the last submission), its hints, its error once it is shown, and its input; nested
// objects and lists as fieldsets with a legend.

import { ArrowDownIcon, ArrowUpIcon, CopyIcon, PlusIcon, TrashIcon } from '@radix-ui/react-icons';
import {
  getTemplate,
  getUiOptions,
  type ArrayFieldItemTemplateProps,
  type ArrayFieldTemplateProps,
  type DescriptionFieldProps,
  type FieldErrorProps,
  type FieldHelpProps,
  type FieldTemplateProps,
  type IconButtonProps,
  type ObjectFieldTemplateProps,
  type RegistryFieldsType,
  type RegistryWidgetsType,
  type TemplatesType,
  type TitleFieldProps,
} from '@rjsf/utils';
import { Badge, Box, Button, Callout, Card, Flex, IconButton, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';
import type { ReviewerComment } from '../types.ts';
import { portalContext, shows, showsError } from './form-context.ts';
import { CountryWidget } from './country-widget.tsx';
import { MoneyField } from './money-field.tsx';
import { UploadWidget } from './upload-widget.tsx';
import { pathKey } from './validator.ts';
import {
  BaseInputTemplate,
  CheckboxWidget,
  CheckboxesWidget,
  RadioWidget,
  SelectWidget,
  TextareaWidget,
} from './widgets.tsx';

function RequiredMark() {
  return (
    <span className="required-mark" aria-hidden>
      {' '}
      *
    </span>
  );
}

/** The "Changed" mark of an answer that differs from the one submitted last time. */
function ChangedBadge() {
  return (
    <Badge color="amber" variant="soft" highContrast>
      Changed<span className="visually-hidden"> since your last submission</span>
    </Badge>
  );
}

/**
 * The reviewer's comments on a field, beside it: what the organization asks of this answer. Read with the
 * field's label (a note, not an error), and as text whatever it holds.
 */
function ReviewerComments({ comments }: { comments: readonly ReviewerComment[] }) {
  if (comments.length === 0) return null;
  return (
    <Flex direction="column" gap="1" className="reviewer-comments">
      {comments.map((comment) => (
        <Callout.Root key={comment.id} color="amber" size="1" role="note">
          <Callout.Text>
            <Text weight="medium">{comment.author ?? 'The reviewer'} asks: </Text>
            {comment.body}
          </Callout.Text>
        </Callout.Root>
      ))}
    </Flex>
  );
}

/** How a field's input is named: a `<label for>` for one input, the group's own label for a group of options. */
function labelKind(props: FieldTemplateProps): 'label' | 'group' | 'widget' {
  const widget = getUiOptions(props.uiSchema).widget;
  if (props.schema.type === 'boolean' && widget !== 'radio' && widget !== 'select') return 'widget';
  if (widget === 'radio' || widget === 'checkboxes' || props.schema.type === 'array') return 'group';
  return 'label';
}

function FieldTemplate(props: FieldTemplateProps) {
  const { id, label, children, errors, help, description, hidden, required, registry } = props;
  // rjsf labels no object field; an amount of money is one, however its value is stored (money-field.tsx).
  const displayLabel = props.displayLabel || props.uiSchema?.['ui:field'] === 'money';
  if (hidden) return <div hidden>{children}</div>;
  const context = portalContext(registry);
  const kind = labelKind(props);
  const path = pathKey(props.fieldPathId.path);
  const changed = context.changed.includes(path);
  const comments = context.comments.filter((comment) => comment.field === path);
  const labelText = (
    <>
      {label}
      {required ? <RequiredMark /> : null}
    </>
  );
  return (
    <Flex direction="column" gap="1" className="form-field" data-invalid={showsError(props) || undefined}>
      {displayLabel && kind !== 'widget' ? (
        <Flex gap="2" align="center" wrap="wrap">
          {kind === 'label' ? (
            <Text as="label" htmlFor={id} id={`${id}__label`} size="2" weight="medium">
              {labelText}
            </Text>
          ) : (
            <Text as="div" id={`${id}__label`} size="2" weight="medium">
              {labelText}
            </Text>
          )}
          {changed ? <ChangedBadge /> : null}
        </Flex>
      ) : null}
      {displayLabel || kind === 'widget' ? description : null}
      <ReviewerComments comments={comments} />
      {help}
      {errors}
      {kind === 'widget' && changed ? (
        <Box>
          <ChangedBadge />
        </Box>
      ) : null}
      {children}
    </Flex>
  );
}

function DescriptionFieldTemplate({ id, description }: DescriptionFieldProps) {
  if (!description) return null;
  return (
    <Text as="div" id={id} size="2" color="gray">
      {description}
    </Text>
  );
}

function FieldHelpTemplate({ help, fieldPathId }: FieldHelpProps) {
  if (help === undefined || help === '') return null;
  return (
    <Text as="div" id={`${fieldPathId.$id}__help`} size="2" color="gray">
      {help}
    </Text>
  );
}

function FieldErrorTemplate({ errors, fieldPathId, registry }: FieldErrorProps) {
  const id = fieldPathId.$id;
  if (!errors || errors.length === 0 || !shows(registry)) return null;
  return (
    <Text as="div" id={`${id}__error`} size="2" color="red" weight="medium" className="field-error">
      <span className="visually-hidden">Error: </span>
      {errors.map((error, index) => (
        <span key={index}>{error} </span>
      ))}
    </Text>
  );
}

function TitleFieldTemplate({ id, title, required }: TitleFieldProps) {
  return (
    <Text as="div" id={id} size="3" weight="bold">
      {title}
      {required ? <RequiredMark /> : null}
    </Text>
  );
}

/** The item's fields one under the other; a nested object as a fieldset with its title as legend. */
function ObjectFieldTemplate(props: ObjectFieldTemplateProps) {
  const { title, description, properties, required, fieldPathId, registry, uiSchema, schema } = props;
  const fields = properties.filter((property) => !property.hidden).map((property) => property.content);
  if (fieldPathId.path.length === 0) {
    return (
      <Flex direction="column" gap="5">
        {fields}
      </Flex>
    );
  }
  const DescriptionField = getTemplate('DescriptionFieldTemplate', registry, getUiOptions(uiSchema));
  return (
    <fieldset className="form-fieldset" id={fieldPathId.$id}>
      <legend className="form-legend">
        <Text size="3" weight="bold">
          {title}
          {required ? <RequiredMark /> : null}
        </Text>
      </legend>
      <Flex direction="column" gap="4">
        {description ? (
          <DescriptionField
            id={`${fieldPathId.$id}__description`}
            description={description}
            schema={schema}
            registry={registry}
          />
        ) : null}
        {fields}
      </Flex>
    </fieldset>
  );
}

/** A list of answers (owners, addresses…): a fieldset of cards, each removable and movable, and "Add". */
function ArrayFieldTemplate(props: ArrayFieldTemplateProps) {
  const { title, items, canAdd, onAddClick, disabled, readonly, required, fieldPathId, schema, uiSchema } =
    props;
  const options = getUiOptions(uiSchema);
  const description = options.description ?? schema.description;
  return (
    <fieldset className="form-fieldset" id={fieldPathId.$id}>
      <legend className="form-legend">
        <Text size="3" weight="bold">
          {options.title ?? title}
          {required ? <RequiredMark /> : null}
        </Text>
      </legend>
      <Flex direction="column" gap="3">
        {description ? (
          <Text as="div" id={`${fieldPathId.$id}__description`} size="2" color="gray">
            {description}
          </Text>
        ) : null}
        {items}
        {canAdd ? (
          <div>
            <Button type="button" variant="soft" onClick={onAddClick} disabled={disabled || readonly}>
              <PlusIcon aria-hidden /> Add {items.length === 0 ? 'one' : 'another'}
            </Button>
          </div>
        ) : null}
      </Flex>
    </fieldset>
  );
}

function ArrayFieldItemTemplate(props: ArrayFieldItemTemplateProps) {
  const { children, buttonsProps, hasToolbar, index, totalItems } = props;
  const {
    hasMoveUp,
    hasMoveDown,
    hasRemove,
    hasCopy,
    onMoveUpItem,
    onMoveDownItem,
    onRemoveItem,
    onCopyItem,
  } = buttonsProps;
  const off = buttonsProps.disabled || buttonsProps.readonly;
  const which = `${String(index + 1)} of ${String(totalItems)}`;
  return (
    <Card size="2">
      <Flex direction="column" gap="3">
        {children}
        {hasToolbar ? (
          <Flex gap="2" justify="end">
            {hasMoveUp || hasMoveDown ? (
              <>
                <ItemButton label={`Move up (${which})`} disabled={off || !hasMoveUp} onClick={onMoveUpItem}>
                  <ArrowUpIcon />
                </ItemButton>
                <ItemButton
                  label={`Move down (${which})`}
                  disabled={off || !hasMoveDown}
                  onClick={onMoveDownItem}
                >
                  <ArrowDownIcon />
                </ItemButton>
              </>
            ) : null}
            {hasCopy ? (
              <ItemButton label={`Copy (${which})`} disabled={off} onClick={onCopyItem}>
                <CopyIcon />
              </ItemButton>
            ) : null}
            {hasRemove ? (
              <ItemButton label={`Remove (${which})`} disabled={off} onClick={onRemoveItem} color="red">
                <TrashIcon />
              </ItemButton>
            ) : null}
          </Flex>
        ) : null}
      </Flex>
    </Card>
  );
}

function ItemButton({
  label,
  disabled,
  onClick,
  color,
  children,
}: {
  label: string;
  disabled: boolean | undefined;
  onClick: (event?: unknown) => void;
  color?: 'red';
  children: ReactNode;
}) {
  return (
    <IconButton
      type="button"
      variant="soft"
      color={color ?? 'gray'}
      highContrast={color === 'red'}
      aria-label={label}
      disabled={disabled}
      onClick={onClick}
    >
      {children}
    </IconButton>
  );
}

/** rjsf's button templates, for a schema that uses them outside the templates above. */
function iconButton(label: string, icon: ReactNode) {
  return function ThemeIconButton({ onClick, disabled }: IconButtonProps) {
    return (
      <IconButton
        type="button"
        variant="soft"
        color="gray"
        aria-label={label}
        disabled={disabled}
        onClick={onClick}
      >
        {icon}
      </IconButton>
    );
  };
}

export const templates: Partial<Omit<TemplatesType, 'ButtonTemplates'>> & {
  ButtonTemplates: Partial<TemplatesType['ButtonTemplates']>;
} = {
  FieldTemplate,
  ObjectFieldTemplate,
  ArrayFieldTemplate,
  ArrayFieldItemTemplate,
  DescriptionFieldTemplate,
  FieldHelpTemplate,
  FieldErrorTemplate,
  TitleFieldTemplate,
  BaseInputTemplate,
  ErrorListTemplate: () => null,
  ButtonTemplates: {
    SubmitButton: () => null,
    AddButton: iconButton('Add', <PlusIcon />),
    RemoveButton: iconButton('Remove', <TrashIcon />),
    MoveUpButton: iconButton('Move up', <ArrowUpIcon />),
    MoveDownButton: iconButton('Move down', <ArrowDownIcon />),
    CopyButton: iconButton('Copy', <CopyIcon />),
  },
};

/** Fields drawn as one control whatever their schema: an amount of money (`ui:field: money`). */
export const fields: RegistryFieldsType = { money: MoneyField };

export const widgets: RegistryWidgetsType = {
  TextareaWidget,
  textarea: TextareaWidget,
  SelectWidget,
  select: SelectWidget,
  RadioWidget,
  radio: RadioWidget,
  CheckboxWidget,
  checkbox: CheckboxWidget,
  CheckboxesWidget,
  checkboxes: CheckboxesWidget,
  country: CountryWidget,
  upload: UploadWidget,
};
