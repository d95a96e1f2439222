import { Button, Callout, Card, Checkbox, Flex, Heading, Table, Text } from '@radix-ui/themes';
import { ExclamationTriangleIcon } from '@radix-ui/react-icons';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { locale } from '../../../shared/format.ts';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { consoleApi } from '../../api.ts';
import { useSignedIn } from '../../session.tsx';
import { draftSummary, rowCounts, whyNotRun, type ClosingDetail, type ClosingRow } from './closing-words.ts';
import {
  cellFieldId,
  firstProblemColumn,
  fixButtonId,
  PreflightRow,
  type Fixing,
  type RowActions,
} from './preflight-row.tsx';
import { RunClosing } from './run-closing.tsx';
import { isRecord, textEntries, useStoredState } from './stored-state.ts';
import { changedParams } from '../../../shared/list/address-params.ts';

/** The id of the preflight's heading, which takes the keyboard once a list is read. */
export const PREFLIGHT_HEADING = 'preflight-heading';

/** The most rows a page of the preflight shows: a list of 5,000 is read a page at a time. */
const PAGE_SIZE = 200;

/** The row being fixed, as kept through a reload: its id and its cells as typed. */
interface StoredFix {
  rowId: string;
  cells: Record<string, string>;
}

const readFix = (stored: unknown): StoredFix | null | undefined =>
  isRecord(stored) && typeof stored.rowId === 'string'
    ? { rowId: stored.rowId, cells: textEntries(stored.cells) }
    : undefined;

/** The page of a list the address names (`page`, from 1), within the pages there are. */
function pageOf(params: URLSearchParams, pages: number): number {
  const page = Number(params.get('page') ?? '1');
  return Number.isInteger(page) && page >= 1 ? Math.min(page, Math.max(1, pages)) : 1;
}

/**
 * A draft closing's preflight: the problems of its list's columns, where its rows stand ("28 ready, 2 with
 * problems, 0 dropped"), the run (greyed with why until the server would take it), and the table of its rows,
 * filtered to those with problems if asked and a page of 200 at a time (the filter and the page are in the
 * address). A row is fixed in place (kept through a reload until saved) and checked again by the server, or
 * dropped, or brought back; `change` takes each answer, so that the counts and the run follow at once.
 */
export function Preflight({
  closing,
  operate,
  change,
  onRun,
}: {
  closing: ClosingDetail;
  operate: boolean;
  change: (next: (before: ClosingDetail) => ClosingDetail) => void;
  onRun: () => void;
}) {
  const { user, tenant } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const onlyProblems = params.get('problems') === '1';
  const [fix, setFix, forgetFix] = useStoredState<StoredFix | null>(
    `portico.console.closing-fix.${tenant.handle}.${user.id}.${closing.id}`,
    null,
    readFix,
  );
  // Rows fixed or dropped since the filter was set stay in it, so that a row does not vanish under the keyboard.
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [said, setSaid] = useState('');
  const saving = useApiAction();
  const dropping = useApiAction();
  const [droppingRow, setDroppingRow] = useState<string>();

  const counts = rowCounts(closing.rows);
  const columns = closing.columns.map((column) => column.name);
  const fixed = fix === null ? undefined : closing.rows.find((row) => row.id === fix.rowId);
  const shownRows = onlyProblems
    ? closing.rows.filter((row) => row.status === 'problem' || touched.has(row.id) || row.id === fixed?.id)
    : closing.rows;
  const pages = Math.ceil(shownRows.length / PAGE_SIZE);
  const page = pageOf(params, pages);
  const onPage = shownRows.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);

  const withParams = (changes: Record<string, string | null>) => {
    setParams((current) => changedParams(current, changes));
  };
  /**
   * Puts a row as the server answered it in the closing, with the rows it checked again beside it (those sharing
   * its address, whose problem of being the same investor may have ended or begun).
   */
  const replaceRow = (
    id: string,
    next: (row: ClosingRow) => ClosingRow,
    checkedAgain: readonly ClosingRow[] = [],
  ) => {
    const again = new Map(checkedAgain.map((row) => [row.id, row]));
    change((before) => ({
      ...before,
      rows: before.rows.map((row) => (row.id === id ? next(row) : (again.get(row.id) ?? row))),
    }));
    setTouched((before) => new Set([...before, id, ...again.keys()]));
  };
  const focusLater = (id: string) => {
    setTimeout(() => document.getElementById(id)?.focus(), 0);
  };

  const actions: RowActions = {
    fix(row) {
      saving.clear();
      setFix({ rowId: row.id, cells: { ...row.cells } });
      setTouched((before) => new Set(before).add(row.id));
      // The keyboard goes to the first cell with a problem, in place of the button that is gone.
      const column = firstProblemColumn(row, columns);
      if (column !== undefined) focusLater(cellFieldId(row, column));
    },
    type(cells) {
      setFix((before) => (before === null ? null : { ...before, cells }));
    },
    cancel() {
      if (fixed !== undefined) focusLater(fixButtonId(fixed));
      forgetFix();
      saving.clear();
    },
    save() {
      if (fix === null || fixed === undefined || saving.busy) return;
      void saving.run(async () => {
        const { row, checkedAgain } = await consoleApi('PUT /closings/:id/rows/:rowId', {
          params: { id: closing.id, rowId: fix.rowId },
          body: { cells: fix.cells },
        });
        replaceRow(row.id, () => row, checkedAgain);
        if (row.status === 'ready') {
          forgetFix();
          setSaid(`Row ${String(row.row)} is ready.`);
          focusLater(fixButtonId(row));
        } else {
          setSaid(`Row ${String(row.row)} still has problems: they are under its cells.`);
          const column = firstProblemColumn(row, columns);
          if (column !== undefined) focusLater(cellFieldId(row, column));
        }
      });
    },
    drop(row, drop) {
      setDroppingRow(row.id);
      void dropping.run(async () => {
        try {
          const { status, checkedAgain } = await consoleApi('PUT /closings/:id/rows/:rowId/dropped', {
            params: { id: closing.id, rowId: row.id },
            body: { dropped: drop },
          });
          replaceRow(row.id, (before) => ({ ...before, status }), checkedAgain);
          if (fix?.rowId === row.id) forgetFix();
          setSaid(
            drop
              ? `Row ${String(row.row)} dropped: it will not be created.`
              : `Row ${String(row.row)} is back: ${status === 'ready' ? 'ready' : 'it still has problems'}.`,
          );
        } finally {
          setDroppingRow(undefined);
        }
      });
    },
  };
  const fixing = (row: ClosingRow): Fixing | undefined =>
    fix !== null && fix.rowId === row.id
      ? { cells: fix.cells, saving: saving.busy, error: saving.error }
      : undefined;

  const why = operate ? whyNotRun(closing, counts) : 'Only admins and operators run closings.';
  return (
    <Flex direction="column" gap="4">
      {closing.columnProblems.length === 0 ? null : (
        <Callout.Root color="red" role="alert">
          <Callout.Icon>
            <ExclamationTriangleIcon />
          </Callout.Icon>
          <Flex direction="column" gap="2">
            <Callout.Text weight="bold">The list’s columns have problems</Callout.Text>
            <ul className="closing-problems">
              {closing.columnProblems.map((problem) => (
                <li key={problem}>
                  <Callout.Text>{problem}</Callout.Text>
                </li>
              ))}
            </ul>
            <Callout.Text>Fix the file and upload it again below.</Callout.Text>
          </Flex>
        </Callout.Root>
      )}
      <Card size="2" asChild>
        <section aria-labelledby={PREFLIGHT_HEADING}>
          <Flex direction="column" gap="3">
            <Heading as="h2" size="4" id={PREFLIGHT_HEADING} tabIndex={-1}>
              Check before running
            </Heading>
            <Flex justify="between" align="center" gap="3" wrap="wrap">
              <Text size="3" weight="medium">
                {draftSummary(counts)}
              </Text>
              <RunClosing closing={closing} ready={counts.ready} why={why} onRun={onRun} change={change} />
            </Flex>
            <Text size="2" role="status">
              {said}
            </Text>
          </Flex>
        </section>
      </Card>
      <Flex justify="between" align="center" gap="3" wrap="wrap">
        <Text as="label" size="2">
          <Flex gap="2" align="center">
            <Checkbox
              checked={onlyProblems}
              onCheckedChange={(checked) => {
                setTouched(new Set());
                withParams({ problems: checked === true ? '1' : null, page: null });
              }}
            />
            Only rows with problems ({counts.problem.toLocaleString(locale)})
          </Flex>
        </Text>
        {pages > 1 ? (
          <Text size="2" color="gray">
            Rows {((page - 1) * PAGE_SIZE + 1).toLocaleString(locale)}–
            {Math.min(page * PAGE_SIZE, shownRows.length).toLocaleString(locale)} of{' '}
            {shownRows.length.toLocaleString(locale)}
          </Text>
        ) : null}
      </Flex>
      <ErrorCallout error={dropping.error} />
      {onPage.length === 0 ? (
        <Text as="p" size="2" color="gray">
          {onlyProblems ? 'No row has a problem.' : 'The list has no rows under its header.'}
        </Text>
      ) : (
        <div className="table-scroll">
          <Table.Root variant="surface" size="1" className="preflight-table table-cards">
            <caption className="visually-hidden">
              The rows of the list{onlyProblems ? ' with problems' : ''}, checked
            </caption>
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>Row</Table.ColumnHeaderCell>
                {columns.map((column) => (
                  <Table.ColumnHeaderCell key={column}>{column}</Table.ColumnHeaderCell>
                ))}
                <Table.ColumnHeaderCell>Status</Table.ColumnHeaderCell>
                {operate ? (
                  <Table.ColumnHeaderCell>
                    <span className="visually-hidden">Fix or drop</span>
                  </Table.ColumnHeaderCell>
                ) : null}
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {onPage.map((row) => (
                <PreflightRow
                  key={row.id}
                  row={row}
                  columns={columns}
                  operate={operate}
                  fixing={fixing(row)}
                  dropping={droppingRow === row.id}
                  actions={actions}
                />
              ))}
            </Table.Body>
          </Table.Root>
        </div>
      )}
      {pages > 1 ? (
        <Flex gap="3" justify="end" align="center">
          <Button
            variant="soft"
            color="gray"
            disabled={page <= 1}
            onClick={() => {
              withParams({ page: page - 1 <= 1 ? null : String(page - 1) });
            }}
          >
            Previous rows
          </Button>
          <Text size="2" color="gray">
            Page {page} of {pages}
          </Text>
          <Button
            variant="soft"
            disabled={page >= pages}
            onClick={() => {
              withParams({ page: String(page + 1) });
            }}
          >
            Next rows
          </Button>
        </Flex>
      ) : null}
    </Flex>
  );
}
