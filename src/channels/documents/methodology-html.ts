// The methodology as a web page: the Markdown of /.well-known/methodology.md rendered by marked, with a little CSS.
import { Marked, type Tokens } from 'marked';
import { SERVICE } from '../../catalogue/published-facts.js';

// GitHub-flavoured Markdown: the methodology's catalogues are pipe tables.
const markdown = new Marked({ gfm: true, async: false });

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; color: #1b1b1b; background: #fff; margin: 0; }
main { max-width: 64rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1, h2, h3 { line-height: 1.25; margin-top: 2rem; }
table { border-collapse: collapse; display: block; overflow-x: auto; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
code { font: 0.9em ui-monospace, monospace; background: #f4f4f4; padding: 0.1em 0.25em; border-radius: 3px; }
pre { background: #f4f4f4; padding: 0.75rem; overflow-x: auto; }
pre code { padding: 0; }
`;

/** A complete page; the title is the document's own first heading. */
export function methodologyHtml(source: string): string {
  const heading = markdown.lexer(source).find((token): token is Tokens.Heading => token.type === 'heading' && token.depth === 1);
  const title = heading ? `${heading.text} · ${SERVICE.name}` : SERVICE.name;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<main>',
    markdown.parse(source, { async: false }),
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
