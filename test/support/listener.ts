/** `payments-admin webhook listen` as its own process, the way a developer runs it in a terminal. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/payments-admin.js', import.meta.url));

export interface Listener {
  child: ChildProcessWithoutNullStreams;
  /** The signing secret it printed (people's output or --json's `ready` line). */
  secret: string;
  output(): string;
  errors(): string;
  exited: Promise<number | null>;
  /** Ctrl-C, resolving with the exit code. */
  interrupt(): Promise<number | null>;
}

/**
 * Starts `payments-admin --url <url> [globalArgs] webhook listen [args]`;
 * resolves once it says it is ready with its secret, or rejects with its
 * exit code and what it printed on stderr (`{code, errors}`).
 */
export function startListener(url: string, args: string[], options: { globalArgs?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<Listener> {
  const child = spawn(process.execPath, [BIN, '--url', url, ...(options.globalArgs ?? []), 'webhook', 'listen', ...args], { env: options.env ?? process.env });
  let output = '';
  let errors = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`listener did not get ready:\n${output}${errors}`)), 30_000);
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const secret = /signing secret .*: (whsec_\w+)/.exec(output)?.[1] ?? /^\{"ready":true,.*"secret":"(whsec_\w+)"/m.exec(output)?.[1];
      if (/^(Ready! |\{"ready":true)/m.test(output) && secret) {
        clearTimeout(timer);
        resolve({
          child,
          secret,
          output: () => output,
          errors: () => errors,
          exited,
          interrupt: () => {
            child.kill('SIGINT');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`listener exited with ${code}: ${errors}`), { code, errors }));
    });
  });
}
