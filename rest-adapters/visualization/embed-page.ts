import { escapeHtml } from '../../subgraphs/visualization/index.js'

/** What the embed page of a chart needs. */
export interface EmbedPageOptions {
  chartId: string
  title: string | undefined
  /** The chart's embed token: the page's credential for its spec and the stream. */
  token: string
  /** Path of the chart's Vega-Lite spec (with the token). */
  specPath: string
  /** Path of the stream WebSocket; the page makes it absolute from its own location. */
  streamPath: string
  /** Path prefix of the Vega and Vega-Lite bundles. */
  assetsPath: string
  /** Stream interval the page asks for, ms. */
  intervalMs: number
}

// JSON inside <script> must not be able to close the element.
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c')

/**
 * The live page `embed_code` points at: it draws the chart with Vega in the browser (so
 * tooltips work), subscribes to the chart stream with the chart's embed token, and draws the
 * chart again whenever a `data_update` carries a new version — cross-fading when the chart's
 * `animate` is on. Reconnects with back-off if the connection drops. Vega and Vega-Lite are
 * served by Tessera itself: the page loads nothing from elsewhere.
 */
export function embedPage(options: EmbedPageOptions): string {
  const settings = {
    chartId: options.chartId,
    token: options.token,
    specPath: options.specPath,
    streamPath: options.streamPath,
    intervalMs: options.intervalMs,
  }
  const title = escapeHtml(options.title || 'Chart')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>
  html, body { margin: 0; height: 100%; background: #fff; font-family: "DejaVu Sans", system-ui, sans-serif; }
  #chart { position: relative; }
  #chart > .frame { position: absolute; top: 0; left: 0; transition: opacity 300ms ease-in-out; }
  #status { position: fixed; right: 6px; bottom: 4px; margin: 0; font-size: 11px; color: #888; }
  #status[data-state="live"] { color: #3a7d44; }
</style>
<script src="${escapeHtml(options.assetsPath)}/vega.min.js"></script>
<script src="${escapeHtml(options.assetsPath)}/vega-lite.min.js"></script>
</head>
<body>
<div id="chart" role="img" aria-label="${title}"></div>
<p id="status" role="status" aria-live="polite">connecting…</p>
<script id="tessera-embed" type="application/json">${scriptJson(settings)}</script>
<script>
(() => {
  const settings = JSON.parse(document.getElementById('tessera-embed').textContent);
  const container = document.getElementById('chart');
  const status = document.getElementById('status');
  const state = { version: 0, drawing: Promise.resolve(), view: null, updates: 0 };
  window.tesseraEmbed = state;
  const say = (text, kind) => { status.textContent = text; status.dataset.state = kind; };

  async function draw(version) {
    const response = await fetch(settings.specPath, { cache: 'no-store' });
    if (!response.ok) throw new Error('spec ' + response.status);
    const { version: drawn, spec } = await response.json();
    if (drawn <= state.version) return;
    const animate = Boolean(spec.usermeta && spec.usermeta.tessera && spec.usermeta.tessera.animate);
    const frame = document.createElement('div');
    frame.className = 'frame';
    if (animate && state.view) frame.style.opacity = '0';
    container.style.width = spec.width + 'px';
    container.style.height = spec.height + 'px';
    container.appendChild(frame);
    const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'svg', container: frame, hover: true });
    await view.runAsync();
    const previous = state.view;
    const old = container.querySelectorAll('.frame');
    state.view = view;
    state.version = drawn;
    frame.dataset.version = String(drawn);
    const retire = () => { old.forEach((f) => { if (f !== frame) f.remove(); }); if (previous) previous.finalize(); };
    if (animate && previous) {
      requestAnimationFrame(() => { frame.style.opacity = '1'; });
      setTimeout(retire, 320);
    } else retire();
  }

  const redraw = (version) => { state.drawing = state.drawing.then(() => draw(version)).catch((e) => say('could not draw: ' + e.message, 'error')); };

  let backoff = 500;
  function connect() {
    const url = new URL(settings.streamPath, location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(url);
    socket.onopen = () => socket.send(JSON.stringify({ type: 'auth', token: settings.token }));
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === 'authenticated') socket.send(JSON.stringify({ type: 'subscribe', chart_id: settings.chartId, interval: settings.intervalMs }));
      else if (message.type === 'subscribed') { backoff = 500; say('live', 'live'); }
      else if (message.type === 'data_update') {
        state.updates++;
        if (message.version === undefined || message.version > state.version) redraw(message.version);
      } else if (message.type === 'error') {
        say(message.code === 'CHART_DELETED' ? 'this chart was deleted' : 'stream error: ' + message.message, 'error');
        if (message.code === 'CHART_DELETED' || message.code === 'NOT_FOUND') backoff = 0;
      }
    };
    socket.onclose = (event) => {
      if (backoff === 0 || event.code === 4401) return;
      say('reconnecting…', 'offline');
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 30000);
    };
  }

  redraw(undefined);
  connect();
})();
</script>
</body>
</html>
`
}
