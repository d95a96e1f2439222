import { Dialog, Spinner } from '@radix-ui/themes';
import { Chunked, lazyChunk } from '../app/chunk.tsx';
import type { SignInForm as Form } from './sign-in-form.tsx';
import type { AccountSurface } from './surface.ts';

/** The form, a chunk of its own (with the passkeys' and single sign-on's code): loaded only when a session ends. */
const SignInForm = lazyChunk(async () => ({
  default: (await import('./sign-in-form.tsx')).SignInForm,
})) as unknown as typeof Form;

/**
 * The sign-in asked for above a page whose session ended under it (a session of `whenSessionEnds:
 * 'sign-in-above-page'`, web/shared/accounts/session.tsx): nothing under it unmounts, so an open dialog and what
 * was typed in it are there after signing in again, ready to be sent once more. It cannot be closed otherwise.
 */
export function SignInAgainDialog<Answer, User extends { email: string }, Tenant>({
  surface,
}: {
  surface: AccountSurface<Answer, User, Tenant>;
}) {
  const { session } = surface.useSession();
  if (session.status !== 'signed-in' || session.ended === undefined) return null;
  return (
    <Dialog.Root open>
      <Dialog.Content
        maxWidth="440px"
        onEscapeKeyDown={(event) => {
          event.preventDefault();
        }}
        onPointerDownOutside={(event) => {
          event.preventDefault();
        }}
      >
        <Dialog.Title>Sign in again</Dialog.Title>
        <Dialog.Description size="2" mb="4">
          {session.ended}
        </Dialog.Description>
        <Chunked what="The sign-in form" fallback={<Spinner />}>
          <SignInForm surface={surface} email={session.user.email} onSignedIn={() => undefined} />
        </Chunked>
      </Dialog.Content>
    </Dialog.Root>
  );
}
