/**
 * The one font every chart is measured and drawn with: DejaVu Sans, shipped as TTF files by
 * the `dejavu-fonts-ttf` package, so text looks the same on every machine whatever fonts the
 * system has (a container usually has none).
 *
 * @module
 */

import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

// Resolved through the package manifest: the package has no JS entry point to resolve.
const fontDir = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf')

/** The chart font: its family name as SVG and Vega name it, and its TTF files. */
export const CHART_FONT = Object.freeze({
  family: 'DejaVu Sans',
  regularFile: path.join(fontDir, 'DejaVuSans.ttf'),
  boldFile: path.join(fontDir, 'DejaVuSans-Bold.ttf'),
})

for (const file of [CHART_FONT.regularFile, CHART_FONT.boldFile]) {
  // Failing at load names the missing file; failing later would render charts without text.
  if (!existsSync(file)) throw new Error(`Chart font file missing: ${file} (is dejavu-fonts-ttf installed?)`)
}

/**
 * Whether a CSS font weight picks the bold face when only regular (400) and bold (700) exist:
 * CSS font matching rounds weights above 500 up to bold, and resvg follows it.
 */
export function isBoldWeight(weight: unknown): boolean {
  if (weight === 'bold' || weight === 'bolder') return true
  const numeric = typeof weight === 'number' ? weight : typeof weight === 'string' ? Number(weight) : Number.NaN
  return Number.isFinite(numeric) && numeric > 500
}
