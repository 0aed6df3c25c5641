/**
 * The service as a newcomer or an operator runs it: its own process
 * (`server/main.ts` through tsx) with a data folder, started the way
 * `npm start` does, resolved once it says where it listens: the banner in
 * a terminal's format, or, with JSON logs (the default in a pipe), its
 * `listening` line, the demo key then read from the file that line names.
 */
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface ServiceProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  /** The demo's key; '' when the start seeded no demo (JSON logs: its `listening` line names no key file). */
  apiKey: string;
  output(): string;
  /** SIGTERM, resolving with the exit code. */
  stop(): Promise<number | null>;
}

/** No balancer reads a test process's /readyz: SIGTERM skips the drain unless SHUTDOWN_DRAIN_MS is given. */
export function spawnService(env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: root, env: { PATH: process.env.PATH ?? '', SHUTDOWN_DRAIN_MS: '0', ...env } });
}

/** `timeoutMs`: how long the start may take (tsx compiles the whole server first: a minute and more on a busy machine). */
export function startServiceProcess(env: Record<string, string>, timeoutMs = 45_000): Promise<ServiceProcess> {
  const child = spawnService({ PORT: '0', LOG_LEVEL: 'warn', ...env });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = listeningLine(output);
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1] ?? listening?.url;
      const demoKeyFile = listening ? listening.files.demoApiKey : undefined;
      const apiKey = /demo sandbox API key: (sk_test_\w+)/.exec(output)?.[1] ?? (demoKeyFile ? readFileSync(demoKeyFile, 'utf8').trim() : demoKeyFile === null ? '' : undefined);
      if (url && apiKey !== undefined) {
        clearTimeout(timer);
        resolve({
          child,
          url,
          apiKey,
          output: () => output,
          stop: () =>
            new Promise((done) => {
              child.once('exit', (code) => done(code));
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`service exited with ${code}:\n${output}`)));
  });
}

/** The JSON `listening` log line of a start, once written. */
export function listeningLine(output: string): { url: string; dashboard: string; files: Record<string, string | null> } | null {
  for (const line of output.split('\n')) {
    if (!line.includes('"listening"')) continue;
    try {
      const parsed = JSON.parse(line) as { msg?: string; url: string; dashboard: string; files: Record<string, string | null> };
      if (parsed.msg === 'listening') return parsed;
    } catch {
      // a partial line: not yet
    }
  }
  return null;
}

/** Resolves with the exit code once the process ends; kills it and fails after `ms`, showing `output()`. */
export function exitWithin(child: ChildProcess, ms: number, output: () => string): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the process did not exit within ${ms} ms:\n${output()}`));
    }, ms);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** A port nothing listens on right now (bound on 127.0.0.1 by the system, then released). */
export function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
