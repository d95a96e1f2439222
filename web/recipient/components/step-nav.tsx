// The steps and how far each has come: a list beside the page on a wide screen; on a phone, one line ("Step 2
// of 6: About you") with a bar, opening onto the same list.

import { CheckCircledIcon } from '@radix-ui/react-icons';
import { Flex, Progress, Text } from '@radix-ui/themes';
import { useEffect, useRef } from 'react';
import { Link, useLocation } from 'react-router';
import { usePortal } from '../portal-state.tsx';
import type { Step } from '../steps.ts';

/** A ring filled as far as the step has come (its text says so too). */
function StepIcon({ step }: { step: Step }) {
  if (step.state === 'done') return <CheckCircledIcon aria-hidden className="step-icon step-icon-done" />;
  const share =
    step.kind === 'item' ? step.item.completionPercentage / 100 : step.state === 'started' ? 0.5 : 0;
  const radius = 6.5;
  const around = 2 * Math.PI * radius;
  return (
    <svg viewBox="0 0 18 18" aria-hidden className="step-icon">
      <circle cx="9" cy="9" r={radius} fill="none" strokeWidth="1.5" className="step-ring-track" />
      {share > 0 ? (
        <circle
          cx="9"
          cy="9"
          r={radius}
          fill="none"
          strokeWidth="3"
          strokeDasharray={`${String(around * share)} ${String(around)}`}
          transform="rotate(-90 9 9)"
          className="step-ring-value"
        />
      ) : null}
    </svg>
  );
}

/** The list of steps, the current one marked for screen readers (`aria-current="step"`). */
function StepList({ current }: { current: number }) {
  const { steps, href, view } = usePortal();
  const grouped = view.processes.length > 1;
  return (
    <ol className="step-list">
      {steps.map((step, index) => {
        const first = index === 0 || steps[index - 1]?.process.key !== step.process.key;
        return (
          <li key={step.path}>
            {grouped && first ? (
              <Text as="div" size="1" weight="bold" color="gray" className="step-group">
                {step.process.title}
              </Text>
            ) : null}
            <Link
              to={href(step.path)}
              className="step-link"
              data-state={step.state}
              aria-current={index === current ? 'step' : undefined}
            >
              <StepIcon step={step} />
              <span className="step-text">
                <span className="step-title">
                  <span className="visually-hidden">Step {index + 1}: </span>
                  {step.title}
                </span>
                <span className="step-progress">{step.progress}</span>
              </span>
            </Link>
          </li>
        );
      })}
    </ol>
  );
}

/** The index of the step the address shows, or -1 (the overview, a page that is no step). */
function useCurrentStep(): number {
  const { steps, href } = usePortal();
  const { pathname } = useLocation();
  return steps.findIndex((step) => pathname === href(step.path));
}

export function StepNav() {
  const { steps } = usePortal();
  const current = useCurrentStep();
  const done = steps.filter((step) => step.state === 'done').length;
  const shown = steps[current];
  const details = useRef<HTMLDetailsElement>(null);
  const { pathname } = useLocation();
  // A step chosen from the list opens that step with the list closed.
  useEffect(() => {
    if (details.current) details.current.open = false;
  }, [pathname]);
  return (
    <>
      <nav aria-label="Steps" className="step-nav-wide">
        <StepList current={current} />
      </nav>
      <nav aria-label="Steps" className="step-nav-narrow">
        <details className="step-details" ref={details}>
          <summary>
            <Flex direction="column" gap="2" className="step-summary">
              <Flex justify="between" gap="2" align="baseline">
                <Text size="2" weight="medium">
                  {/* The step's title is its page's heading, just below: said once. */}
                  {shown ? `Step ${String(current + 1)} of ${String(steps.length)}` : 'Your steps'}
                </Text>
                <Text size="1" color="gray" className="step-details-toggle">
                  All steps
                </Text>
              </Flex>
              <Progress
                value={steps.length === 0 ? 0 : Math.round((100 * done) / steps.length)}
                aria-label={`${String(done)} of ${String(steps.length)} steps done`}
              />
            </Flex>
          </summary>
          <StepList current={current} />
        </details>
      </nav>
    </>
  );
}
