// The operators' pages: /status (the status document as a table and the decisions chart, refreshing) and /latency.html (charts).
import { PATHS, SERVICE } from '../catalogue/published-facts.js';

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1b1f24}
table{border-collapse:collapse;width:100%;margin:1rem 0}th,td{border:1px solid #d0d7de;padding:.35rem .6rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}.ok{color:#1a7f37;font-weight:600}.degraded{color:#9a6700;font-weight:600}.down{color:#cf222e;font-weight:600}
code{font-size:90%}nav a{margin-right:1rem}`;

function page(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title} - ${SERVICE.name}</title><style>${STYLE}</style>${head}</head>
<body><nav><a href="${PATHS.statusPage}">Status</a><a href="${PATHS.latencyPage}">Latency</a><a href="${PATHS.docs}">API</a><a href="${PATHS.methodologyHtml}">Methodology</a></nav>
${body}</body></html>
`;
}

/** Every 5 s the page reads /status.json again and redraws: one row per component, one per route. */
export function statusPage(): string {
  const script = `
const esc = (v) => String(v ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const details = (c) => Object.entries(c).filter(([k]) => !['status', 'reason'].includes(k))
  .map(([k, v]) => esc(k) + ': ' + esc(typeof v === 'object' ? JSON.stringify(v) : v)).join('<br>');
async function refresh() {
  try {
    const s = await (await fetch(${JSON.stringify(PATHS.status)}, { cache: 'no-store' })).json();
    document.getElementById('overall').className = s.status;
    document.getElementById('overall').textContent = s.status + (s.reasons && s.reasons.length ? ': ' + s.reasons.join('; ') : '');
    document.getElementById('meta').textContent = 'version ' + s.version + ', up ' + s.uptime_seconds + ' s, checked ' + s.checked_at;
    document.getElementById('components').innerHTML = Object.entries(s.components).map(([name, c]) =>
      '<tr data-component="' + esc(name) + '"><td>' + esc(name) + '</td><td class="' + esc(c.status) + '">' + esc(c.status) + '</td><td>' + esc(c.reason) + '</td><td>' + details(c) + '</td></tr>').join('');
    document.getElementById('traffic').innerHTML = Object.entries(s.traffic).map(([route, t]) =>
      '<tr><td><code>' + esc(route) + '</code></td><td>' + t.count + '</td><td>' + t.p50_ms + '</td><td>' + t.p99_ms + '</td></tr>').join('')
      || '<tr><td colspan="4">no requests in the last minute</td></tr>';
  } catch (error) {
    document.getElementById('overall').className = 'down';
    document.getElementById('overall').textContent = 'the status document could not be read';
  }
}
refresh();
setInterval(refresh, 5000);
${DECISIONS_CHART}`;
  return page('Status', `<h1>${SERVICE.name}: <span id="overall">loading</span></h1>
<p id="meta"></p>
<h2>Components</h2>
<table><thead><tr><th>component</th><th>status</th><th>reason</th><th>details</th></tr></thead><tbody id="components"></tbody></table>
<h2>Decisions per minute, the last hour</h2>
<div id="decisions"></div>
<p>This instance's verdicts by decision, from <a href="${PATHS.decisions}">${PATHS.decisions}</a>; latency by route is on <a href="${PATHS.latencyPage}">${PATHS.latencyPage}</a>.</p>
<h2>Requests in the last minute</h2>
<table><thead><tr><th>route</th><th>requests</th><th>p50 ms</th><th>p99 ms</th></tr></thead><tbody id="traffic"></tbody></table>
<p>The same as JSON: <a href="${PATHS.status}">${PATHS.status}</a>. Refreshes every 5 seconds.</p>
<script>${script}</script>`, CHART_HEAD);
}

/** uPlot, served from the installed package like every page asset. */
const CHART_HEAD = `<link rel="stylesheet" href="${PATHS.pageAssets}/uPlot.min.css"><script src="${PATHS.pageAssets}/uPlot.iife.min.js"></script>`;

/**
 * The status page's chart: allow, warn and deny per minute over the last hour (x: the minute, y:
 * verdicts), read from /metrics/decisions.json as the latency page reads its feed. The totals are
 * kept on the chart's element, so a reader (or a test) sees what was drawn.
 */
const DECISIONS_CHART = `
let decisionsChart = null;
async function drawDecisions() {
  const doc = await (await fetch(${JSON.stringify(PATHS.decisions)}, { cache: 'no-store' })).json();
  const kinds = [['allow', '#1a7f37'], ['warn', '#9a6700'], ['deny', '#cf222e']];
  const data = [doc.minutes.map((m) => Date.parse(m.start) / 1000), ...kinds.map(([kind]) => doc.minutes.map((m) => m[kind]))];
  const target = document.getElementById('decisions');
  for (const [kind] of kinds) target.dataset[kind] = String(doc.minutes.reduce((sum, m) => sum + m[kind], 0));
  if (decisionsChart) decisionsChart.destroy();
  decisionsChart = new uPlot({ width: Math.min(1000, target.clientWidth || 900), height: 260,
    axes: [{}, { label: 'verdicts per minute' }],
    series: [{ label: 'minute' }, ...kinds.map(([kind, color]) => ({ label: kind, stroke: color, width: 2, points: { show: true, size: 5 } }))] }, data, target);
  target.dataset.drawn = doc.generated_at;
}
drawDecisions().catch(() => { document.getElementById('decisions').textContent = 'the decisions could not be read'; });
setInterval(() => drawDecisions().catch(() => undefined), 5000);`;

/** Percentile curves per route (x: percentile, y: milliseconds) drawn with uPlot, and the numbers as a table. */
export function latencyPage(): string {
  const script = `
const PCTS = [['p50_ms', 50], ['p90_ms', 90], ['p99_ms', 99], ['p999_ms', 99.9]];
const COLORS = ['#0969da', '#cf222e', '#1a7f37', '#9a6700', '#8250df', '#bc4c00', '#1b7c83', '#6e7781'];
let chart = null;
async function draw(windowName) {
  const doc = await (await fetch(${JSON.stringify(PATHS.latency)}, { cache: 'no-store' })).json();
  const routes = Object.entries(doc.routes).filter(([, w]) => w[windowName].count > 0);
  document.getElementById('table').innerHTML = routes.map(([route, w]) => {
    const s = w[windowName];
    return '<tr><td><code>' + route.replace(/</g, '&lt;') + '</code></td><td>' + s.count + '</td><td>' + s.p50_ms + '</td><td>' + s.p90_ms + '</td><td>' + s.p99_ms + '</td><td>' + s.p999_ms + '</td><td>' + s.max_ms + '</td></tr>';
  }).join('') || '<tr><td colspan="7">no requests in this window yet</td></tr>';
  const data = [PCTS.map(([, x]) => x), ...routes.map(([, w]) => PCTS.map(([key]) => w[windowName][key]))];
  const series = [{ label: 'percentile' }, ...routes.map(([route], i) => ({ label: route, stroke: COLORS[i % COLORS.length], width: 2, points: { show: true, size: 7 } }))];
  if (chart) chart.destroy();
  const target = document.getElementById('chart');
  target.dataset.points = String(routes.length * PCTS.length);
  chart = new uPlot({ width: Math.min(1000, target.clientWidth || 900), height: 360, scales: { x: { time: false } },
    axes: [{ label: 'percentile' }, { label: 'ms' }], series }, data, target);
}
let current = '1m';
for (const button of document.querySelectorAll('button[data-window]')) {
  button.addEventListener('click', () => { current = button.dataset.window; draw(current); });
}
draw(current);
setInterval(() => draw(current), 10000);`;
  return page('Latency', `<h1>Latency by route</h1>
<p>From the service's own HDR histograms, recorded at the edge from request to response. Window:
<button data-window="1m">1 minute</button> <button data-window="5m">5 minutes</button> <button data-window="1h">1 hour</button></p>
<div id="chart"></div>
<table><thead><tr><th>route</th><th>requests</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th></tr></thead><tbody id="table"></tbody></table>
<p>As JSON: <a href="${PATHS.latency}">${PATHS.latency}</a>; for Prometheus: <a href="${PATHS.metrics}">${PATHS.metrics}</a>.</p>
<script>${script}</script>`, CHART_HEAD);
}
