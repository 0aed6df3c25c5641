import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const BIN = fileURLToPath(new URL('../../bin/payments-admin.js', import.meta.url));
const run = promisify(execFile);

/** Runs the operator CLI as its own process against a test service, as an operator would. */
export async function cli(service: { url: string; adminToken: string }, args: string[]): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, '--url', service.url, '--token', service.adminToken, '--json', ...args], {
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr, json: JSON.parse(stdout) };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', json: undefined };
  }
}
