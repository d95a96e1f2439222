import { hash, verify } from '@node-rs/argon2';
import { AppError, tooLong } from '../errors.ts';

/**
 * argon2id with OWASP's recommended minimum (19 MiB of memory, 2 passes, 1 lane): about 50 ms a hash on one
 * core. The parameters are stored in each hash (a PHC string), so raising them later leaves old hashes valid.
 * argon2id is the library's default algorithm (its `Algorithm` is a const enum, which isolated modules cannot
 * name); a test checks that hashes are argon2id.
 */
const ARGON2ID = {
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

/** The shortest and longest password a person may choose. */
export const PASSWORD_LENGTH = { min: 10, max: 200 } as const;

/**
 * Refuses a password a person may not choose: shorter than 10 characters, longer than 200, or the e-mail
 * address itself. Throws BAD_USER_INPUT naming the field `password`.
 */
export function checkNewPassword(password: string, email: string): void {
  const { length } = password;
  if (length < PASSWORD_LENGTH.min) {
    throw new AppError(
      'BAD_USER_INPUT',
      `The password must have at least ${PASSWORD_LENGTH.min} characters.`,
      {
        field: 'password',
      },
    );
  }
  if (length > PASSWORD_LENGTH.max) {
    throw tooLong('The password', PASSWORD_LENGTH.max, { field: 'password' });
  }
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) {
    throw new AppError('BAD_USER_INPUT', 'The password must not be the e-mail address.', {
      field: 'password',
    });
  }
}

/** The argon2id hash of a password, as a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2ID);
}

/** A hash of no one's password: checked when there is no user, so that an unknown address takes as long. */
let decoy: Promise<string> | undefined;

/**
 * Whether `password` is the one `passwordHash` was made from. Without a hash (no such user, or one who has not
 * set a password yet) it checks a decoy and answers false, taking the same time as a wrong password.
 */
export async function passwordMatches(
  passwordHash: string | null | undefined,
  password: string,
): Promise<boolean> {
  if (passwordHash === null || passwordHash === undefined) {
    decoy ??= hashPassword('no one has this password');
    await verify(await decoy, password);
    return false;
  }
  return verify(passwordHash, password);
}
