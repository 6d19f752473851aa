// The operators' routes: Prometheus metrics, latency, decisions per minute, the status and latency pages, and /debug/feeds.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { PATHS } from '../../catalogue/published-facts.js';
import { readPackagedFile } from '../documents/packaged-file.js';
import { describeFailure, logFailure, type Logger } from '../../catalogue/failures.js';
import { errorResponse, json } from '../../http/responses.js';
import type { PlainRequest, PlainResponse, Route } from '../../http/types.js';
import type { FeedReader } from '../../observability/feed-report.js';
import type { LatencyBook } from '../../observability/latency-book.js';
import type { Metrics } from '../../observability/metrics.js';
import { latencyPage, statusPage } from '../../observability/pages.js';
import type { DecisionsReport } from '../../schemas/operations.js';

export interface OperationsDeps {
  metrics: Metrics;
  latency: LatencyBook;
  feeds: FeedReader | null;
  adminToken: string | null;
  now: () => number;
  log: Logger;
}

const html = (text: string): PlainResponse => ({ status: 200, raw: { contentType: 'text/html; charset=utf-8', text } });

export function operationsRoutes(deps: OperationsDeps): Route[] {
  const pages = { status: html(statusPage()), latency: html(latencyPage()) };
  const assets = chartAssets();
  return [
    { method: 'get', pattern: PATHS.metrics, handler: async () => ({ status: 200, raw: { contentType: deps.metrics.contentType, text: await deps.metrics.text() } }) },
    { method: 'get', pattern: PATHS.latency, handler: () => json(200, { generated_at: new Date(deps.now()).toISOString(), unit: 'ms', routes: deps.latency.summaries() }) },
    { method: 'get', pattern: PATHS.decisions, handler: () => json(200, decisionsReport(deps)) },
    { method: 'get', pattern: PATHS.latencyPage, handler: () => pages.latency },
    { method: 'get', pattern: PATHS.statusPage, handler: () => pages.status },
    { method: 'get', pattern: PATHS.debugFeeds, handler: (request) => debugFeeds(deps, request) },
    ...[...assets].map(([name, asset]): Route => ({ method: 'get', pattern: `${PATHS.pageAssets}/${name}`, handler: () => ({ status: 200, raw: asset }) })),
  ];
}

function decisionsReport(deps: OperationsDeps): Static<typeof DecisionsReport> {
  const minutes = deps.metrics.decisionsPerMinute.lastHour().map(({ start, ...counts }) => ({ start: new Date(start).toISOString(), ...counts }));
  return { generated_at: new Date(deps.now()).toISOString(), minutes };
}

/**
 * No ADMIN_TOKEN: disabled (403, saying so). No header: 401. A wrong token: 403. Tokens are
 * compared as SHA-256 digests with timingSafeEqual, so neither length nor content leaks.
 */
async function debugFeeds(deps: OperationsDeps, request: PlainRequest): Promise<PlainResponse> {
  if (!deps.adminToken) return errorResponse('admin_disabled');
  const offered = request.headers['x-admin-token'];
  if (offered === undefined) return errorResponse('admin_token_missing');
  if (!sameSecret(offered, deps.adminToken)) return errorResponse('admin_token_invalid');
  if (!deps.feeds) return errorResponse('chain_not_configured');
  try {
    return json(200, await deps.feeds.report());
  } catch (error) {
    const failure = describeFailure(error);
    logFailure(deps.log, 'debug feeds', failure, error);
    return errorResponse(failure.code, `The feeds could not be read: ${failure.words}`);
  }
}

function sameSecret(offered: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(offered), digest(expected));
}

/** uPlot's script and styles, read once from the installed package: the pages work with no internet. */
function chartAssets(): Map<string, { contentType: string; text: Buffer }> {
  return new Map([
    ['uPlot.iife.min.js', { contentType: 'text/javascript; charset=utf-8', text: readPackagedFile('uplot/dist/uPlot.iife.min.js') }],
    ['uPlot.min.css', { contentType: 'text/css; charset=utf-8', text: readPackagedFile('uplot/dist/uPlot.min.css') }],
  ]);
}
