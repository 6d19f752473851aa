// /robots.txt: every path may be crawled; the sitemap names the documents.
import { PATHS } from '../../catalogue/published-facts.js';

export function robotsTxt(baseUrl: string): string {
  return ['User-agent: *', 'Allow: /', '', `Sitemap: ${baseUrl}${PATHS.sitemap}`, ''].join('\n');
}
