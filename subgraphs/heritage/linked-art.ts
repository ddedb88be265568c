import type { ArtifactFacts } from './artifact-input.js'

/** Units an artifact's dimensions may be given in, with their Getty AAT unit concepts and size in metres. */
export const DIMENSION_UNITS = {
  mm: { aat: 'http://vocab.getty.edu/aat/300379097', label: 'millimeters', metres: 0.001 },
  cm: { aat: 'http://vocab.getty.edu/aat/300379098', label: 'centimeters', metres: 0.01 },
  m: { aat: 'http://vocab.getty.edu/aat/300379099', label: 'meters', metres: 1 },
  in: { aat: 'http://vocab.getty.edu/aat/300379100', label: 'inches', metres: 0.0254 },
  ft: { aat: 'http://vocab.getty.edu/aat/300379101', label: 'feet', metres: 0.3048 },
} as const

export type DimensionUnit = keyof typeof DIMENSION_UNITS

const AAT = {
  primaryName: 'http://vocab.getty.edu/aat/300404670',
  accessionNumber: 'http://vocab.getty.edu/aat/300312355',
  systemNumber: 'http://vocab.getty.edu/aat/300435704',
  height: 'http://vocab.getty.edu/aat/300055644',
  width: 'http://vocab.getty.edu/aat/300055647',
  depth: 'http://vocab.getty.edu/aat/300072633',
  description: 'http://vocab.getty.edu/aat/300435416',
  culture: 'http://vocab.getty.edu/aat/300055768',
  briefText: 'http://vocab.getty.edu/aat/300418049',
} as const

/**
 * The part of the Linked Art context (https://linked.art/ns/v1/linked-art.json) the records use,
 * inline: the same CIDOC-CRM and RDFS terms, so a record expands offline and means what the
 * full context would make it mean.
 */
export const LINKED_ART_CONTEXT = {
  crm: 'http://www.cidoc-crm.org/cidoc-crm/',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  la: 'https://linked.art/ns/terms/',
  id: '@id',
  type: '@type',
  _label: { '@id': 'rdfs:label' },
  HumanMadeObject: 'crm:E22_Human-Made_Object',
  Name: 'crm:E33_E41_Linguistic_Appellation',
  Identifier: 'crm:E42_Identifier',
  Type: 'crm:E55_Type',
  Material: 'crm:E57_Material',
  MeasurementUnit: 'crm:E58_Measurement_Unit',
  Dimension: 'crm:E54_Dimension',
  Production: 'crm:E12_Production',
  TimeSpan: 'crm:E52_Time-Span',
  Place: 'crm:E53_Place',
  LinguisticObject: 'crm:E33_Linguistic_Object',
  identified_by: { '@id': 'crm:P1_is_identified_by', '@type': '@id', '@container': '@set' },
  classified_as: { '@id': 'crm:P2_has_type', '@type': '@id', '@container': '@set' },
  content: { '@id': 'crm:P190_has_symbolic_content' },
  produced_by: { '@id': 'crm:P108i_was_produced_by', '@type': '@id' },
  timespan: { '@id': 'crm:P4_has_time-span', '@type': '@id' },
  begin_of_the_begin: { '@id': 'crm:P82a_begin_of_the_begin', '@type': 'xsd:dateTime' },
  end_of_the_end: { '@id': 'crm:P82b_end_of_the_end', '@type': 'xsd:dateTime' },
  took_place_at: { '@id': 'crm:P7_took_place_at', '@type': '@id', '@container': '@set' },
  made_of: { '@id': 'crm:P45_consists_of', '@type': '@id', '@container': '@set' },
  dimension: { '@id': 'crm:P43_has_dimension', '@type': '@id', '@container': '@set' },
  value: { '@id': 'crm:P90_has_value', '@type': 'xsd:decimal' },
  unit: { '@id': 'crm:P91_has_unit', '@type': '@id' },
  current_location: { '@id': 'crm:P55_has_current_location', '@type': '@id' },
  referred_to_by: { '@id': 'crm:P67i_is_referred_to_by', '@type': '@id', '@container': '@set' },
} as const

/** What a Linked Art record is made from. */
export interface LinkedArtSource extends ArtifactFacts {
  id: string
}

/** An ISO 8601 instant for a year (negative years are BCE; ISO counts 1 BCE as year 0). */
function isoYear(year: number, end: boolean): string {
  const iso = year < 0 ? year + 1 : year
  const sign = iso < 0 ? '-' : ''
  const digits = String(Math.abs(iso)).padStart(4, '0')
  return `${sign}${digits}-${end ? '12-31T23:59:59' : '01-01T00:00:00'}Z`
}

const type = (id: string, label: string) => ({ id, type: 'Type', _label: label })

/**
 * An artifact as a Linked Art (CIDOC-CRM profile) JSON-LD record: a HumanMadeObject with its
 * names and identifiers, its production with the period as a time-span and the place of
 * origin, its materials, its dimensions with units, its current location, its culture and
 * description as statements.
 */
export function toLinkedArt(a: LinkedArtSource) {
  const object = `urn:uuid:${a.id}`
  const identifiers: object[] = [
    { type: 'Name', content: a.title, classified_as: [type(AAT.primaryName, 'Primary Name')] },
    { type: 'Identifier', content: a.id, classified_as: [type(AAT.systemNumber, 'System-Assigned Number')] },
  ]
  if (a.spectrumId) identifiers.push({ type: 'Identifier', content: a.spectrumId, classified_as: [type(AAT.accessionNumber, 'Accession Number')] })
  const production: Record<string, unknown> = { id: `${object}#production`, type: 'Production', _label: `Production of ${a.title}` }
  if (a.period) {
    production.timespan = {
      id: `${object}#production-timespan`,
      type: 'TimeSpan',
      identified_by: [{ type: 'Name', content: a.period }],
      ...(a.periodRange ? { begin_of_the_begin: isoYear(a.periodRange.start, false), end_of_the_end: isoYear(a.periodRange.end, true) } : {}),
    }
  }
  if (a.location?.origin) production.took_place_at = [{ type: 'Place', _label: a.location.origin }]
  const statements = [{ type: 'LinguisticObject', content: a.culture, classified_as: [type(AAT.culture, 'Culture'), type(AAT.briefText, 'Brief Text')] }]
  if (a.description) statements.push({ type: 'LinguisticObject', content: a.description, classified_as: [type(AAT.description, 'Description')] })
  const dimensions = a.dimensions
    ? (['height', 'width', 'depth'] as const).flatMap((axis) => {
        const value = a.dimensions?.[axis]
        if (value === undefined) return []
        const unit = DIMENSION_UNITS[a.dimensions!.unit]
        return [{ type: 'Dimension', value, unit: { id: unit.aat, type: 'MeasurementUnit', _label: unit.label }, classified_as: [type(AAT[axis], axis)] }]
      })
    : []
  return {
    '@context': LINKED_ART_CONTEXT,
    id: object,
    type: 'HumanMadeObject',
    _label: a.title,
    identified_by: identifiers,
    referred_to_by: statements,
    produced_by: production,
    made_of: a.materials.map((m) => ({ type: 'Material', _label: m })),
    ...(dimensions.length ? { dimension: dimensions } : {}),
    ...(a.location?.current ? { current_location: { type: 'Place', _label: a.location.current } } : {}),
  }
}
