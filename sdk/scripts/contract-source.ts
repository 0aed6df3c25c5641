/**
 * The text of `sdk/src/generated/contract.ts` for the contract as the server
 * defines it right now: the OpenAPI document is built in-process from the
 * tRPC router, exactly as `GET /v1/openapi.json` serves it.
 */
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../../server/contract/openapi';
import { v1Router } from '../../server/api/router';
import { renderContract, type OpenApiDocument } from './render-contract';

export const CONTRACT_FILE = fileURLToPath(new URL('../src/generated/contract.ts', import.meta.url));

export function currentContractSource(): string {
  // The base URL only appears in `servers`, which the types do not use.
  const document = buildOpenApiDocument(v1Router, 'http://localhost') as unknown as OpenApiDocument;
  return renderContract(document);
}
