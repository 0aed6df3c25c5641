/**
 * Whoever reads stdout goes away (a log shipper that crashed, `npm start |
 * head -3`): the service loses its log lines and banner, not its life, and a
 * later exit still ends the process instead of retrying the write forever.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { holdsFor } from '../support/outbox-events';
import { exitWithin, spawnService, unusedPort } from '../support/service-process';

const logger = fileURLToPath(new URL('../../server/runtime/logger.ts', import.meta.url));

// Logs a line every millisecond (pacing, so each is its own write) until told on stdin that its reader
// left, then 200 more into the closed pipe (the first of them meets EPIPE), says so on stderr, and exits with 0.
const program = `
const { createLogger } = await import(${JSON.stringify(logger)});
const log = createLogger('info', undefined, 'json');
let readerLeft = false;
process.stdin.once('data', () => (readerLeft = true));
for (let after = 0; after < 200; after += readerLeft ? 1 : 0) {
  log.info({ padding: 'x'.repeat(512) }, 'a line');
  await new Promise((resolve) => setTimeout(resolve, 1));
}
process.stdin.destroy();
process.stderr.write('still running after its reader left\\n');
log.info('the last line');
process.exit(0);
`;

describe('JSON logs on a stdout nobody reads any more', () => {
  it('keeps the process running and lets it exit', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The reader leaves after the first lines: the pipe's read end closes, the next writes fail with EPIPE.
    child.stdout.once('data', () => {
      child.stdout.destroy();
      child.stdin.end('your reader left\n');
    });

    const code = await exitWithin(child, 20_000, () => stderr);
    expect(stderr).toContain('still running after its reader left');
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  }, 30_000);

  it('keeps the service answering when stdout is closed before its banner, and it still stops cleanly', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stdout-gone-'));
    const port = await unusedPort();
    const child = spawnService({ PORT: String(port), DATA_DIR: dataDir, LOG_FORMAT: 'json' });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.destroy();
    try {
      await readyAt(`http://127.0.0.1:${port}/v1/health`, child, () => stderr);
      // Still there after the banner was written into the closed pipe: only time can show it does not exit.
      await holdsFor(500, () => child.exitCode === null, 'the service running with its stdout closed');
      expect((await fetch(`http://127.0.0.1:${port}/v1/health`)).status).toBe(200);
      child.kill('SIGTERM');
      expect(await exitWithin(child, 20_000, () => stderr)).toBe(0);
      expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** Waits until the service's health answers 200 (503 while it starts), failing at once if it exits. */
async function readyAt(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${stderr()}`);
    const status = await fetch(url).then((response) => response.status, () => null);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the service never became ready:\n${stderr()}`);
}
