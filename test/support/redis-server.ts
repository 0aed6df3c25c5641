/**
 * A Redis of the test's own (`redis-server` on an ephemeral port, nothing
 * saved to disk), which the test can take away and bring back on the same
 * port, as an outage does. `persistent`: it saves its data when stopped and
 * loads it when started again, as a production Redis restarted with its
 * snapshot does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unusedPort } from './service-process';

export interface TestRedis {
  url: string;
  /** Stops it at once (SHUTDOWN NOSAVE: its data is lost; SAVE when persistent) and waits for the process to end. */
  stop(): Promise<void>;
  /** Starts it again on the same port and waits until it answers PING. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

/** Resolves once something on `port` answers PING with PONG; rejects after `timeoutMs`. */
async function answersPing(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pong = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.setTimeout(500, () => socket.destroy());
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
      socket.once('close', () => resolve(false));
    });
    if (pong) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startTestRedis(options: { persistent?: boolean } = {}): Promise<TestRedis> {
  const port = await unusedPort();
  const folder = mkdtempSync(join(tmpdir(), 'payments-redis-'));
  let child: ChildProcess | null = null;
  const start = async () => {
    // No automatic snapshots either way; a persistent one saves only when stopped (SHUTDOWN SAVE).
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', folder];
    child = spawn('redis-server', args, { stdio: 'ignore' });
    await answersPing(port, 10_000);
  };
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(options.persistent ? 'SHUTDOWN SAVE\r\n' : 'SHUTDOWN NOSAVE\r\n'));
      socket.once('error', () => resolve());
      socket.once('close', () => resolve());
    });
    // SHUTDOWN ends it within milliseconds; a Redis that ignored it is killed.
    const timer = setTimeout(() => running.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    child = null;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    async close() {
      await stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
