import { CheckCircledIcon, ExclamationTriangleIcon, InfoCircledIcon } from '@radix-ui/react-icons';
import { Callout } from '@radix-ui/themes';
import type { AriaRole, ReactNode } from 'react';

/** Each kind of notice: its colour and its icon. Errors are an {@link ErrorCallout}'s. */
const TONES = {
  /** Something worked: a mail is on its way, a person was invited. */
  done: { color: 'green', icon: <CheckCircledIcon /> },
  /** Something to know before going on: the one time a key is shown. */
  warning: { color: 'amber', icon: <ExclamationTriangleIcon /> },
  /** A word from the page before (a new password, a sign-out). */
  info: { color: 'blue', icon: <InfoCircledIcon /> },
  /** Why something is not offered to this person. */
  aside: { color: 'gray', icon: <InfoCircledIcon /> },
} as const;

/** A callout with the icon of its tone; `role="status"` where it appears after an action, to be read out. */
export function Notice({
  tone,
  highContrast,
  role,
  children,
}: {
  tone: keyof typeof TONES;
  highContrast?: boolean;
  role?: AriaRole;
  children: ReactNode;
}) {
  const { color, icon } = TONES[tone];
  return (
    <Callout.Root color={color} highContrast={highContrast} role={role}>
      <Callout.Icon>{icon}</Callout.Icon>
      <Callout.Text>{children}</Callout.Text>
    </Callout.Root>
  );
}
