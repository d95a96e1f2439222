// What an item's form tells its templates and widgets beyond rjsf's props (rjsf's `formContext`). rjsf keeps
// its registry while the context is deep-equal to the one before, comparing data and taking any two functions
// for equal: so what changes is data here, and the functions never change.

import type { FormContextType, Registry } from '@rjsf/utils';
import type { ReviewerComment, UploadAnswer, UploadedFile } from '../types.ts';

export interface PortalFormContext extends FormContextType {
  /**
   * Whether problems are shown: once "Continue" was pressed, and from then on as the answers change. Never on
   * leaving a field: a message appearing on blur moves the fields below it while the pointer is on its way to
   * one of them, and the click meant for it misses.
   */
  showAll: boolean;
  /** The fields whose answer differs from the one submitted last time (`pathKey`s), marked "Changed". */
  changed: readonly string[];
  /** The reviewer's open comments on the item's fields, shown beside each field. */
  comments: readonly ReviewerComment[];
  /** The files uploaded to the item, newest first. */
  files: readonly UploadedFile[];
  /** Uploads a file to an upload field, reporting its progress (0 to 1); refuses with an ApiError. */
  upload: (
    field: string,
    file: File,
    progress: (fraction: number) => void,
    signal: AbortSignal,
  ) => Promise<UploadAnswer>;
  /** Takes in what an upload answered: the new file, and the item's saved data and completion. */
  uploaded: (answer: UploadAnswer) => void;
}

/** The form's {@link PortalFormContext}, from the registry every template and widget receives. */
export function portalContext(registry: Registry): PortalFormContext {
  return registry.formContext as PortalFormContext;
}

/** Whether the problems of the fields are shown: after "Continue" (see {@link PortalFormContext.showAll}). */
export function shows(registry: Registry): boolean {
  return portalContext(registry).showAll;
}

/**
 * The ids a field's input is described by, among those its template renders: the description, the help, and
 * the error when it is shown.
 */
export function describedBy(props: {
  id: string;
  schema: { description?: string };
  options: { description?: string; help?: string };
  rawErrors?: string[] | undefined;
  registry: Registry;
}): string | undefined {
  const ids = [
    (props.options.description ?? props.schema.description) ? `${props.id}__description` : undefined,
    props.options.help === undefined ? undefined : `${props.id}__help`,
    showsError(props) ? `${props.id}__error` : undefined,
  ].filter((part) => part !== undefined);
  return ids.length === 0 ? undefined : ids.join(' ');
}

/** Whether the field shows an error now. */
export function showsError(props: {
  id: string;
  rawErrors?: string[] | undefined;
  registry: Registry;
}): boolean {
  return (props.rawErrors?.length ?? 0) > 0 && shows(props.registry);
}
