/**
 * The JSON log stream when whoever reads stdout goes away (a log shipper that
 * crashed, `… | head`): the service loses its log lines, not its life, and a
 * later exit still ends the process instead of retrying the write forever.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const logger = fileURLToPath(new URL('../../server/runtime/logger.ts', import.meta.url));

// Logs a line every millisecond for 1.5 s, says so on stderr, then exits with 0.
const program = `
const { createLogger } = await import(${JSON.stringify(logger)});
const log = createLogger('info', undefined, 'json');
const started = Date.now();
while (Date.now() - started < 1500) {
  log.info({ padding: 'x'.repeat(512) }, 'a line');
  await new Promise((resolve) => setTimeout(resolve, 1));
}
process.stderr.write('still running after its reader left\\n');
log.info('the last line');
process.exit(0);
`;

describe('JSON logs on a stdout nobody reads any more', () => {
  it('keeps the process running and lets it exit', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The reader leaves after the first lines: the pipe's read end closes, the next writes fail with EPIPE.
    child.stdout.once('data', () => child.stdout.destroy());

    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the process did not exit:\n${stderr}`));
      }, 20_000);
      child.on('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(stderr).toContain('still running after its reader left');
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  }, 30_000);
});
