// The operator documentation (README.md and the guides in docs/) as the documentation tests read it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { headingSlugger } from './heading-slug.js';

export const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));

export interface MarkdownDocument {
  /** Repository path, e.g. `docs/x402.md`. */
  path: string;
  text: string;
}

/** README.md and every Markdown file in docs/. */
export function readDocuments(): MarkdownDocument[] {
  const guides = readdirSync(join(REPOSITORY, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`);
  return ['README.md', ...guides].map((path) => ({ path, text: readFileSync(join(REPOSITORY, path), 'utf8') }));
}

/** The lines outside fenced code blocks, numbered from 1. */
export function proseLines(text: string): { number: number; line: string }[] {
  const prose: { number: number; line: string }[] = [];
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced) prose.push({ number: index + 1, line });
  });
  return prose;
}

/** The anchors GitHub gives the document's headings. */
export function headingAnchors(text: string): Set<string> {
  const slug = headingSlugger();
  const anchors = new Set<string>();
  for (const { line } of proseLines(text)) {
    const heading = /^#{1,6} (.+)$/.exec(line);
    if (heading) anchors.add(slug(heading[1]));
  }
  return anchors;
}

/** Every link target that is neither a URL with a scheme nor inside code, with its line. */
export function relativeLinks(text: string): { number: number; target: string }[] {
  const links: { number: number; target: string }[] = [];
  for (const { number, line } of proseLines(text)) {
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:|^\/\//i.test(match[1])) links.push({ number, target: match[1] });
    }
  }
  return links;
}

/** Code as the document shows it: each fenced block's body and each inline code span. */
export function codeTexts(text: string): string[] {
  const blocks = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((match) => match[1]);
  const spans = proseLines(text).flatMap(({ line }) => codeSpans(line));
  return [...blocks, ...spans];
}

/** The inline code spans of a piece of Markdown, in order. */
export function codeSpans(markdown: string): string[] {
  return [...markdown.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
}

/** The body rows, as trimmed cells, of every table whose first header cell is `header`. */
export function tableRows(text: string, header: string): string[][] {
  const rows: string[][] = [];
  let inTable = false;
  for (const { line } of proseLines(text)) {
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    if (!line.startsWith('|')) inTable = false;
    else if (cells[0] === header) inTable = true;
    else if (inTable && !cells.every((cell) => /^-+$/.test(cell))) rows.push(cells);
  }
  return rows;
}
