import { Argument, Option, type Command } from 'commander';
import type { Role } from '../accounts/roles.ts';
import type { CliIO } from './context.ts';
import { jsonOption, listCommand, OWNERS, plural, printResult, type ListLine, type Owner } from './output.ts';

/** A person as the CLI prints them (what the operations answer, as JSON). */
interface ListedUser {
  email: string;
  name: string;
  role: string;
  active: boolean;
  deactivatedAt?: string | null;
}

/** What an invitation answers: the person, how their mail went out, and until when its link works. */
interface Invited {
  user: { email: string; role: string };
  mail: { via: 'smtp'; messageId: string } | { via: 'file'; messageId: string; file: string };
  expiresAt: string;
}

/** What a reset of a person's factors answers: whose, the kinds removed, the sessions ended, how the mail went. */
interface ResetFactors {
  email: string;
  removed: string[];
  sessionsEnded: number;
  mail: Invited['mail'] | null;
}

/**
 * `<parent> users invite|list|role|remove|reset-factors`: the people who sign in to one owner's pages (an organization's
 * console, an instance's dashboard), the same commands for both (`remove` where the owner's pages remove people
 * rather than deactivate them), with the owner's roles.
 */
export function registerUserCommands<R extends Role>(
  parent: Command,
  io: CliIO,
  spec: {
    owner: Owner;
    /** What the pages are, e.g. "the console". */
    pages: string;
    roles: readonly R[];
    /** The roles in a few words, for `--role`'s help. */
    rolesHelp: string;
    /** The command that lists them, for the message of an owner without anyone, e.g. "portico org users invite". */
    inviteCommand: string;
    invite: (
      command: Command,
      owner: string,
      input: { email: string; role: R; name?: string | undefined },
    ) => Promise<Invited>;
    list: (command: Command, owner: string) => Promise<ListedUser[]>;
    /** `users role <email> <role>`: another role for a person (never leaving the owner without an admin). */
    role?: (command: Command, owner: string, input: { email: string; role: R }) => Promise<ListedUser>;
    /** `users remove <email>`: a person removed, their sessions ended (never the last admin). */
    remove?: (command: Command, owner: string, email: string) => Promise<ListedUser>;
    /** `users reset-factors <email>`: a person's second factors removed, their sessions ended, them mailed. */
    resetFactors: (command: Command, owner: string, email: string) => Promise<ResetFactors>;
  },
): void {
  const users = parent.command('users').description(`manage the people who sign in to ${spec.pages}`);
  const { flags, help } = OWNERS[spec.owner];
  users
    .command('invite')
    .description(`invite a person to ${spec.pages} by e-mail (the first admin, say)`)
    .requiredOption(flags, help)
    .requiredOption('--email <address>', 'who to invite')
    .addOption(new Option('--role <role>', spec.rolesHelp).choices(spec.roles).default('admin'))
    .option('--name <name>', "the person's name, shown to colleagues (they can set it themselves)")
    .addOption(jsonOption())
    .action(
      async (
        options: { email: string; role: R; name?: string; json?: boolean } & Partial<Record<Owner, string>>,
        command: Command,
      ) => {
        const owner = options[spec.owner] ?? '';
        const invited = await spec.invite(command, owner, {
          email: options.email,
          role: options.role,
          name: options.name,
        });
        printResult(io, invited, options, () =>
          [
            `Invited ${invited.user.email} to ${owner} as ${invited.user.role}.`,
            invited.mail.via === 'smtp'
              ? `The invitation went out through PORTICO_SMTP_URL (message id ${invited.mail.messageId}).`
              : `The invitation was written to ${invited.mail.file}, and its link logged: PORTICO_SMTP_URL is not set.`,
            `Its link works once, until ${invited.expiresAt}.`,
          ].join('\n'),
        );
      },
    );
  const { role, remove } = spec;
  if (role) {
    users
      .command('role')
      .description(
        `give a person of ${spec.pages} another role, from their next request (the last admin stays admin)`,
      )
      .argument('<email>', "the person's e-mail address")
      .addArgument(new Argument('<role>', spec.rolesHelp).choices(spec.roles))
      .requiredOption(flags, help)
      .addOption(jsonOption())
      .action(
        async (
          email: string,
          newRole: R,
          options: { json?: boolean } & Partial<Record<Owner, string>>,
          command: Command,
        ) => {
          const owner = options[spec.owner] ?? '';
          const changed = await role(command, owner, { email, role: newRole });
          printResult(io, changed, options, () => `${changed.email} is now ${changed.role} of ${owner}.`);
        },
      );
  }
  if (remove) {
    users
      .command('remove')
      .description(`remove a person from ${spec.pages}, ending their sessions (never the last admin)`)
      .argument('<email>', "the person's e-mail address")
      .requiredOption(flags, help)
      .addOption(jsonOption())
      .action(
        async (
          email: string,
          options: { json?: boolean } & Partial<Record<Owner, string>>,
          command: Command,
        ) => {
          const owner = options[spec.owner] ?? '';
          const removed = await remove(command, owner, email);
          printResult(
            io,
            removed,
            options,
            () => `Removed ${removed.email} from ${owner}: their sessions have ended.`,
          );
        },
      );
  }
  users
    .command('reset-factors')
    .description(
      `remove a person's second factors (authenticator app, recovery codes, passkeys) in ${spec.pages} and end their sessions: break-glass for one locked out`,
    )
    .argument('<email>', "the person's e-mail address")
    .requiredOption(flags, help)
    .addOption(jsonOption())
    .action(
      async (
        email: string,
        options: { json?: boolean } & Partial<Record<Owner, string>>,
        command: Command,
      ) => {
        const owner = options[spec.owner] ?? '';
        const reset = await spec.resetFactors(command, owner, email);
        printResult(io, reset, options, () =>
          [
            reset.removed.length === 0
              ? `${reset.email} of ${owner} had no second factor: nothing to remove.`
              : `Removed the second factors of ${reset.email} of ${owner} (${reset.removed.join(', ')}, and their recovery codes).`,
            `${plural(reset.sessionsEnded, 'session')} ended: they sign in with their password, and add an authenticator app again.`,
            reset.mail === null
              ? 'They could not be mailed about it: tell them yourself.'
              : reset.mail.via === 'smtp'
                ? `They were mailed about it through PORTICO_SMTP_URL (message id ${reset.mail.messageId}).`
                : `The mail telling them was written to ${reset.mail.file}: PORTICO_SMTP_URL is not set.`,
          ].join('\n'),
        );
      },
    );
  listCommand(users, io, 'list', {
    description: `list the people of ${spec.pages}`,
    [spec.owner]: spec.list,
    empty: (owner: string) => `${owner} has no users yet: invite one with "${spec.inviteCommand}".`,
    line: (user: ListedUser): ListLine => {
      const status = user.deactivatedAt ? 'deactivated' : user.active ? 'active' : 'invited';
      return [user.email, user.role, status, user.name];
    },
  } as Parameters<typeof listCommand<ListedUser>>[3]);
}
