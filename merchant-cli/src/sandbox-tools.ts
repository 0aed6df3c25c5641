/**
 * The service's sandbox tools a merchant's sandbox key may use without an
 * operator (server/http/internal-api.ts, KEY_PROCEDURES): trigger an event,
 * and simulate the outcome of a payment or refund of the key's own
 * environment. They are procedures of the operator API, called over its
 * plain HTTP form (POST, the input as the JSON body, `{result: {data}}` back),
 * so the CLI needs no tRPC client. A production key is refused by the
 * service (403 forbidden), another environment's id is not found (404).
 */
import { MerchantCliError, refusalOf, unreachable } from './errors';

const TIMEOUT_MS = 30_000;

export async function sandboxTool<T>(baseUrl: string, apiKey: string, procedure: string, input: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/internal/trpc/${procedure}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string }; name?: string }).cause?.code ?? ((error as { name?: string }).name === 'TimeoutError' ? 'no answer in time' : 'network error');
    throw unreachable(baseUrl, cause);
  }
  if (!response.ok) throw await refusalOf(response);
  const body = (await response.json().catch(() => null)) as { result?: { data?: T } } | null;
  if (!body?.result || !('data' in body.result)) throw new MerchantCliError('unexpected_response', `what answers at ${baseUrl} does not look like the payments service`, 5);
  return body.result.data as T;
}
