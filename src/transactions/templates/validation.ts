// Kept as one file: the checks of a template, from the YAML it is read from to its workflow, so that every
// problem an operator can make is found, and located, by one pass in one place.
import { isDeepStrictEqual } from 'node:util';
import { LineCounter, parseDocument } from 'yaml';
import { formatPath, lineOf, structureProblems, type PathSegment } from '../../validation/problems.ts';
import { TemplateSchema, type ItemDefinition, type TemplateDefinition, type UiWidget } from './schema.ts';
import {
  effectiveWorkflow,
  isVoidEvent,
  ownFinalStates,
  reachableStates,
  statesThatCanFinish,
} from '../workflow.ts';
import { consentFields, itemSchemaValidator } from './item-data.ts';
import { onFirstUse } from '../../validation/json-schema.ts';
import { moneyFieldProblems, moneySchema } from './money-fields.ts';
import { declaredProperties } from './schema-properties.ts';
import { maxLengthProblems } from './answer-bounds.ts';
import { agreementProblems, checkAgreementFiles, type AgreementFile } from '../documents/agreement-check.ts';
import { documentWorkers, type DocumentWorkers } from '../documents/document-workers.ts';

/** One mistake in a template file: where it is and what is wrong. */
import type { TemplateCheck, TemplateProblem } from './template-check.ts';

export type { TemplateCheck, TemplateProblem };

const validateStructure = onFirstUse(() => itemSchemaValidator().compile<TemplateDefinition>(TemplateSchema));

interface PropertySchema {
  type?: unknown;
  enum?: unknown;
  oneOf?: unknown;
  items?: PropertySchema;
  properties?: Record<string, PropertySchema>;
}

/**
 * The schema of a property of an item by its path (`address.city`), when the item's schema declares it: a
 * top-level one may be declared in a conditional part (`then`, `dependencies`…), see schema-properties.ts.
 */
function propertyAt(schema: PropertySchema, path: string): PropertySchema | undefined {
  let current: PropertySchema | undefined = schema;
  for (const [index, name] of path.split('.').entries()) {
    const properties = (index === 0 ? declaredProperties(current) : current?.properties) as
      Record<string, PropertySchema> | undefined;
    current = properties && Object.hasOwn(properties, name) ? properties[name] : undefined;
  }
  return current;
}

/** Whether a property offers a choice of values (an enum, or `oneOf` of `const`s). */
function hasChoices(property: PropertySchema | undefined): boolean {
  return Array.isArray(property?.enum) || Array.isArray(property?.oneOf);
}

/** What each widget needs of its property. */
const WIDGET_FITS: Record<UiWidget, { fits: (property: PropertySchema) => boolean; needs: string }> = {
  radio: { fits: hasChoices, needs: 'a property with choices (enum or oneOf)' },
  select: { fits: hasChoices, needs: 'a property with choices (enum or oneOf)' },
  textarea: { fits: (property) => property.type === 'string', needs: 'a string property' },
  checkbox: { fits: (property) => property.type === 'boolean', needs: 'a boolean property' },
  checkboxes: {
    fits: (property) => property.type === 'array' && hasChoices(property.items),
    needs: 'an array property whose items have choices',
  },
  country: {
    fits: (property) => property.type === 'string',
    needs: 'a string property (an ISO 3166-1 code)',
  },
};

/** The mistakes of an item's `uploads` and `ui`: fields the schema does not have, widgets that do not fit. */
function itemHintProblems(item: ItemDefinition): { path: PathSegment[]; message: string }[] {
  const problems: { path: PathSegment[]; message: string }[] = [];
  const schema = item.schema as PropertySchema;
  for (const field of Object.keys(item.uploads ?? {})) {
    const property = propertyAt(schema, field);
    if (property?.type !== 'string') {
      problems.push({
        path: ['uploads', field],
        message: `"${field}" must be a string property of the item's schema (it holds the uploaded file's id)`,
      });
    }
  }
  for (const [field, money] of Object.entries(item.money ?? {})) {
    // The import writes its schema into the item's own `properties`: a money field is declared there.
    const own = schema.properties ?? {};
    const property = (Object.hasOwn(own, field) ? own[field] : undefined) as
      Record<string, unknown> | undefined;
    const extra = Object.keys(property ?? {}).filter(
      (keyword) =>
        !['title', 'description'].includes(keyword) && !(keyword === 'type' && property?.type === 'object'),
    );
    // A definition the import wrote (exported and imported again) carries the schema it wrote: the same is fine.
    const moneyProblems = moneyFieldProblems(money);
    const written =
      property !== undefined &&
      moneyProblems.length === 0 &&
      isDeepStrictEqual(moneySchema(property, money), property);
    if (property === undefined) {
      problems.push({ path: ['money', field], message: `the schema has no property "${field}"` });
    } else if (extra.length > 0 && !written) {
      problems.push({
        path: ['money', field],
        message: `"${field}" is a money field: give its property only a title and a description (the import writes its schema), not ${extra.join(', ')}`,
      });
    } else if (item.uploads?.[field] !== undefined) {
      problems.push({ path: ['money', field], message: `"${field}" cannot be an upload and a money field` });
    }
    for (const problem of moneyProblems) {
      problems.push({ path: ['money', field, ...problem.path], message: problem.message });
    }
  }
  (item.ui?.order ?? []).forEach((field, index) => {
    if (field !== '*' && propertyAt(schema, field) === undefined) {
      problems.push({ path: ['ui', 'order', index], message: `the schema has no property "${field}"` });
    }
  });
  for (const [field, hints] of Object.entries(item.ui?.fields ?? {})) {
    const property = propertyAt(schema, field);
    if (!property) {
      problems.push({ path: ['ui', 'fields', field], message: `the schema has no property "${field}"` });
    } else if (hints.widget !== undefined && !WIDGET_FITS[hints.widget].fits(property)) {
      problems.push({
        path: ['ui', 'fields', field, 'widget'],
        message: `the ${hints.widget} widget needs ${WIDGET_FITS[hints.widget].needs}`,
      });
    }
    if (property && hints.defaultByEntityType !== undefined) {
      problems.push(...entityDefaultProblems(schema, field, hints.defaultByEntityType));
    }
  }
  return problems;
}

/** The mistakes of a field's `defaultByEntityType`: a field not of the item's own, an answer its schema refuses. */
function entityDefaultProblems(
  schema: PropertySchema,
  field: string,
  defaults: Record<string, unknown>,
): { path: PathSegment[]; message: string }[] {
  const path = ['ui', 'fields', field, 'defaultByEntityType'];
  if (!schema.properties || !Object.hasOwn(schema.properties, field)) {
    return [{ path, message: `"${field}" must be a top-level property of the schema's own \`properties\`` }];
  }
  let check: (value: unknown) => boolean;
  try {
    check = itemSchemaValidator().compile(schema.properties[field] as object);
  } catch {
    return []; // the schema's own problem, reported with it
  }
  return Object.entries(defaults)
    .filter(([, value]) => !check(value))
    .map(([type, value]) => ({
      path: [...path, type],
      message: `${JSON.stringify(value)} is not an answer "${field}" takes`,
    }));
}

/**
 * The item and top-level field an answer reference (`<item vulcanKey>.<field>`) names, or what is wrong with it: a
 * nested field, an item no process has or more than one has, a field not of the item schema's own `properties`.
 * `role` says what the reference is for, in the messages ("prefilled", "the commitment").
 */
function resolveAnswer(
  items: ReadonlyMap<string, { item: ItemDefinition; processes: number }>,
  reference: string,
  role: string,
): { item: ItemDefinition; field: string } | { problem: string } {
  const [vulcanKey = '', ...fields] = reference.split('.');
  const [field] = fields;
  if (field === undefined || fields.length > 1) {
    return {
      problem: `"${reference}" names a nested field: only a top-level field of an item can be ${role}, as <item vulcanKey>.<field>`,
    };
  }
  const found = items.get(vulcanKey);
  if (found === undefined) {
    return { problem: `no item "${vulcanKey}" in the template (its items: ${[...items.keys()].join(', ')})` };
  }
  if (found.processes > 1) {
    return {
      problem: `"${vulcanKey}" is an item of ${found.processes} processes, so "${reference}" could name either: give the items different vulcanKeys`,
    };
  }
  const { item } = found;
  const own = (item.schema as PropertySchema).properties ?? {};
  if (!Object.hasOwn(own, field)) {
    const conditional = Object.hasOwn(declaredProperties(item.schema), field);
    return {
      problem: conditional
        ? `"${field}" of item "${vulcanKey}" is declared under a condition: only a field of the schema's own \`properties\` can be ${role}`
        : `item "${vulcanKey}" has no field "${field}" (its fields: ${Object.keys(own).join(', ')})`,
    };
  }
  return { item, field };
}

/**
 * The mistakes of the template's `prefill` and `commitment`: each must name a top-level field of one item; a
 * prefilled one not an upload or a consent (only the recipient gives those), the commitment a money field.
 */
function answerChoiceProblems(template: TemplateDefinition): { path: PathSegment[]; message: string }[] {
  const problems: { path: PathSegment[]; message: string }[] = [];
  // Each item by its vulcanKey, with how many processes have one so keyed (an item defined twice in one process
  // is reported as that).
  const items = new Map<string, { item: ItemDefinition; processes: number }>();
  for (const process of template.processes) {
    for (const vulcanKey of new Set(process.items.map((item) => item.vulcanKey))) {
      const known = items.get(vulcanKey);
      const item = known?.item ?? process.items.find((candidate) => candidate.vulcanKey === vulcanKey);
      if (item) items.set(vulcanKey, { item, processes: (known?.processes ?? 0) + 1 });
    }
  }
  (template.prefill ?? []).forEach((reference, index) => {
    const path = ['prefill', index];
    const resolved = resolveAnswer(items, reference, 'prefilled');
    if ('problem' in resolved) {
      problems.push({ path, message: resolved.problem });
    } else if (resolved.item.uploads?.[resolved.field] !== undefined) {
      problems.push({
        path,
        message: `"${reference}" is an upload field: only the recipient uploads its file, so it cannot be prefilled`,
      });
    } else if (consentFields(resolved.item.schema).includes(resolved.field)) {
      problems.push({
        path,
        message: `"${reference}" is a consent: only the recipient gives it, so it cannot be prefilled`,
      });
    }
  });
  if (template.commitment !== undefined) {
    const path = ['commitment'];
    const resolved = resolveAnswer(items, template.commitment, 'the commitment');
    if ('problem' in resolved) {
      problems.push({ path, message: resolved.problem });
    } else if (resolved.item.money?.[resolved.field] === undefined) {
      problems.push({
        path,
        message: `"${template.commitment}" is not a money field: the commitment must be one declared in its item's \`money\``,
      });
    }
  }
  return problems;
}

/** The mistakes of meaning that a schema cannot see: unknown names, duplicates, unreachable states… */
function semanticProblems(template: TemplateDefinition): { path: PathSegment[]; message: string }[] {
  const problems: { path: PathSegment[]; message: string }[] = [];
  const flag = (path: PathSegment[], message: string) => problems.push({ path, message });
  const duplicates = (keys: string[], path: (index: number) => PathSegment[], what: string) => {
    keys.forEach((key, index) => {
      if (keys.indexOf(key) !== index) flag(path(index), `${what} "${key}" is defined twice`);
    });
  };

  const { workflow } = template;
  const states = new Set(workflow.states.map((state) => state.key));
  const events = new Set(workflow.events.map((event) => event.key));
  // The events a person may ask a second person to approve: the template's and the built-in void.
  const effectiveEvents = new Set(effectiveWorkflow(workflow).events.map((event) => event.key));
  const processes = new Set(template.processes.map((process) => process.key));
  const roles = new Set(template.recipientRoles.map((role) => role.key));
  const senderRoles = new Set(
    template.recipientRoles.filter((role) => role.sender === true).map((role) => role.key),
  );

  duplicates(
    template.recipientRoles.map((role) => role.key),
    (i) => ['recipientRoles', i, 'key'],
    'role',
  );
  duplicates(
    template.processes.map((process) => process.key),
    (i) => ['processes', i, 'key'],
    'process',
  );
  duplicates(
    workflow.states.map((state) => state.key),
    (i) => ['workflow', 'states', i, 'key'],
    'state',
  );
  duplicates(
    workflow.events.map((event) => event.key),
    (i) => ['workflow', 'events', i, 'key'],
    'event',
  );

  const primaries = template.recipientRoles.filter((role) => role.primary === true);
  if (primaries.length !== 1) {
    flag(
      ['recipientRoles'],
      `exactly one role must be primary (the recipient named at creation); found ${primaries.length}`,
    );
  }

  template.processes.forEach((process, p) => {
    duplicates(
      process.items.map((item) => item.vulcanKey),
      (i) => ['processes', p, 'items', i, 'vulcanKey'],
      'item',
    );
    duplicates(
      (process.documents ?? []).map((document) => document.key),
      (i) => ['processes', p, 'documents', i, 'key'],
      'document',
    );
    process.items.forEach((item, i) => {
      try {
        itemSchemaValidator().compile(item.schema);
      } catch (error) {
        flag(
          ['processes', p, 'items', i, 'schema'],
          `is not a valid JSON Schema: ${(error as Error).message}`,
        );
      }
      for (const problem of itemHintProblems(item))
        flag(['processes', p, 'items', i, ...problem.path], problem.message);
      for (const problem of maxLengthProblems(item.schema))
        flag(['processes', p, 'items', i, 'schema', ...problem.path], problem.message);
    });
    (process.documents ?? []).forEach((document, d) => {
      document.signedBy.forEach((role, r) => {
        if (!roles.has(role)) flag(['processes', p, 'documents', d, 'signedBy', r], `unknown role "${role}"`);
      });
      for (const problem of agreementProblems(process, document))
        flag(['processes', p, 'documents', d, ...problem.path], problem.message);
    });
    const submit = process.submitEvent;
    // A void needs the organization's reason: a recipient's submit cannot fire it.
    if (submit !== undefined && (isVoidEvent(submit) || !events.has(submit))) {
      flag(['processes', p, 'submitEvent'], `${isVoidEvent(submit) ? 'void' : 'unknown'} event "${submit}"`);
    }
  });

  for (const problem of answerChoiceProblems(template)) flag(problem.path, problem.message);

  if (!states.has(workflow.initialState)) {
    flag(['workflow', 'initialState'], `unknown state "${workflow.initialState}"`);
  }
  // The built-in `voided` does not count: a workflow must be able to end other than by a void.
  const finals = ownFinalStates(workflow);
  workflow.states.forEach((state, s) => {
    (state.onEnter ?? []).forEach((action, a) => {
      const [kind, target] = Object.entries(action)[0] ?? ['', ''];
      const known = kind === 'addRecipient' ? roles : processes;
      if (kind === 'addRecipient' && known.has(target) && !senderRoles.has(target)) {
        flag(
          ['workflow', 'states', s, 'onEnter', a, kind],
          `role "${target}" is not a sender role: only those are added by the workflow`,
        );
      } else if (!known.has(target)) {
        flag(
          ['workflow', 'states', s, 'onEnter', a, kind],
          `unknown ${kind === 'addRecipient' ? 'role' : 'process'} "${target}"`,
        );
      }
    });
  });
  (workflow.secondPerson ?? []).forEach((eventKey, i) => {
    if (!effectiveEvents.has(eventKey)) flag(['workflow', 'secondPerson', i], `unknown event "${eventKey}"`);
  });
  workflow.events.forEach((event, e) => {
    event.from.forEach((from, f) => {
      if (!states.has(from)) flag(['workflow', 'events', e, 'from', f], `unknown state "${from}"`);
      else if (finals.has(from))
        flag(['workflow', 'events', e, 'from', f], `"${from}" is final: no event leaves it`);
    });
    if (!states.has(event.to)) flag(['workflow', 'events', e, 'to'], `unknown state "${event.to}"`);
  });
  if (problems.length > 0) return problems;

  if (finals.size === 0) {
    flag(['workflow', 'states'], 'no state is final: the workflow could never complete');
    return problems;
  }
  const reachable = reachableStates(workflow);
  const canFinish = statesThatCanFinish(workflow);
  workflow.states.forEach((state, s) => {
    if (!reachable.has(state.key)) {
      flag(
        ['workflow', 'states', s],
        `state "${state.key}" cannot be reached from the initial state "${workflow.initialState}"`,
      );
    } else if (!canFinish.has(state.key)) {
      flag(
        ['workflow', 'states', s],
        `from state "${state.key}" no sequence of events reaches a final state`,
      );
    }
  });
  return problems;
}

/** A template file read as YAML, and how to give a path in it a line. */
function readSource(source: string) {
  const lines = new LineCounter();
  const document = parseDocument(source, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const locate = (problem: { path: PathSegment[]; message: string }): TemplateProblem => {
    const line = lineOf(document, lines, problem.path);
    return {
      path: formatPath(problem.path),
      ...(line === undefined ? {} : { line }),
      message: problem.message,
    };
  };
  return { document, locate };
}

/** The most problems a check lists: a file with more is wrong throughout, and the first hundred say how. */
export const MAX_LISTED_PROBLEMS = 100;

/**
 * The first {@link MAX_LISTED_PROBLEMS} problems, each with its line, and one more saying how many are left out.
 * Finding a line walks the file, so a file with tens of thousands of problems would take minutes to list.
 */
function listed(
  problems: readonly { path: PathSegment[]; message: string }[],
  locate: (problem: { path: PathSegment[]; message: string }) => TemplateProblem,
): TemplateProblem[] {
  const shown = problems.slice(0, MAX_LISTED_PROBLEMS).map(locate);
  const more = problems.length - shown.length;
  if (more <= 0) return shown;
  return [...shown, { path: '', message: `and ${String(more)} more problems: fix these first` }];
}

/**
 * Reads a template file (YAML, or JSON which is YAML too) and checks it: its structure against
 * `docs/template.schema.json`, then its meaning (names that must exist, duplicates, a workflow whose every state
 * can be reached and can reach a final state, agreements whose placeholders name fields). Every problem comes
 * with its path and line. The fund PDFs it names are checked by `checkTemplateWithFiles`.
 */
export function checkTemplate(source: string): TemplateCheck {
  const { document, locate } = readSource(source);
  if (document.errors.length > 0) {
    return {
      ok: false,
      problems: document.errors.slice(0, MAX_LISTED_PROBLEMS).map((error) => ({
        path: '',
        line: error.linePos?.[0].line,
        message: error.message.split('\n')[0] ?? error.message,
      })),
    };
  }
  const value: unknown = document.toJS();
  const validate = validateStructure();
  if (!validate(value)) {
    return { ok: false, problems: listed(structureProblems(validate.errors ?? []), locate) };
  }
  const problems = listed(semanticProblems(value), locate);
  return problems.length > 0
    ? { ok: false, problems }
    : { ok: true, definition: withMoneySchemas(withFieldOrder(value)) };
}

/**
 * Checks a template file as `checkTemplate` does, in a document worker (off the event loop, within its time
 * limit), and then the fund PDFs it names, from `files` (by the name the template gives, beside it): the
 * definition to store has each PDF's SHA-256 written in, and `files` the PDFs to store with it.
 */
export async function checkTemplateWithFiles(
  source: string,
  files: ReadonlyMap<string, Uint8Array>,
  workers: DocumentWorkers = documentWorkers(),
): Promise<
  | { ok: true; definition: TemplateDefinition; files: AgreementFile[] }
  | { ok: false; problems: TemplateProblem[]; agreement: boolean }
> {
  const checked = await workers.checkTemplate(source);
  if (!checked.ok) {
    const agreement = checked.problems.every((problem) => /\.agreement(\.|$)/.test(problem.path));
    return { ok: false, problems: checked.problems, agreement };
  }
  const { problems, definition, stored } = await checkAgreementFiles(checked.definition, files, workers);
  if (problems.length > 0)
    return { ok: false, problems: problems.map(readSource(source).locate), agreement: true };
  return { ok: true, definition, files: stored };
}

/** The template with the property of each money field replaced by the schema of its amount (money-fields.ts). */
function withMoneySchemas(template: TemplateDefinition): TemplateDefinition {
  return mapItems(template, (item) => {
    if (item.money === undefined) return item;
    const schema = item.schema as { properties?: Record<string, Record<string, unknown>> };
    const properties = { ...schema.properties };
    for (const [field, money] of Object.entries(item.money)) {
      properties[field] = moneySchema(properties[field] ?? {}, money);
    }
    return { ...item, schema: { ...item.schema, properties } };
  });
}

/**
 * The template with each item's `ui.order` set to its schema's property order where the file gives none: the
 * database keeps definitions as jsonb, which does not keep the order of keys, and forms show fields in the order
 * their author wrote them.
 */
function withFieldOrder(template: TemplateDefinition): TemplateDefinition {
  return mapItems(template, (item) => {
    const properties = Object.keys(declaredProperties(item.schema));
    if (item.ui?.order !== undefined || properties.length < 2) return item;
    return { ...item, ui: { ...item.ui, order: properties } };
  });
}

/** The template with each item of each process replaced by what `change` makes of it. */
function mapItems(
  template: TemplateDefinition,
  change: (item: ItemDefinition) => ItemDefinition,
): TemplateDefinition {
  return {
    ...template,
    processes: template.processes.map((process) => ({ ...process, items: process.items.map(change) })),
  };
}
