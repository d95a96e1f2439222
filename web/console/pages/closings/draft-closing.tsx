import { Flex } from '@radix-ui/themes';
import { Notice } from '../../../shared/notice.tsx';
import type { ClosingDetail } from './closing-words.ts';
import { ListUpload } from './list-upload.tsx';
import { Preflight, PREFLIGHT_HEADING } from './preflight.tsx';

/**
 * A draft closing: its list of investors to add (a file or pasted rows) until it has one; then the list's
 * preflight first, and below it the way to replace the list. Viewers and reviewers read the preflight; only
 * operators and admins change the list and run it.
 */
export function DraftClosing({
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
  const listed = closing.columns.length > 0;
  const upload = operate ? (
    <ListUpload
      closing={closing}
      onUploaded={(read) => {
        change(() => read);
        // The keyboard and a screen reader go on from the list as checked, above the upload.
        setTimeout(() => document.getElementById(PREFLIGHT_HEADING)?.focus(), 0);
      }}
    />
  ) : listed ? null : (
    <Notice tone="aside">This closing has no list of investors yet: an admin or an operator adds it.</Notice>
  );
  return (
    <Flex direction="column" gap="5">
      {listed ? <Preflight closing={closing} operate={operate} change={change} onRun={onRun} /> : null}
      {upload}
    </Flex>
  );
}
