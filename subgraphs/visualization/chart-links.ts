/**
 * The links the visualization service hands out: a chart's image and embed page (which carry
 * the chart's embed token) and an export's download link (signed, with an expiry).
 *
 * @module
 */

import type { SecretBox } from '../../platform/auth/secrets.js'
import { isUuid } from '../../platform/validation/json-shapes.js'

/** Base path of the interface. */
export const VIZ_BASE_PATH = '/v1/visualization'
/** Path of the chart stream WebSocket. */
export const STREAM_PATH = `${VIZ_BASE_PATH}/stream`

const EMBED_PREFIX = 'emb_'

/** Outcome of checking a download link. */
export type LinkCheck = { ok: true } | { ok: false; reason: 'invalid' | 'expired' }

/**
 * Embed tokens and signed download links, under the process's secret key (so every replica
 * recognises every other's links).
 */
export function createChartLinks(secrets: Pick<SecretBox, 'sign' | 'verify'>) {
  return {
    /**
     * The embed token of a chart: `emb_<chart id>.<signature>`. It lets a page read that one
     * chart (image, embed page, stream) and nothing else, and stops working when the chart is
     * deleted. It does not expire: embed code pasted into a page must keep working.
     */
    embedToken(chartId: string): string {
      return `${EMBED_PREFIX}${chartId}.${secrets.sign(`embed:${chartId}`)}`
    },

    /** Whether `token` looks like an embed token (as opposed to an API key or access token). */
    isEmbedToken(token: string): boolean {
      return token.startsWith(EMBED_PREFIX)
    },

    /** The chart an embed token grants, or null when the token is not a valid one. */
    chartOfEmbedToken(token: string): string | null {
      if (!token.startsWith(EMBED_PREFIX)) return null
      const [chartId, signature] = token.slice(EMBED_PREFIX.length).split('.')
      if (!chartId || !signature || !isUuid(chartId)) return null
      return secrets.verify(`embed:${chartId}`, signature) ? chartId : null
    },

    /** Signature of an export's download link valid until `expires` (unix seconds). */
    exportSignature(exportId: string, expires: number): string {
      return secrets.sign(`export:${exportId}:${expires}`)
    },

    /**
     * Checks a download link's parameters: a signature that does not match (a changed id or
     * expiry, a forged link) is `invalid`; a genuine link past its expiry is `expired`.
     */
    checkExportLink(exportId: string, expires: string | undefined, signature: string | undefined, now: Date): LinkCheck {
      if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return { ok: false, reason: 'invalid' }
      if (!secrets.verify(`export:${exportId}:${expires}`, signature)) return { ok: false, reason: 'invalid' }
      return Number(expires) * 1000 <= now.getTime() ? { ok: false, reason: 'expired' } : { ok: true }
    },
  }
}

/** Link making and checking of a process. */
export type ChartLinks = ReturnType<typeof createChartLinks>

/** Paths (relative to the service's origin) of a chart's public resources. */
export function chartPaths(chartId: string, embedToken: string) {
  const token = encodeURIComponent(embedToken)
  return {
    image: (format: 'svg' | 'png') => `${VIZ_BASE_PATH}/charts/${chartId}/image.${format}?token=${token}`,
    embed: `${VIZ_BASE_PATH}/charts/${chartId}/embed?token=${token}`,
    spec: `${VIZ_BASE_PATH}/charts/${chartId}/spec.json?token=${token}`,
  }
}

/** Path of an export's download link. */
export function exportPath(exportId: string, expires: number, signature: string): string {
  return `${VIZ_BASE_PATH}/exports/${exportId}?expires=${expires}&signature=${encodeURIComponent(signature)}`
}

/** Escapes text for an HTML attribute value or element content. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string)
}

/**
 * The markup that embeds a chart's live page: a sized iframe, titled for screen readers.
 * `origin` is the service's public origin (`https://charts.example.com`), or empty for a
 * path relative to the page the markup is placed on.
 */
export function embedCode(origin: string, chartId: string, embedToken: string, size: { width: number; height: number; title?: string }): string {
  const src = escapeHtml(`${origin}${chartPaths(chartId, embedToken).embed}`)
  const title = escapeHtml(size.title || 'Chart')
  return `<iframe src="${src}" width="${size.width}" height="${size.height}" title="${title}" style="border:0" loading="lazy"></iframe>`
}
