import { Badge, Button, Flex, Table, Text, TextField } from '@radix-ui/themes';
import type { KeyboardEvent } from 'react';
import type { ApiError } from '../../../shared/api-error.ts';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { count, type ClosingRow } from './closing-words.ts';

/** What a row's buttons do: fix its cells (then save or cancel), drop it or bring it back. */
export interface RowActions {
  fix: (row: ClosingRow) => void;
  type: (cells: Record<string, string>) => void;
  save: () => void;
  cancel: () => void;
  drop: (row: ClosingRow, dropped: boolean) => void;
}

/** A row being fixed: its cells as typed, whether they are on their way, and the refusal of the last save. */
export interface Fixing {
  cells: Record<string, string>;
  saving: boolean;
  error: ApiError | undefined;
}

/** The id of a cell's field while its row is fixed; its problems' id adds `-problems`. */
export const cellFieldId = (row: Pick<ClosingRow, 'id'>, column: string): string =>
  `row-${row.id}-${column.replace(/[^A-Za-z0-9_-]/g, '-')}`;
const problemsId = (row: ClosingRow, column: string) => `${cellFieldId(row, column)}-problems`;

/** The column of a row's first problem that is on one of `columns`, else the first column. */
export function firstProblemColumn(row: ClosingRow, columns: readonly string[]): string | undefined {
  const column = row.problems.find((problem) => problem.column !== null && columns.includes(problem.column));
  return column?.column ?? columns[0];
}

/** The id of a row's "Fix" button, which takes the keyboard back once the row is saved or its fix cancelled. */
export const fixButtonId = (row: ClosingRow): string => `fix-${row.id}`;

/** A cell's problems, each under it. */
function Problems({ id, messages }: { id: string; messages: readonly string[] }) {
  if (messages.length === 0) return null;
  return (
    <Flex direction="column" gap="1" mt="1" id={id} className="preflight-messages">
      {messages.map((message) => (
        <Text key={message} as="p" size="1" color="red" highContrast weight="medium">
          {message}
        </Text>
      ))}
    </Flex>
  );
}

/**
 * One row of a closing's preflight: its number as the spreadsheet shows it, each cell (highlighted, with its
 * problems under it, when it has some), its status (ready, its problems, or dropped) and, for operators, "Fix"
 * (each cell becomes a field; Enter saves, Escape cancels) and "Drop" / "Bring back". On a phone the row is a
 * card, each cell under its column's name (closings.css).
 */
export function PreflightRow({
  row,
  columns,
  operate,
  fixing,
  dropping,
  actions,
}: {
  row: ClosingRow;
  columns: readonly string[];
  operate: boolean;
  /** The row's fix under way, if it is being fixed. */
  fixing: Fixing | undefined;
  /** Whether its drop (or bringing back) is on its way. */
  dropping: boolean;
  actions: RowActions;
}) {
  const onColumn = new Map<string, string[]>();
  const onRow: string[] = [];
  for (const problem of row.problems) {
    if (problem.column !== null && columns.includes(problem.column)) {
      onColumn.set(problem.column, [...(onColumn.get(problem.column) ?? []), problem.message]);
    } else onRow.push(problem.message);
  }
  const keys = (event: KeyboardEvent) => {
    if (event.key === 'Enter') actions.save();
    if (event.key === 'Escape') actions.cancel();
  };
  const dropped = row.status === 'dropped';
  return (
    <Table.Row className={dropped ? 'preflight-dropped' : undefined}>
      <Table.RowHeaderCell>
        <span className="preflight-row-word">Row </span>
        {row.row}
      </Table.RowHeaderCell>
      {columns.map((column) => {
        const messages = dropped ? [] : (onColumn.get(column) ?? []);
        const text = row.cells[column] ?? '';
        const id = problemsId(row, column);
        return (
          <Table.Cell
            key={column}
            data-label={column}
            className={messages.length > 0 ? 'preflight-cell preflight-problem' : 'preflight-cell'}
          >
            <div>
              {fixing === undefined ? (
                text === '' ? (
                  <Text color="gray">
                    <span aria-hidden>—</span>
                    <span className="visually-hidden">blank</span>
                  </Text>
                ) : (
                  <span className="preflight-text">{text}</span>
                )
              ) : (
                <TextField.Root
                  id={cellFieldId(row, column)}
                  size="2"
                  value={fixing.cells[column] ?? ''}
                  aria-label={`${column}, row ${String(row.row)}`}
                  aria-invalid={messages.length > 0 ? true : undefined}
                  aria-describedby={messages.length > 0 ? id : undefined}
                  color={messages.length > 0 ? 'red' : undefined}
                  disabled={fixing.saving}
                  autoComplete="off"
                  onKeyDown={keys}
                  onChange={(event) => {
                    actions.type({ ...fixing.cells, [column]: event.target.value });
                  }}
                />
              )}
              <Problems id={id} messages={messages} />
            </div>
          </Table.Cell>
        );
      })}
      <Table.Cell data-label="Status">
        <Flex direction="column" gap="1" align="start">
          {row.status === 'ready' ? (
            <Badge color="green" highContrast>
              Ready
            </Badge>
          ) : dropped ? (
            <Badge color="gray" highContrast>
              Dropped: not created
            </Badge>
          ) : (
            <Badge color="red" highContrast>
              {count(row.problems.length, 'problem')}
            </Badge>
          )}
          {dropped ? null : <Problems id={`row-${row.id}-problems`} messages={onRow} />}
        </Flex>
      </Table.Cell>
      {operate ? (
        <Table.Cell className="preflight-actions">
          {fixing === undefined ? (
            <Flex gap="2">
              {dropped ? null : (
                <Button
                  id={fixButtonId(row)}
                  size="1"
                  variant="soft"
                  aria-label={`Fix row ${String(row.row)}`}
                  onClick={() => {
                    actions.fix(row);
                  }}
                >
                  Fix
                </Button>
              )}
              <Button
                size="1"
                variant="soft"
                color="gray"
                highContrast
                loading={dropping}
                aria-label={`${dropped ? 'Bring back' : 'Drop'} row ${String(row.row)}`}
                onClick={() => {
                  actions.drop(row, !dropped);
                }}
              >
                {dropped ? 'Bring back' : 'Drop'}
              </Button>
            </Flex>
          ) : (
            <Flex direction="column" gap="2">
              <Flex gap="2">
                <Button
                  size="1"
                  loading={fixing.saving}
                  aria-label={`Save row ${String(row.row)}`}
                  onClick={actions.save}
                >
                  Save
                </Button>
                <Button
                  size="1"
                  variant="soft"
                  color="gray"
                  highContrast
                  aria-label={`Cancel the fix of row ${String(row.row)}`}
                  onClick={actions.cancel}
                >
                  Cancel
                </Button>
              </Flex>
              <ErrorCallout error={fixing.error} />
            </Flex>
          )}
        </Table.Cell>
      ) : null}
    </Table.Row>
  );
}
