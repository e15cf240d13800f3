/**
 * The timeline webview's page. No vscode import, so a plain unit test can check its
 * Content-Security-Policy: nothing but the extension's own media/ files and one nonced script.
 */

/** Localized texts for the page, keyed like the English defaults in media/timeline.js. */
export type TimelineStrings = Readonly<Record<string, string>>;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The policy: no default source, styles and images from the webview's resource origin only, scripts by nonce only. */
export function contentSecurityPolicy(webviewCspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${webviewCspSource}`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${webviewCspSource}`,
  ].join('; ');
}

export function renderHtml(
  webviewCspSource: string,
  nonce: string,
  scriptUri: string,
  styleUri: string,
  title: string,
  strings: TimelineStrings = {},
): string {
  const csp = contentSecurityPolicy(webviewCspSource, nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(styleUri)}">
<title>${escapeHtml(title)}</title>
</head>
<body data-strings="${escapeHtml(JSON.stringify(strings))}">
<main>
<h1 class="title">${escapeHtml(title)}</h1>
<p class="figures" id="figures" role="status" aria-live="polite"></p>
<div class="legend" id="legend"></div>
<details class="definitions" id="definitions"></details>
<p class="empty" id="empty" hidden></p>
<div class="chart" id="chart"></div>
</main>
<script nonce="${escapeHtml(nonce)}" src="${escapeHtml(scriptUri)}"></script>
</body>
</html>
`;
}
