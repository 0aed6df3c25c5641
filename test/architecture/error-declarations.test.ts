/**
 * One source for each route's error codes. Every domain module declares the
 * codes it raises (`raises([...])`), and a use case adds those of what it
 * calls; the routes document exactly their use case's codes. This test reads
 * the sources: a code raised in a module but not declared there, or declared
 * but never raised, fails it. The gateway calls' codes are those the core's
 * translation of gateway failures gives (domain/gateway-calls.ts); the
 * gateway layer itself, like the rest of the server but the /v1 edge, never
 * builds a contract error.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { v1Router } from '../../server/api/router';
import { buildOpenApiDocument } from '../../server/contract/openapi';
import { ERROR_CATALOGUE } from '../../server/contract/errors';
import { isRaises } from '../../server/domain/raises';

const SERVER = fileURLToPath(new URL('../../server/', import.meta.url));

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourcesUnder(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Codes a source file raises: every `new Refusal('<code>'` (operator refusals are written `operatorRefusal(…)`). */
function raisedIn(files: string[]): string[] {
  const codes = new Set<string>();
  for (const file of files) {
    for (const match of readFileSync(file, 'utf8').matchAll(/new Refusal\(\s*'([a-z_]+)'/g)) codes.add(match[1]!);
  }
  return [...codes].sort();
}

async function declaredOwn(file: string): Promise<string[]> {
  const module = (await import(file)) as Record<string, unknown>;
  // A declaration is exported by itself, or in a table of declarations (one per gateway operation).
  const declarations = Object.values(module).flatMap((value) =>
    isRaises(value) ? [value] : typeof value === 'object' && value !== null ? Object.values(value).filter(isRaises) : [],
  );
  return [...new Set(declarations.flatMap((declaration) => declaration.own))].sort();
}

type Document = { paths: Record<string, Record<string, { responses: Record<string, any> }>> };
const documented = () => buildOpenApiDocument(v1Router, 'http://localhost') as unknown as Document;

describe('error declarations', () => {
  const domainFiles = sourcesUnder(join(SERVER, 'domain')).filter((file) => !file.endsWith('gateway-calls.ts'));

  it.each(domainFiles.map((file) => [relative(SERVER, file), file]))('%s declares exactly the codes it raises', async (_name, file) => {
    expect(await declaredOwn(file)).toEqual(raisedIn([file]));
  });

  it('gateway calls declare exactly the codes the translation of gateway failures gives', async () => {
    const translation = join(SERVER, 'domain/gateway-calls.ts');
    expect(await declaredOwn(translation)).toEqual(raisedIn([translation]));
  });

  it('builds contract errors only at the /v1 edge: the domain refuses, the gateways fail', () => {
    const elsewhere = sourcesUnder(SERVER)
      .filter((file) => !/\/server\/(http|api|contract)\//.test(file))
      .filter((file) => /\bApiError\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SERVER, file));
    expect(elsewhere).toEqual([]);
  });

  it('every route documents only catalogue codes, with their status', () => {
    const document = documented();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const codes: string[] = response.content?.['application/json']?.schema?.allOf?.[1]?.properties?.error?.enum ?? [];
          for (const code of codes) {
            expect(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE]?.status, `${method} ${path} ${code}`).toBe(Number(status));
          }
        }
      }
    }
  });

  it('documents for each route exactly what its procedure declares', () => {
    const document = documented();
    for (const procedure of Object.values(v1Router._def.procedures) as { _def: { meta?: { openapi?: { method: string; path: string }; errors?: string[] } } }[]) {
      const meta = procedure._def.meta!;
      const operation = document.paths[meta.openapi!.path]![meta.openapi!.method.toLowerCase()]!;
      const codes = Object.values(operation.responses).flatMap(
        (response: any) => response.content?.['application/json']?.schema?.allOf?.[1]?.properties?.error?.enum ?? [],
      );
      expect(codes.sort(), meta.openapi!.path).toEqual([...(meta.errors ?? [])].sort());
    }
  });
});
