// A country (a template's `widget: country`): chosen from a list of countries by name, in the recipient's
// language, and stored as its ISO 3166-1 alpha-2 code ("US"), so that nobody types "usa" or "us".

import type { WidgetProps } from '@rjsf/utils';
import { Select } from '@radix-ui/themes';
import { describedBy, showsError } from './form-context.ts';

/** Region codes ICU names that are not countries: groupings, reserved and private-use codes. */
const NOT_COUNTRIES = new Set([
  'AC',
  'CP',
  'CQ',
  'DG',
  'EA',
  'EU',
  'EZ',
  'IC',
  'QO',
  'TA',
  'UN',
  'XA',
  'XB',
  'ZZ',
]);

let countries: { code: string; name: string }[] | undefined;

/**
 * Every two-letter region the browser's ICU data names, but groupings and reserved codes, sorted by name in the
 * page's language: the ISO 3166-1 countries and territories (and Kosovo, `XK`, which many forms need).
 */
export function countryList(locale = navigator.language): { code: string; name: string }[] {
  if (countries) return countries;
  const names = new Intl.DisplayNames([locale, 'en'], { type: 'region', fallback: 'none' });
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const found: { code: string; name: string }[] = [];
  for (const first of letters) {
    for (const second of letters) {
      const code = first + second;
      const name = NOT_COUNTRIES.has(code) ? undefined : names.of(code);
      if (name !== undefined && name !== code) found.push({ code, name });
    }
  }
  countries = found.sort((a, b) => a.name.localeCompare(b.name, locale));
  return countries;
}

export function CountryWidget(props: WidgetProps) {
  const { id, required, disabled, readonly, onChange, onBlur } = props;
  const value = typeof props.value === 'string' ? props.value.toUpperCase() : '';
  const invalid = showsError(props);
  return (
    <Select.Root
      size="3"
      value={value}
      required={required}
      disabled={disabled || readonly}
      onValueChange={(chosen) => {
        onChange(chosen);
      }}
      onOpenChange={(open) => {
        if (!open) onBlur(id, value);
      }}
    >
      <Select.Trigger
        id={id}
        className="select-trigger"
        placeholder="Choose a country…"
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy(props)}
        color={invalid ? 'red' : undefined}
      />
      <Select.Content position="popper">
        {countryList().map(({ code, name }) => (
          <Select.Item key={code} value={code}>
            {name}
          </Select.Item>
        ))}
      </Select.Content>
    </Select.Root>
  );
}
