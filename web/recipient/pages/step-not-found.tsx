import { Flex, Text } from '@radix-ui/themes';
import { PageHeading } from '../../shared/page-heading.tsx';
import { LinkButton } from '../components/step-page.tsx';
import { usePortal } from '../portal-state.tsx';

/** An address under the link that names no step (mistyped, or a step the template no longer has). */
export function StepNotFound() {
  const { href } = usePortal();
  return (
    <Flex direction="column" gap="4">
      <PageHeading title="This step does not exist" />
      <Text as="p">The address may be mistyped, or shortened. Your answers are not affected.</Text>
      <div>
        <LinkButton to={href()}>Go to your steps</LinkButton>
      </div>
    </Flex>
  );
}
