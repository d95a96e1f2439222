// An amount of money (a template's `money` field): typed as people write amounts ("250,000" or "250000.00"), in
// the one currency the template fixes or one the recipient picks, and stored as {currency, amount} with the
// amount in the currency's smallest unit. Read and shown by the server's own rules (src/transactions/money.ts),
// so the page and the signed document never disagree on what was typed.

import type { FieldProps } from '@rjsf/utils';
import { Flex, Select, Text, TextField } from '@radix-ui/themes';
import { useState } from 'react';
import { formatMoney, minorDigits, parseMoney } from '../../../src/transactions/money.ts';
import { describedBy, showsError } from './form-context.ts';
import type { MoneyOptions } from './ui-schema.ts';

interface MoneyValue {
  currency?: unknown;
  amount?: unknown;
}

/** An amount as the recipient typed it, or as the field shows a saved one: grouped, with the currency's decimals. */
function textOf(value: MoneyValue | undefined, currency: string): string {
  if (typeof value?.amount === 'string') return value.amount;
  if (typeof value?.amount !== 'number') return '';
  const digits = minorDigits(currency);
  return new Intl.NumberFormat('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(value.amount / 10 ** digits);
}

/**
 * The value of what was typed: {currency, amount} when it reads as an amount of the currency, the text itself as
 * the amount when it does not (the form then says how to write it, and keeps it on this device until it does),
 * nothing when nothing was typed.
 */
function valueOf(text: string, currency: string): MoneyValue | undefined {
  if (text.trim() === '') return undefined;
  try {
    return { currency, amount: parseMoney(text, currency) };
  } catch {
    return { currency, amount: text };
  }
}

export function MoneyField(props: FieldProps) {
  const { fieldPathId, registry, disabled, readonly, required, onChange, onBlur } = props;
  const id = fieldPathId.$id;
  const { money } = (props.uiSchema?.['ui:options'] ?? {}) as unknown as MoneyOptions;
  const saved = props.formData as MoneyValue | undefined;
  const [first = 'USD'] = money.currencies;
  const currency =
    typeof saved?.currency === 'string' && money.currencies.includes(saved.currency) ? saved.currency : first;
  const [text, setText] = useState(() => textOf(saved, currency));
  const change = (nextText: string, nextCurrency: string) => {
    setText(nextText);
    onChange(valueOf(nextText, nextCurrency), fieldPathId.path);
  };
  const rawErrors = props.rawErrors;
  const invalid = showsError({ id, rawErrors, registry });
  const described = describedBy({ id, schema: props.schema, options: {}, rawErrors, registry });
  const amount = typeof saved?.amount === 'number' ? saved.amount : undefined;
  return (
    <Flex direction="column" gap="1">
      <Flex gap="2" align="center">
        {money.currencies.length > 1 ? (
          <Select.Root
            size="3"
            value={currency}
            disabled={disabled || readonly}
            onValueChange={(chosen) => {
              change(text, chosen);
            }}
          >
            <Select.Trigger aria-label="Currency" className="money-currency" />
            <Select.Content position="popper">
              {money.currencies.map((code) => (
                <Select.Item key={code} value={code}>
                  {code}
                </Select.Item>
              ))}
            </Select.Content>
          </Select.Root>
        ) : (
          <Text size="3" className="money-currency" aria-hidden>
            {currency}
          </Text>
        )}
        <TextField.Root
          id={id}
          size="3"
          className="money-amount"
          inputMode="decimal"
          autoComplete="off"
          value={text}
          required={required}
          disabled={disabled || readonly}
          aria-invalid={invalid || undefined}
          aria-describedby={described}
          color={invalid ? 'red' : undefined}
          onChange={(event) => {
            change(event.target.value, currency);
          }}
          onBlur={() => {
            onBlur(id, saved);
          }}
        />
      </Flex>
      {/* What the amount reads as, so a misplaced digit shows before anything is signed. */}
      <Text size="2" color="gray" aria-live="polite">
        {amount === undefined ? '\u00a0' : formatMoney({ currency, amount })}
      </Text>
    </Flex>
  );
}
