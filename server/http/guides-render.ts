/**
 * The guides' Markdown (docs/guides/NN-name.md, one file a topic, NN its
 * place in the navigation) rendered with marked into whole HTML pages that
 * share one navigation: every guide, and the API reference at /docs.
 *
 * - A link to another guide is written as its file (`[Webhooks](05-webhooks.md)`),
 *   so it also works when the Markdown is read on a forge; here it becomes
 *   the guide's page (`/docs/guides/webhooks`).
 * - Headings get ids (marked stopped making them in v8), so a section can be linked.
 * - The pages have no script and no inline style: their policy can forbid both.
 * - Code blocks keep only the first word of their info string as the language
 *   class: the rest (`sh no-run`) is for the samples' test, not for readers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Marked, type Tokens } from 'marked';

export const GUIDES_PATH = '/docs/guides';
export const REFERENCE_PATH = '/docs';

export interface Guide {
  /** The page's name in its URL: the file's name without its number and `.md`. */
  slug: string;
  file: string;
  title: string;
  /** The first paragraph, as plain text: the guide's line on the index. */
  summary: string;
  markdown: string;
}

const GUIDE_FILE = /^(\d+)-([a-z0-9-]+)\.md$/;

/** The guides of a folder, in their navigation order. */
export function readGuides(dir: string): Guide[] {
  return readdirSync(dir)
    .filter((file) => GUIDE_FILE.test(file))
    .sort()
    .map((file) => {
      const markdown = readFileSync(join(dir, file), 'utf8');
      const tokens = new Marked().lexer(markdown);
      const heading = tokens.find((token): token is Tokens.Heading => token.type === 'heading' && token.depth === 1);
      const paragraph = tokens.find((token): token is Tokens.Paragraph => token.type === 'paragraph');
      if (!heading) throw new Error(`docs/guides/${file} has no "# Title" heading`);
      return { slug: GUIDE_FILE.exec(file)![2]!, file, title: heading.text, summary: plain(paragraph?.text ?? ''), markdown };
    });
}

/** Markdown inline text as plain text (for the index's summaries and the <title>). */
function plain(text: string): string {
  return text.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*_]/g, '');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A heading's id: its text in lower case, words joined by dashes (as forges do). */
export function headingId(text: string): string {
  return plain(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s+/g, '-');
}

/** A guide's file name, as linked from another guide, to its page; other links are left alone. */
function guideHref(href: string): string {
  const match = /^(?:\.\/)?\d+-([a-z0-9-]+)\.md(#.*)?$/.exec(href);
  return match ? `${GUIDES_PATH}/${match[1]}${match[2] ?? ''}` : href;
}

function markedForGuides(): Marked {
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading({ tokens, depth, text }: Tokens.Heading) {
        return `<h${depth} id="${escapeHtml(headingId(text))}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      code({ text, lang }: Tokens.Code) {
        const language = (lang ?? '').match(/^\S*/)?.[0] ?? '';
        const attribute = language ? ` class="language-${escapeHtml(language)}"` : '';
        return `<pre><code${attribute}>${escapeHtml(text)}</code></pre>\n`;
      },
    },
    walkTokens(token) {
      if (token.type === 'link') token.href = guideHref(token.href);
    },
  });
  return marked;
}

function navigation(guides: Guide[], current: string | null): string {
  const item = (href: string, label: string, here: boolean) =>
    `<li><a href="${href}"${here ? ' aria-current="page"' : ''}>${escapeHtml(label)}</a></li>`;
  return [
    '<nav class="docs-nav" aria-label="Documentation">',
    `<p class="docs-home"><a href="${GUIDES_PATH}">Payments docs</a></p>`,
    '<h2>Guides</h2>',
    '<ul>',
    ...guides.map((guide) => item(`${GUIDES_PATH}/${guide.slug}`, guide.title, guide.slug === current)),
    '</ul>',
    '<h2>Reference</h2>',
    '<ul>',
    item(REFERENCE_PATH, 'API reference', false),
    item('/v1/openapi.json', 'OpenAPI document (JSON)', false),
    '</ul>',
    '</nav>',
  ].join('\n');
}

function page(title: string, nav: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Payments docs</title>
<link rel="stylesheet" href="${GUIDES_PATH}/guides.css">
</head>
<body>
${nav}
<main>
${main}
</main>
</body>
</html>
`;
}

export interface RenderedSite {
  /** Path → HTML, for the index and every guide. */
  pages: Map<string, string>;
  guides: Guide[];
}

/** Every page of the site, rendered once. */
export function renderSite(guides: Guide[]): RenderedSite {
  const marked = markedForGuides();
  const pages = new Map<string, string>();
  const index = [
    '<h1>Payments guides</h1>',
    '<p>Step-by-step guides for merchants integrating the payments API, from the first sandbox Pix to going live. ',
    `Every code sample in them runs in this service's CI against a started service. `,
    `Each route, field and error is described in the <a href="${REFERENCE_PATH}">API reference</a>.</p>`,
    '<ul class="guide-list">',
    ...guides.map((guide) => `<li><a href="${GUIDES_PATH}/${guide.slug}">${escapeHtml(guide.title)}</a><br>${escapeHtml(guide.summary)}</li>`),
    '</ul>',
  ].join('\n');
  pages.set(GUIDES_PATH, page('Guides', navigation(guides, null), index));
  for (const guide of guides) {
    const html = marked.parse(guide.markdown, { async: false });
    pages.set(`${GUIDES_PATH}/${guide.slug}`, page(guide.title, navigation(guides, guide.slug), html));
  }
  return { pages, guides };
}

export const GUIDES_CSS = `:root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --bg: #fff; --side: #f6f8fa; --line: #d0d7de; --link: #0b5cad; --code: #f0f3f6; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9aa4ae; --bg: #0d1117; --side: #161b22; --line: #30363d; --link: #6cb6ff; --code: #1c2128; } }
* { box-sizing: border-box; }
body { margin: 0; display: grid; grid-template-columns: 17rem minmax(0, 1fr); min-height: 100vh; font: 16px/1.6 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); }
.docs-nav { background: var(--side); border-right: 1px solid var(--line); padding: 1.25rem 1rem; position: sticky; top: 0; height: 100vh; overflow-y: auto; }
.docs-nav h2 { font-size: .75rem; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 1.5rem 0 .4rem; }
.docs-nav ul { list-style: none; margin: 0; padding: 0; }
.docs-nav li a { display: block; padding: .2rem .5rem; border-radius: 6px; text-decoration: none; color: var(--fg); }
.docs-nav li a:hover { background: var(--code); }
.docs-nav a[aria-current="page"] { background: var(--code); font-weight: 600; color: var(--link); }
.docs-home { margin: 0; font-weight: 700; font-size: 1.1rem; }
.docs-home a { color: var(--fg); text-decoration: none; }
main { max-width: 52rem; padding: 1.5rem 2.5rem 4rem; }
h1 { font-size: 2rem; margin-top: .5rem; }
h2 { margin-top: 2.2rem; border-bottom: 1px solid var(--line); padding-bottom: .3rem; }
code { font: .9em/1.5 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; background: var(--code); padding: .1em .3em; border-radius: 4px; }
pre { background: var(--code); border: 1px solid var(--line); border-radius: 8px; padding: .9rem 1rem; overflow-x: auto; }
pre code { padding: 0; background: none; }
table { border-collapse: collapse; display: block; overflow-x: auto; }
th, td { border: 1px solid var(--line); padding: .35rem .6rem; text-align: left; vertical-align: top; }
th { background: var(--side); }
blockquote { margin: 0; padding: .2rem 1rem; border-left: 4px solid var(--line); color: var(--muted); }
.guide-list li { margin: .6rem 0; }
@media (max-width: 50rem) { body { grid-template-columns: 1fr; } .docs-nav { position: static; height: auto; border-right: 0; border-bottom: 1px solid var(--line); } main { padding: 1rem; } }
`;
