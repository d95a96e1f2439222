import { describe, expect, it } from 'vitest';
import { emailProblem, personNameProblem } from '../../web/shared/form/checks.ts';

describe('emailProblem', () => {
  it('takes an address with a local part, a domain and a dot in it, spaces around it trimmed', () => {
    expect(emailProblem('ada@example.com')).toBeUndefined();
    expect(emailProblem('  ada.lovelace+portico@mail.example.co.uk ')).toBeUndefined();
  });

  it('says to enter an address when nothing was typed, in the words the form gives', () => {
    expect(emailProblem('   ')).toBe('Enter your e-mail address.');
    expect(emailProblem('', 'Enter the e-mail address to invite.')).toBe(
      'Enter the e-mail address to invite.',
    );
  });

  it('shows what an address looks like when the typed one is not one', () => {
    for (const typed of ['ada', 'ada@example', '@example.com', 'ada @example.com', 'ada@exa mple.com']) {
      expect(emailProblem(typed)).toBe('Enter an e-mail address, like ada@example.com.');
    }
  });
});

describe('personNameProblem', () => {
  it('takes an empty name and one of up to 100 characters', () => {
    expect(personNameProblem('')).toBeUndefined();
    expect(personNameProblem('x'.repeat(100))).toBeUndefined();
  });

  it('refuses a name of 101 characters, saying the limit', () => {
    expect(personNameProblem('x'.repeat(101))).toBe('A name has at most 100 characters.');
  });
});
