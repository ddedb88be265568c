import type { Column, Row } from './connector.js'

/** Columns of {@link stressRows}: one of every column type. */
export const STRESS_COLUMNS: readonly Column[] = [
  { name: 'id', type: 'integer', nullable: false },
  { name: 'text', type: 'string', nullable: true },
  { name: 'big', type: 'integer', nullable: true },
  { name: 'amount', type: 'number', nullable: true },
  { name: 'flag', type: 'boolean', nullable: true },
  { name: 'at', type: 'timestamp', nullable: true },
  { name: 'doc', type: 'json', nullable: true },
]

/**
 * Test fixture: rows whose values break naive escaping in every format the connectors write —
 * CSV and COPY quoting, COPY's text-format markers (`\N`, `\.`), line breaks, NULL against the
 * empty string, non-ASCII text, integers beyond 2^53 and JSON with its own quotes and escapes.
 * Shared by the connector tests in this folder. Fresh objects on each call, so one test cannot
 * change another's expectations.
 */
export function stressRows(): Row[] {
  return [
    { id: 1, text: 'plain', big: 1, amount: 0.5, flag: true, at: new Date('2024-05-01T12:30:00.123Z'), doc: { a: 1 } },
    { id: 2, text: 'say "hi", then leave', big: -42, amount: -1.25e-7, flag: false, at: new Date('1969-12-31T23:59:59.999Z'), doc: { quote: '"', comma: ',' } },
    {
      id: 3,
      text: 'tab\there\nnew line\r\nCRLF and lone\rCR',
      big: 0,
      amount: 1e21,
      flag: true,
      at: new Date('2000-02-29T00:00:00.000Z'),
      doc: [1, 'two', null, true],
    },
    {
      id: 4,
      text: 'back\\slash \\N \\. and \\\\',
      big: 9007199254740991,
      amount: 3.141592653589793,
      flag: null,
      at: null,
      doc: { backslash: '\\', newline: '\n', tab: '\t' },
    },
    { id: 5, text: '', big: null, amount: 0, flag: false, at: new Date('2038-01-19T03:14:08.000Z'), doc: {} },
    { id: 6, text: null, big: null, amount: null, flag: null, at: null, doc: null },
    {
      id: 7,
      text: 'ünïcødé 日本語 🎉',
      big: '9007199254740993',
      amount: 123456.789,
      flag: true,
      at: new Date('2024-01-01T00:00:00.000Z'),
      doc: { emoji: '🎉', cjk: '日本語' },
    },
    { id: 8, text: ',', big: '-9223372036854775808', amount: -0.001, flag: false, at: new Date('2024-01-01T00:00:00.001Z'), doc: 'just a string' },
    {
      id: 9,
      text: '"',
      big: '9223372036854775807',
      amount: 2.5,
      flag: true,
      at: new Date('2024-06-30T23:59:59.999Z'),
      doc: { nested: { deeper: ['"', '\\', 'a,b'] } },
    },
    { id: 10, text: '\\.', big: 10, amount: 10, flag: true, at: new Date('2024-07-01T00:00:00.000Z'), doc: 42 },
    { id: 11, text: ' spaces around ', big: 11, amount: 11, flag: false, at: new Date('2024-07-02T00:00:00.000Z'), doc: [] },
    { id: 12, text: 'NULL', big: 12, amount: 12, flag: true, at: new Date('2024-07-03T00:00:00.000Z'), doc: { null: null } },
  ]
}
