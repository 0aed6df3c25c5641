/** What every answer to hostile input must look like, and raw-socket requests for what fetch cannot send. */
import { connect } from 'node:net';
import { expect } from 'vitest';
import { ERROR_CATALOGUE } from '../../server/contract/errors';
import { OPERATOR_ERRORS } from '../../server/operator/operator-answers';

/** Codes the inbound gateway webhook answers with (outside the /v1 catalogue). */
const WEBHOOK_CODES: Record<string, readonly string[]> = {
  malformed_payload: [],
  missing_signature: [],
  invalid_signature: [],
  stale_timestamp: [],
  retry_later: [],
};

/** Extra fields allowed for a code, wherever it was answered. */
function allowedExtras(code: string): readonly string[] | undefined {
  if (code in ERROR_CATALOGUE) return ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].extra;
  if (code in OPERATOR_ERRORS) return code === 'invalid_input' ? ['issues'] : [];
  return WEBHOOK_CODES[code];
}

const LEAKS: [RegExp, string][] = [
  [/\bat [\w$.<>]+ \(|\n\s+at /, 'a stack frame'],
  [/\/work\/|server\/[\w-]+\/|node_modules|\.ts:\d+/, 'a file path'],
  [/"code"\s*:/, 'a framework error code'],
  [/"(?:expected|received|origin|inclusive|keys|unionErrors|errors)"\s*:|ZodError|TRPC|DriverException|RangeError|TypeError|SyntaxError/, 'a library internal'],
  [/\bstack\b/i, 'the word stack'],
];

/** The problems of one answer (empty when it is fine). */
export function problemsOf(status: number, text: string, headers?: { get(name: string): string | null }): string[] {
  const problems: string[] = [];
  if (status >= 500) problems.push(`status ${status}`);
  for (const [pattern, what] of LEAKS) if (pattern.test(text)) problems.push(`leaks ${what}`);
  if (status >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      problems.push('error body is not JSON');
      return problems;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return [...problems, 'error body is not an object'];
    const { error, message, ...extra } = body as Record<string, unknown>;
    const allowed = typeof error === 'string' ? allowedExtras(error) : undefined;
    if (!allowed) problems.push(`unknown error code ${JSON.stringify(error)}`);
    if (message !== undefined && typeof message !== 'string') problems.push('message is not a string');
    for (const field of Object.keys(extra)) if (!allowed?.includes(field)) problems.push(`extra field ${field}`);
    if ('issues' in extra) {
      const issues = extra.issues;
      if (!Array.isArray(issues) || issues.some((issue) => typeof issue !== 'object' || issue === null || Object.keys(issue).sort().join() !== 'message,path')) {
        problems.push('issues are not {path, message}');
      }
    }
    if (status >= 500 && headers && !headers.get('x-request-id')) problems.push('no request id');
  }
  return problems;
}

export function expectSafe(reply: { status: number; text: string; headers?: { get(name: string): string | null } }, what = ''): void {
  expect(problemsOf(reply.status, reply.text, reply.headers), `${what} → ${reply.status} ${reply.text.slice(0, 300)}`).toEqual([]);
}

/** Sends raw bytes on a new connection and returns what came back (status and body), whatever it is. */
export function rawRequest(baseUrl: string, bytes: string | Buffer): Promise<{ status: number; text: string; raw: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => (chunks.length ? finish() : reject(error)));
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    let done = false;
    function finish() {
      if (done) return;
      done = true;
      const raw = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1] ?? 0);
      const separator = raw.indexOf('\r\n\r\n');
      let text = separator >= 0 ? raw.slice(separator + 4) : '';
      // Chunked answers: join the chunks' data.
      if (/\r\ntransfer-encoding: chunked/i.test(raw.slice(0, separator))) {
        let rest = text;
        text = '';
        for (;;) {
          const end = rest.indexOf('\r\n');
          const size = parseInt(rest.slice(0, end), 16);
          if (!size || end < 0) break;
          text += rest.slice(end + 2, end + 2 + size);
          rest = rest.slice(end + 2 + size + 2);
        }
      }
      resolve({ status, text, raw });
    }
    socket.write(bytes);
  });
}
