import type { ValidationIssue } from '../../platform/errors.js'

/** The fifteen elements of the DCMI Metadata Element Set 1.1, in its order. */
export const DC_ELEMENTS = [
  'title',
  'creator',
  'subject',
  'description',
  'publisher',
  'contributor',
  'date',
  'type',
  'format',
  'identifier',
  'source',
  'language',
  'relation',
  'coverage',
  'rights',
] as const

export type DcElement = (typeof DC_ELEMENTS)[number]

/** A Dublin Core record: every element, each a list of values (possibly empty). */
export type DublinCoreRecord = Record<DcElement, string[]>

/** Limits of a replaced record. */
export const DC_LIMITS = { valuesPerElement: 50, valueLength: 4000 } as const

/** An empty record with every element present. */
export function emptyDublinCore(): DublinCoreRecord {
  return Object.fromEntries(DC_ELEMENTS.map((e) => [e, []])) as unknown as DublinCoreRecord
}

/**
 * Checks a record given to replace an artifact's: an object whose keys are DCMI elements and
 * whose values are arrays of non-empty strings. Elements left out become empty lists.
 */
export function parseDublinCore(input: unknown, field = 'body'): { ok: true; record: DublinCoreRecord } | { ok: false; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = []
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, issues: [{ field, message: `must be an object of Dublin Core elements (${DC_ELEMENTS.join(', ')})` }] }
  }
  const record = emptyDublinCore()
  const prefix = field === 'body' ? '' : `${field}.`
  for (const [key, value] of Object.entries(input)) {
    if (!(DC_ELEMENTS as readonly string[]).includes(key)) {
      issues.push({ field: `${prefix}${key}`, message: `is not a Dublin Core element (one of ${DC_ELEMENTS.join(', ')})` })
      continue
    }
    if (!Array.isArray(value)) {
      issues.push({ field: `${prefix}${key}`, message: 'must be an array of strings' })
      continue
    }
    if (value.length > DC_LIMITS.valuesPerElement) issues.push({ field: `${prefix}${key}`, message: `must have at most ${DC_LIMITS.valuesPerElement} values` })
    value.forEach((v: unknown, i) => {
      if (typeof v !== 'string' || !v.trim()) issues.push({ field: `${prefix}${key}[${i}]`, message: 'must be a non-empty string' })
      else if (v.length > DC_LIMITS.valueLength) issues.push({ field: `${prefix}${key}[${i}]`, message: `must be at most ${DC_LIMITS.valueLength} characters` })
    })
    if (!issues.length) record[key as DcElement] = (value as string[]).map((v) => v.trim())
  }
  return issues.length ? { ok: false, issues } : { ok: true, record }
}

const escapeXml = (text: string) =>
  text
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string)
    // Characters XML 1.0 cannot carry at all.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')

/** Escapes text for XML content and attributes. */
export { escapeXml }

/**
 * The record as an `oai_dc:dc` element (the OAI-PMH 2.0 oai_dc schema). `standalone` adds the
 * XML declaration for a document of its own.
 */
export function toOaiDcXml(record: DublinCoreRecord, options: { standalone?: boolean; indent?: string } = {}): string {
  const indent = options.indent ?? ''
  const lines = DC_ELEMENTS.flatMap((e) => record[e].map((v) => `${indent}  <dc:${e}>${escapeXml(v)}</dc:${e}>`))
  return [
    ...(options.standalone ? ['<?xml version="1.0" encoding="UTF-8"?>'] : []),
    `${indent}<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd">`,
    ...lines,
    `${indent}</oai_dc:dc>`,
  ].join('\n')
}
