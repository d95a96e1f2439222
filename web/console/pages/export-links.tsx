import { DownloadIcon } from '@radix-ui/react-icons';
import { Button, Flex } from '@radix-ui/themes';
import { consoleApi } from '../api.ts';
import type { ExportQuery } from '../types.ts';

/**
 * The work queue, as filtered now, as a download: a CSV file and an Excel workbook, both with a row per
 * transaction and a column per answer (docs/console.md, "Exports"). Plain links: the browser saves what they answer.
 */
export function ExportLinks({ query }: { query: Omit<ExportQuery, 'format'> }) {
  const href = (format: 'csv' | 'xlsx') =>
    consoleApi.urlOf('GET /queue/export', { query: { ...query, format } });
  return (
    <Flex gap="2" wrap="wrap" role="group" aria-label="Export the list as it is filtered">
      <Button asChild variant="soft" size="2">
        <a href={href('csv')} download>
          <DownloadIcon aria-hidden /> Export CSV
        </a>
      </Button>
      <Button asChild variant="soft" size="2">
        <a href={href('xlsx')} download>
          <DownloadIcon aria-hidden /> Export Excel
        </a>
      </Button>
    </Flex>
  );
}
