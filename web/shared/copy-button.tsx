import { CheckIcon, CopyIcon } from '@radix-ui/react-icons';
import { Button } from '@radix-ui/themes';
import { useEffect, useState } from 'react';

/**
 * Copies `text` to the clipboard and says so for two seconds ("Copied", also to screen readers). Where the
 * clipboard is not allowed, it selects the text of `fallbackInputId` for the person to copy by hand.
 */
export function CopyButton({
  text,
  label,
  fallbackInputId,
}: {
  text: string;
  label: string;
  fallbackInputId: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'select'>('idle');
  useEffect(() => {
    if (state !== 'copied') return;
    const timer = setTimeout(() => {
      setState('idle');
    }, 2000);
    return () => {
      clearTimeout(timer);
    };
  }, [state]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      const input = document.getElementById(fallbackInputId);
      if (input instanceof HTMLInputElement) {
        input.focus();
        input.select();
      }
      setState('select');
    }
  };

  return (
    <>
      <Button
        type="button"
        onClick={() => void copy()}
        variant={state === 'copied' ? 'soft' : 'solid'}
        color={state === 'copied' ? 'green' : undefined}
        highContrast={state === 'copied'}
      >
        {state === 'copied' ? <CheckIcon aria-hidden /> : <CopyIcon aria-hidden />}
        {state === 'copied' ? 'Copied' : label}
      </Button>
      <span role="status" className="visually-hidden">
        {state === 'copied'
          ? 'Copied to the clipboard.'
          : state === 'select'
            ? 'The browser did not allow copying: the text is selected, press Ctrl+C or ⌘C.'
            : ''}
      </span>
    </>
  );
}
