/**
 * Prism's validating proxy (@stoplight/prism-cli) in front of a running
 * service: every request and answer passes through it, is forwarded as it is
 * (`--errors false`), and comes back with what Prism found wrong with either,
 * measured against the OpenAPI document, in the `sl-violations` header.
 * It needs no network: the document is a local file, the upstream is local.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fetch } from 'undici';

const PRISM = fileURLToPath(new URL('../../node_modules/@stoplight/prism-cli/dist/index.js', import.meta.url));

export interface Violation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

export interface PrismProxy {
  url: string;
  /** Everything Prism printed, for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

/** The violations Prism reported for one exchange (none when the header is absent). */
export function violationsOf(headers: { get(name: string): string | null }): Violation[] {
  const header = headers.get('sl-violations');
  return header ? (JSON.parse(header) as Violation[]) : [];
}

/** Probes until `attempt` gives a value (a failed probe counts as none), or throws past the deadline or once `gone()` says there is nothing left to wait for. */
async function waitUntil<T>(what: string, deadlineMs: number, gone: () => boolean, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (gone()) throw new Error(`${what}: Prism exited`);
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts Prism's proxy for `documentPath` on an ephemeral port and waits until it answers a request through to `upstream`. */
export async function startPrismProxy(documentPath: string, upstream: string): Promise<PrismProxy> {
  const child: ChildProcess = spawn(process.execPath, [PRISM, 'proxy', documentPath, upstream, '--host', '127.0.0.1', '--port', '0', '--errors', 'false', '--verboseLevel', 'info'], {
    // Scarf is the package's install-time analytics; nothing may reach out.
    env: { ...process.env, SCARF_ANALYTICS: 'false', NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout!.on('data', (chunk: Buffer) => void (printed += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => void (printed += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    // The port is known once Prism says where it listens; it is ready once a request goes through it.
    const gone = () => child.exitCode !== null || child.signalCode !== null;
    const url = await waitUntil('Prism did not say where it listens', 30_000, gone, async () => /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1]);
    await waitUntil('Prism did not forward a request', 15_000, gone, async () => ((await fetch(`${url}/v1/health`)).status === 200 ? true : undefined));
    return { url, output: () => printed, stop };
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${printed.slice(-2000)}`);
  }
}
