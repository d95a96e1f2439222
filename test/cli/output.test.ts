import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/context.ts';
import { columns, printList } from '../../src/cli/output.ts';

/** An io that keeps what a command prints on stdout. */
function printed(): { io: CliIO; out: string[] } {
  const out: string[] = [];
  return { io: { env: {}, out: (text) => out.push(text), err: () => undefined }, out };
}

describe('columns', () => {
  it('pads each column to its widest cell, two spaces apart, and leaves the last cell of a row unpadded', () => {
    expect(
      columns([
        ['0001_transactions', 'applied 2026-11-26T15:00:18.145Z'],
        ['0021_request_ids_of_queued_work', 'pending'],
      ]),
    ).toEqual([
      '0001_transactions                applied 2026-11-26T15:00:18.145Z',
      '0021_request_ids_of_queued_work  pending',
    ]);
  });

  it('ends no line with spaces, whether its last cells are empty or its row is shorter than the others', () => {
    expect(
      columns([['sk_test_ab…', 'active', ''], ['sk_test_cd…', 'revoked 2026-11-26', 'ci'], ['only']]),
    ).toEqual(['sk_test_ab…  active', 'sk_test_cd…  revoked 2026-11-26  ci', 'only']);
  });
});

describe('printList', () => {
  const mails = [
    { to: 'a@example.com', subject: 'Invited' },
    { to: 'trustee@redwood.example', subject: 'Signed' },
  ];

  it('lines up the cells of every line given as cells, and prints a line given as text as it is', () => {
    const { io, out } = printed();
    printList(io, [...mails, { to: '', subject: 'a note' }], {}, 'none', (mail) =>
      mail.to === '' ? `-- ${mail.subject}` : [mail.to, mail.subject],
    );
    expect(out).toEqual(['a@example.com            Invited\ntrustee@redwood.example  Signed\n-- a note']);
  });

  it('prints the empty message for no item, and the items themselves with --json', () => {
    const empty = printed();
    printList(empty.io, [], {}, 'There is no mail.', () => ['unused']);
    expect(empty.out).toEqual(['There is no mail.']);

    const json = printed();
    printList(json.io, mails, { json: true }, 'none', (mail) => [mail.to]);
    expect(JSON.parse(json.out.join(''))).toEqual(mails);
  });
});
