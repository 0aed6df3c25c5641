/**
 * The code samples of the guides (docs/guides/*.md), as the guides' test runs
 * them. In a guide:
 *
 * - a ```` ```sh ```` block that calls `curl` or the merchant CLI (`npx payments`)
 *   runs in bash (`set -euo pipefail`) with `$PAYMENTS_URL` and
 *   `$PAYMENTS_API_KEY`; variables it sets are kept for the guide's next
 *   blocks (so a guide can create a payment, then refund it);
 * - a ```` ```ts ```` block runs with tsx, importing `@service-payments/sdk`;
 * - a ```` ```http ```` block right after an `sh` sample is the answer of its
 *   last curl call: the status line, then the JSON body; a ```` ```json ````
 *   block right after a `ts` sample is what it prints. The actual answer must
 *   have that status and every key shown, with the values shown (a string
 *   with `…` stands for any text in its place; an ISO timestamp for any timestamp);
 * - a block that cannot run in CI (a deploy, the CLI's long-running listen)
 *   says so in its info string: ```` ```sh no-run ````. An `sh` block that
 *   calls neither curl nor the CLI and does not say `no-run` is an error:
 *   nothing is skipped silently.
 */
import { Marked, type Token, type Tokens } from 'marked';

export type SampleKind = 'sh' | 'ts';

export interface Sample {
  guide: string;
  kind: SampleKind;
  code: string;
  /** 1-based line of the block in its file, for failure messages. */
  line: number;
  noRun: boolean;
  /** The documented answer that follows it, if any. */
  output?: { lang: 'http' | 'json'; text: string };
}

const SHELL = new Set(['sh', 'bash', 'shell', 'console']);
const TYPESCRIPT = new Set(['ts', 'typescript']);

/** Every fenced block of a guide, in order, with its line. */
function codeBlocks(markdown: string): { lang: string; info: string[]; text: string; line: number }[] {
  const blocks: { lang: string; info: string[]; text: string; line: number }[] = [];
  const marked = new Marked();
  let searchFrom = 0;
  marked.walkTokens(marked.lexer(markdown), (token: Token) => {
    if (token.type !== 'code' || (token as Tokens.Code).codeBlockStyle === 'indented') return;
    const code = token as Tokens.Code;
    const at = markdown.indexOf(code.raw.trimStart(), searchFrom);
    searchFrom = at >= 0 ? at + 1 : searchFrom;
    const info = (code.lang ?? '').trim().split(/\s+/).filter(Boolean);
    blocks.push({ lang: info[0] ?? '', info: info.slice(1), text: code.text, line: markdown.slice(0, Math.max(at, 0)).split('\n').length });
  });
  return blocks;
}

/** Whether a shell sample talks to the service: with curl, or with the merchant CLI. */
export function callsService(code: string): boolean {
  return /\bcurl\b/.test(code) || /\bnpx payments(?![\w-])/.test(code);
}

/** The samples of one guide, or the reasons its blocks break the rules above. */
export function samplesOf(guide: string, markdown: string): { samples: Sample[]; problems: string[] } {
  const samples: Sample[] = [];
  const problems: string[] = [];
  const blocks = codeBlocks(markdown);
  blocks.forEach((block, i) => {
    const kind: SampleKind | null = SHELL.has(block.lang) ? 'sh' : TYPESCRIPT.has(block.lang) ? 'ts' : null;
    if (!kind) return;
    const noRun = block.info.includes('no-run');
    if (kind === 'sh' && !noRun && !callsService(block.text)) {
      problems.push(`${guide}:${block.line}: an sh block without curl must say \`sh no-run\` (or call curl)`);
    }
    const next = blocks[i + 1];
    const outputLang = kind === 'sh' ? 'http' : 'json';
    const output = next?.lang === outputLang ? { lang: outputLang, text: next.text } : undefined;
    samples.push({ guide, kind, code: block.text, line: block.line, noRun, output } as Sample);
  });
  return { samples, problems };
}

export interface DocumentedAnswer {
  status?: number;
  body?: unknown;
}

/** A documented `http` answer (status line, blank line, JSON) or `json` output. */
export function parseDocumented(output: NonNullable<Sample['output']>): DocumentedAnswer {
  if (output.lang === 'json') return { body: JSON.parse(output.text) };
  const [head, ...rest] = output.text.split(/\n\s*\n/);
  const status = /^HTTP\/[\d.]+ (\d{3})/.exec(head ?? '')?.[1];
  if (!status) throw new Error(`an http answer must start with its status line: ${head}`);
  const bodyText = rest.join('\n\n').trim();
  return { status: Number(status), body: bodyText ? JSON.parse(bodyText) : undefined };
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** Where `actual` differs from what the guide shows (empty when it matches). */
export function mismatches(documented: unknown, actual: unknown, path = '$'): string[] {
  if (documented === null || typeof documented !== 'object') {
    if (typeof documented === 'string' && typeof actual === 'string') {
      if (TIMESTAMP.test(documented) && TIMESTAMP.test(actual)) return [];
      if (documented.includes('…')) {
        const [before, after] = [documented.slice(0, documented.indexOf('…')), documented.slice(documented.lastIndexOf('…') + 1)];
        return actual.startsWith(before) && actual.endsWith(after) && actual.length >= before.length + after.length
          ? []
          : [`${path}: ${JSON.stringify(actual)} does not look like ${JSON.stringify(documented)}`];
      }
    }
    return Object.is(documented, actual) ? [] : [`${path}: the guide shows ${JSON.stringify(documented)}, the service answered ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(documented)) {
    if (!Array.isArray(actual)) return [`${path}: the guide shows a list, the service answered ${JSON.stringify(actual)}`];
    return documented.flatMap((item, i) => (i < actual.length ? mismatches(item, actual[i], `${path}[${i}]`) : [`${path}[${i}]: missing`]));
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: the guide shows an object, the service answered ${JSON.stringify(actual)}`];
  return Object.entries(documented).flatMap(([key, value]) =>
    key in actual ? mismatches(value, (actual as Record<string, unknown>)[key], `${path}.${key}`) : [`${path}.${key}: missing from the answer`],
  );
}
