// What every step's page shares: "Step n of m" over its heading (which takes the focus when the step opens),
// and the way back. Where the steps fold into one line (step-nav.tsx), that line says "Step n of m" instead.

import { ArrowLeftIcon } from '@radix-ui/react-icons';
import { Button, Flex, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { PageHeading } from '../../shared/page-heading.tsx';
import { usePortal } from '../portal-state.tsx';

export function StepHeading({ index, title }: { index: number; title: string }) {
  const { steps, view } = usePortal();
  return (
    <Flex direction="column" gap="1">
      <Text size="2" color="gray" className="step-count">
        Step {index + 1} of {steps.length}
      </Text>
      <PageHeading title={title} documentTitle={`${title} · ${view.template.name}`} />
    </Flex>
  );
}

/** A link to the step before (or to the overview, from the first step). */
export function BackLink({ index }: { index: number }) {
  const { steps, href } = usePortal();
  const before = index > 0 ? steps[index - 1] : undefined;
  return (
    <LinkButton to={before ? href(before.path) : href()} soft>
      <ArrowLeftIcon aria-hidden /> Back
    </LinkButton>
  );
}

/** A link that looks like a step's large button: "Next", "See where it stands"; `soft` for the way back. */
export function LinkButton({
  to,
  soft = false,
  children,
}: {
  to: string;
  soft?: boolean;
  children: ReactNode;
}) {
  return (
    <Button asChild size="3" {...(soft ? { variant: 'soft', color: 'gray' } : {})}>
      <Link to={to}>{children}</Link>
    </Button>
  );
}
