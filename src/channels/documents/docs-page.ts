// /docs: Swagger UI from the installed swagger-ui-dist, served by this service and pointed at /openapi.json (works offline).
import { PATHS, SERVICE } from '../../catalogue/published-facts.js';
import { readPackagedFile } from './packaged-file.js';

export interface DocsAsset {
  path: string;
  kind: 'javascript' | 'css';
  text: Buffer;
}

const ASSETS = `${PATHS.docs}/assets`;
const BUNDLE = `${ASSETS}/swagger-ui-bundle.js`;
const STYLES = `${ASSETS}/swagger-ui.css`;
const INIT = `${ASSETS}/init.js`;

/**
 * Reads it from the package, so the page never needs another host. Only the core bundle
 * and its styles: Swagger UI's base layout needs neither the standalone preset nor the top bar.
 */
export function docsAssets(): DocsAsset[] {
  const packaged = (file: string) => readPackagedFile(`swagger-ui-dist/${file}`);
  return [
    { path: BUNDLE, kind: 'javascript', text: packaged('swagger-ui-bundle.js') },
    { path: STYLES, kind: 'css', text: packaged('swagger-ui.css') },
    { path: INIT, kind: 'javascript', text: Buffer.from(INIT_SCRIPT) },
  ];
}

// A file rather than an inline script, so the page's policy can refuse every inline script. It runs
// deferred, after the page is parsed, and reads the document's URL from the page, which states it.
// validatorUrl null: Swagger UI would otherwise send the document to a validator on another host.
const INIT_SCRIPT = `var root = document.getElementById('swagger-ui');
window.ui = SwaggerUIBundle({
  url: root.dataset.openapi,
  domNode: root,
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout'
});
`;

/** The page; asset and document URLs are paths on whichever host served it. */
export function docsPage(): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${SERVICE.name}: API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${STYLES}">
<script src="${BUNDLE}" defer></script>
<script src="${INIT}" defer></script>
</head>
<body>
<div id="swagger-ui" data-openapi="${PATHS.openapi}"></div>
<noscript><p>This reference needs JavaScript. The description itself is <a href="${PATHS.openapi}">${PATHS.openapi}</a> (OpenAPI 3.1).</p></noscript>
</body>
</html>
`;
}
