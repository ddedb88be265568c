// The package ships no types; this declares the part of its API render-chart.ts uses.
declare module 'svg-to-pdfkit' {
  /** Synthetic styles the font callback may ask for when a face is missing. */
  interface FontOptions {
    fauxItalic: boolean
    fauxBold: boolean
  }

  interface SvgToPdfOptions {
    /** Viewport size, in PDF points (pixels unless `assumePt`). */
    width?: number
    height?: number
    /** Reads SVG pixels as PDF points (1:1) instead of 72/96 of a point. */
    assumePt?: boolean
    preserveAspectRatio?: string
    /** Curve flattening precision; default 3. */
    precision?: number
    /** Picks the registered pdfkit font for a text element; returns its registered name. */
    fontCallback?: (family: string, bold: boolean, italic: boolean, options: FontOptions) => string
    warningCallback?: (message: string) => void
  }

  /** Draws `svg` into the current page of `doc`, its top-left corner at (x, y). */
  function SVGtoPDF(doc: PDFKit.PDFDocument, svg: string, x?: number, y?: number, options?: SvgToPdfOptions): void
  export = SVGtoPDF
}
