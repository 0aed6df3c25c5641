/** Small HTTP helpers over undici's fetch, returning status, headers and parsed JSON. */
import { fetch } from 'undici';

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers as unknown as Headers, body: parsed, text };
}

export const validPayment = (overrides: Record<string, unknown> = {}) => ({
  amount: 1990,
  method: 'pix',
  externalId: `order-${Math.random().toString(36).slice(2)}`,
  customer: { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' },
  ...overrides,
});
