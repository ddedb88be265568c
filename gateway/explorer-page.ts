import { gzipSync } from 'node:zlib'
import { renderGraphiQL } from '@graphql-yoga/render-graphiql'

/** The explorer page, ready to send: the HTML and its gzip encoding. */
export interface ExplorerPage {
  html: string
  gzip: Buffer
}

const DEFAULT_QUERY = `# Tessera — one graph over every interface.
# Put your credential in Headers below: { "Authorization": "Bearer tsr_…" }
# The Docs button lists every query, mutation and subscription; Ctrl-Space completes.
{
  __typename
}
`

/**
 * GraphiQL for /graphql, served from the installed package (its scripts are inlined, so the
 * page loads nothing from elsewhere and works on closed networks): docs explorer,
 * autocompletion, a headers editor for the credential, and subscriptions over graphql-ws on
 * the same path. About 9 MB, so it is built once and kept gzip-encoded too.
 */
export function createExplorerPage(): () => ExplorerPage {
  let page: ExplorerPage | undefined
  return () => {
    if (!page) {
      const html = renderGraphiQL({
        title: 'Tessera explorer',
        endpoint: '/graphql',
        subscriptionsProtocol: 'WS',
        defaultQuery: DEFAULT_QUERY,
        headers: JSON.stringify({ Authorization: 'Bearer ' }, null, 2),
        isHeadersEditorEnabled: true,
        defaultEditorToolsVisibility: 'headers',
        // No persisted headers: a credential typed here is not left in the browser's storage.
        shouldPersistHeaders: false,
      })
      page = { html, gzip: gzipSync(html) }
    }
    return page
  }
}
