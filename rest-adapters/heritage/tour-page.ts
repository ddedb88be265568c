import { escapeXml as escape, type ArtifactRecord, type Scene, type TourRecord } from '../../subgraphs/heritage/index.js'

/** What a tour page shows. */
export interface TourPageInput {
  tour: TourRecord
  scenes: Array<{ scene: Scene; artifact: ArtifactRecord | null }>
  /** Path of the bundled <model-viewer> script on this server. */
  viewerScript: string
}

const vec = (v: { x: number; y: number; z: number }, unit = '') => `${v.x}${unit} ${v.y}${unit} ${v.z}${unit}`

/**
 * A tour as one page: each scene's artifact in Google's <model-viewer> (served by this
 * server from the npm package, never from a CDN), placed by the scene's rotation and scale,
 * with its hotspots as labelled markers and its narration beside it. The page's
 * Content-Security-Policy keeps every request on this origin.
 */
export function tourPage(input: TourPageInput): string {
  const { tour } = input
  const sections = input.scenes.map(({ scene, artifact }, i) => {
    const title = scene.title ?? artifact?.title ?? 'Missing artifact'
    const model = artifact?.models3d.glb
    const hotspots = scene.hotspots
      .map(
        (h, j) =>
          `        <button class="hotspot" slot="hotspot-${j}" data-position="${vec(h.position, 'm')}"${h.normal ? ` data-normal="${vec(h.normal, 'm')}"` : ''} title="${escape(h.text ?? h.label)}">${escape(h.label)}</button>`,
      )
      .join('\n')
    const viewer = model
      ? `      <model-viewer id="scene-${i}" src="${escape(model)}" alt="${escape(title)}" camera-controls touch-action="pan-y" shadow-intensity="1" exposure="1.1"
        orientation="${vec(scene.rotation, 'deg')}" scale="${vec(scene.scale)}" data-position="${vec(scene.position, 'm')}"${i === 0 ? ' loading="eager"' : ''}>
${hotspots}
      </model-viewer>`
      : `      <p class="no-model">No 3D model of this artifact has been uploaded yet.</p>`
    return `    <section class="scene" aria-labelledby="scene-${i}-title">
      <h2 id="scene-${i}-title">${i + 1}. ${escape(title)}</h2>
${viewer}
      ${artifact ? `<p class="caption">${escape([artifact.culture, artifact.period].filter(Boolean).join(' · '))}</p>` : ''}
      ${scene.narration ? `<p class="narration">${escape(scene.narration)}</p>` : ''}
    </section>`
  })
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escape(tour.name)}</title>
    <script type="module" src="${escape(input.viewerScript)}"></script>
    <style>
      body { font-family: 'DejaVu Sans', system-ui, sans-serif; margin: 0; background: #f4f1ea; color: #222; }
      header { padding: 1rem 1.5rem; background: #2b2a28; color: #f4f1ea; }
      .scene { padding: 1rem 1.5rem; border-bottom: 1px solid #d8d2c4; }
      model-viewer { width: 100%; height: 420px; background: #ffffff; }
      .hotspot { background: #fff; border: 1px solid #2b2a28; border-radius: 1rem; padding: 0.15rem 0.5rem; font-size: 0.8rem; }
      .narration { max-width: 60ch; line-height: 1.5; }
    </style>
  </head>
  <body>
    <header><h1>${escape(tour.name)}</h1><p>${escape(tour.type)} tour · ${tour.scenes.length} scene${tour.scenes.length === 1 ? '' : 's'}</p></header>
    <main>
${sections.join('\n')}
    </main>
  </body>
</html>
`
}
