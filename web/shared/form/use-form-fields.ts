import { useState, type ChangeEvent, type Dispatch, type SetStateAction } from 'react';

/** What is wrong with each field of a form, by the field's name: a sentence, or nothing. */
export type Problems<Name extends string> = Partial<Record<Name, string>>;

/** A form's text fields, and what is wrong with them and with its `Other` inputs: see {@link useFormFields}. */
export interface FormFields<Name extends string, Other extends string = never> {
  /** What is typed in each field. */
  values: Readonly<Record<Name, string>>;
  problems: Problems<Name | Other>;
  setProblems: Dispatch<SetStateAction<Problems<Name | Other>>>;
  /**
   * The props that tie a `Field` to `name`: its value, what typing does (keep it, then `onType`), its error.
   *
   * @example
   * <Field id="name" label="Name" {...form.field('name')} />
   */
  field: (
    name: Name,
    onType?: () => void,
  ) => {
    value: string;
    onChange: (event: ChangeEvent<HTMLInputElement>) => void;
    error: string | undefined;
  };
  /** Sets a field's text (a form that empties a field after a success). */
  set: (name: Name, value: string) => void;
  /** Shows the problems `found` beside their fields and answers whether there are none. */
  check: (found: Problems<Name | Other>) => boolean;
  /** Empties the fields as they were at first, and their problems (a dialog closed). */
  reset: () => void;
}

/**
 * The state of a form's text fields and of what is wrong with them, so that a field is written once, as
 * `<Field … {...form.field('email')} />`, whatever the form. `Other` names the form's inputs that are not text
 * (a checkbox, a choice), whose problems it keeps too.
 *
 * @example
 * const form = useFormFields<'name', 'consent'>({ name: '' });
 */
export function useFormFields<Name extends string, Other extends string = never>(
  initial: Readonly<Record<Name, string>>,
): FormFields<Name, Other> {
  const [values, setValues] = useState(initial);
  const [problems, setProblems] = useState<Problems<Name | Other>>({});
  const set = (name: Name, value: string) => {
    setValues((before) => ({ ...before, [name]: value }));
  };
  return {
    values,
    problems,
    setProblems,
    field: (name, onType) => ({
      value: values[name],
      onChange: (event) => {
        set(name, event.target.value);
        onType?.();
      },
      error: problems[name],
    }),
    set,
    check: (found) => {
      setProblems(found);
      return Object.values(found).every((problem) => problem === undefined);
    },
    reset: () => {
      setValues(initial);
      setProblems({});
    },
  };
}
