/**
 * A small, self-contained GraphQL explorer (no CDN, so it works on closed networks): an
 * editor for the operation, variables and credential, the schema's root fields from
 * introspection, and subscriptions over graphql-ws (graphql-transport-ws) on the same path.
 */
export function explorerPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tessera explorer</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px system-ui,sans-serif;margin:0;display:grid;grid-template-columns:260px 1fr 1fr;height:100vh}
aside{border-right:1px solid #ddd;overflow:auto;padding:8px}main,section{display:flex;flex-direction:column;padding:8px;gap:6px;min-height:0}
textarea,pre{font:13px ui-monospace,monospace;border:1px solid #ccc;border-radius:4px;padding:6px}
#query{flex:3}#variables{flex:1}pre{flex:1;overflow:auto;margin:0;background:#fafafa;white-space:pre-wrap}
button{padding:6px 14px}h1{font-size:16px;margin:4px 0}h2{font-size:13px;margin:10px 0 2px;color:#555}li{cursor:pointer;font-family:monospace}
</style></head><body>
<aside><h1>Tessera</h1><div id="fields">Loading schema…</div></aside>
<main><label>Credential (API key or access token) <input id="credential" style="width:100%" placeholder="tsr_…"></label>
<textarea id="query" spellcheck="false">{ __typename }</textarea>
<label>Variables (JSON)</label><textarea id="variables" spellcheck="false">{}</textarea>
<div><button id="run">Run ▶</button> <button id="stop" disabled>Stop subscription</button></div></main>
<section><label>Result</label><pre id="result"></pre></section>
<script>
const $ = (id) => document.getElementById(id)
$('credential').value = localStorage.getItem('tessera.credential') || ''
const headers = () => { const c = $('credential').value.trim(); localStorage.setItem('tessera.credential', c); return c ? { authorization: 'Bearer ' + c } : {} }
const show = (v) => { $('result').textContent = typeof v === 'string' ? v : JSON.stringify(v, null, 2) }
let socket
async function run() {
  let variables
  try { variables = JSON.parse($('variables').value || '{}') } catch (e) { return show('Variables are not valid JSON: ' + e.message) }
  const query = $('query').value
  if (/^\\s*subscription\\b/.test(query)) return subscribe(query, variables)
  const res = await fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/json', ...headers() }, body: JSON.stringify({ query, variables }) })
  show(await res.json())
}
function subscribe(query, variables) {
  socket?.close()
  const url = location.origin.replace(/^http/, 'ws') + location.pathname
  socket = new WebSocket(url, 'graphql-transport-ws')
  const lines = []
  socket.onopen = () => socket.send(JSON.stringify({ type: 'connection_init', payload: headers() }))
  socket.onmessage = (m) => {
    const msg = JSON.parse(m.data)
    if (msg.type === 'connection_ack') socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables } }))
    if (msg.type === 'next' || msg.type === 'error') { lines.unshift(msg.payload); show(lines) }
    if (msg.type === 'complete') show(['complete', ...lines])
  }
  socket.onclose = (e) => { $('stop').disabled = true; if (e.code !== 1000) lines.unshift('socket closed ' + e.code + ' ' + e.reason) }
  $('stop').disabled = false
  show('subscribed; waiting for events…')
}
$('run').onclick = run
$('stop').onclick = () => socket?.close(1000)
fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: '{ __schema { queryType { fields { name } } mutationType { fields { name } } subscriptionType { fields { name } } } }' }) })
  .then((r) => r.json()).then(({ data, errors }) => {
    if (!data) return ($('fields').textContent = 'Introspection is off: ' + (errors?.[0]?.message || ''))
    const s = data.__schema
    $('fields').innerHTML = [['Query', s.queryType], ['Mutation', s.mutationType], ['Subscription', s.subscriptionType]]
      .filter(([, t]) => t).map(([n, t]) => '<h2>' + n + '</h2><ul>' + t.fields.map((f) => '<li data-op="' + n.toLowerCase() + '">' + f.name + '</li>').join('') + '</ul>').join('')
    for (const li of document.querySelectorAll('li')) li.onclick = () => { $('query').value = li.dataset.op + ' {\\n  ' + li.textContent + ' {\\n    __typename\\n  }\\n}' }
  })
</script></body></html>`
}
