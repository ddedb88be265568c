import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

/** Where Debian (and Ubuntu's older packaging) put the browser. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser']

// No GPU, no sandbox (tests may run as root in a container), and nothing that reaches the
// network on its own: a page test must see only the requests its page makes.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** The Chromium executable: `CHROMIUM_PATH`, else Debian's. Throws when there is none. */
export function chromiumPath(): string {
  const configured = process.env.CHROMIUM_PATH
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH is ${configured}, which does not exist.`)
    return configured
  }
  const found = CANDIDATES.find((candidate) => existsSync(candidate))
  // A browser test that silently skipped would pass on a machine that never ran it.
  if (!found) {
    throw new Error(
      `Chromium was not found (looked at ${CANDIDATES.join(', ')}). Install Debian's package: ` +
        'apt-get install chromium (npm test installs it when run as root), or set CHROMIUM_PATH.',
    )
  }
  return found
}

/** A headless Chromium. Close it (`browser.close()`) when done. */
export async function launchChromium(options: { timeoutMs?: number } = {}): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ARGS, timeout: options.timeoutMs ?? 30_000 })
}
