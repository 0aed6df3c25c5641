/**
 * `payments-admin users …`: dashboard users. The password never travels as a
 * flag (it would land in shell history and in `ps`): it is typed at a prompt
 * that does not echo it, or read from stdin with --password-stdin.
 */
import type { Command } from 'commander';
import { MEMBER_ROLES, PASSWORD_MAX, PASSWORD_MIN, type MemberRole } from '../server/contract/people';
import { CliError } from './errors';
import { examples, type CliTools } from './tools';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  // One trailing line break is the shell's, not the password's (`echo … |`, a file ending in a newline).
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Reads a line from the terminal without echoing it. */
function prompt(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(question);
    let typed = '';
    stdin.setRawMode(true);
    stdin.resume();
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (data: Buffer) => {
      for (const char of data.toString('utf8')) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new CliError('usage', 'cancelled'));
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}

async function newPassword(fromStdin: boolean): Promise<string> {
  let password: string;
  if (fromStdin || !process.stdin.isTTY) {
    password = await readStdin();
  } else {
    password = await prompt('Password for the new user: ');
    if ((await prompt('Repeat it: ')) !== password) throw new CliError('usage', 'the two passwords differ');
  }
  if ([...password].length < PASSWORD_MIN || [...password].length > PASSWORD_MAX) {
    throw new CliError('invalid', `the password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long`);
  }
  return password;
}

export function registerUserCommands(program: Command, { client, run, oneOf }: CliTools): void {
  const users = program.command('users').description('dashboard users: who logs in, platform operators, members of organizations');
  examples(
    users
      .command('create')
      .description('create a dashboard user; the password is prompted for (not echoed), or read from stdin')
      .requiredOption('--email <email>', 'their e-mail, the login')
      .option('--operator', 'a platform operator: organizations, billing and quotas, every organization')
      .option('--password-stdin', 'read the password from stdin instead of prompting')
      .action(
        run(async (o: { email: string; operator?: boolean; passwordStdin?: boolean }) => {
          const password = await newPassword(Boolean(o.passwordStdin));
          return client().users.create.mutate({ email: o.email, password, platformOperator: Boolean(o.operator) });
        }),
      ),
    'users create --email ana@example.com --operator',
    'users create --email ci@example.com --password-stdin < password.txt',
  );
  examples(
    users
      .command('list')
      .description('every dashboard user, oldest first; "2fa" says whether they log in with a second factor')
      .action(run(async () => client().users.list.query(), { id: 'id', email: 'email', platformOperator: 'operator', disabled: 'disabled', secondFactor: '2fa', createdAt: 'created' })),
    'users list',
  );
  examples(
    users
      .command('add-member')
      .description('give an existing user a role in an organization at once (operators only; anyone else: invite)')
      .requiredOption('--org <organizationId>')
      .requiredOption('--email <email>')
      .requiredOption('--role <role>', MEMBER_ROLES.join('|'), oneOf(MEMBER_ROLES))
      .action(run(async (o: { org: string; email: string; role: MemberRole }) => client().members.add.mutate({ organizationId: o.org, email: o.email, role: o.role }))),
    'users add-member --org org_… --email ana@example.com --role owner',
  );
  examples(
    users
      .command('invite')
      .description('mail an invitation to join an organization; nobody joins until they accept (the link is printed only when mail goes to the local outbox)')
      .requiredOption('--org <organizationId>')
      .requiredOption('--email <email>')
      .requiredOption('--role <role>', MEMBER_ROLES.join('|'), oneOf(MEMBER_ROLES))
      .action(run(async (o: { org: string; email: string; role: MemberRole }) => client().members.invite.mutate({ organizationId: o.org, email: o.email, role: o.role }))),
    'users invite --org org_… --email ana@example.com --role owner',
  );
  examples(
    users.command('members <organizationId>').description("an organization's members and pending invitations").action(run(async (organizationId: string) => client().members.list.query({ organizationId }))),
    'users members org_…',
  );
  examples(
    users
      .command('disable <userId>')
      .description('stop a user from logging in; their sessions end at once')
      .action(run(async (userId: string) => client().users.setDisabled.mutate({ userId, disabled: true }))),
    'users disable usr_…',
  );
  examples(
    users.command('enable <userId>').description('let a disabled user log in again').action(run(async (userId: string) => client().users.setDisabled.mutate({ userId, disabled: false }))),
    'users enable usr_…',
  );
  const secondFactor = users.command('second-factor').description("a user's second factor (authenticator app and recovery codes)");
  examples(
    secondFactor
      .command('reset <email>')
      .description('remove the second factor of a user who lost their phone and recovery codes; their sessions end, and they log in with the password alone (then enrol again)')
      .action(run(async (email: string) => client().users.resetSecondFactor.mutate({ email }))),
    'users second-factor reset ana@example.com',
  );
}
