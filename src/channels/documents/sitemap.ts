// /sitemap.xml (sitemaps.org 0.9): every public document at its absolute URL.
import { PUBLIC_DOCUMENTS } from './public-documents.js';

export function sitemapXml(baseUrl: string): string {
  const urls = PUBLIC_DOCUMENTS.map((document) => `  <url><loc>${escapeXml(`${baseUrl}${document.path}`)}</loc></url>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...urls,
    '</urlset>',
    '',
  ].join('\n');
}

/** PUBLIC_BASE_URL is the operator's; a `&` in it must still leave the XML well-formed. */
function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}
