import { AppError } from '../../src/errors.ts';

/**
 * The {@link AppError} a domain call is refused with; throws when it succeeds or fails otherwise.
 *
 * @example
 * expect((await refusal(issueCode(db, { linkId, proof, email }))).code).toBe('ADDRESS_NOT_LISTED');
 */
export async function refusal(work: Promise<unknown>): Promise<AppError> {
  const outcome = await work.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof AppError)) throw new Error(`expected an AppError, got ${String(outcome)}`);
  return outcome;
}
