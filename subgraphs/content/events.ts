import type { Environment } from '../../platform/auth/scopes.js'
import { outboxRow } from '../../platform/events/event-bus.js'

/** Names of the events the content service publishes (outbox `type`, webhook `event`). */
export const CONTENT_EVENTS = {
  generated: 'content.generated',
  personalized: 'content.personalized',
  translated: 'content.translated',
  analyticsUpdated: 'analytics.updated',
  testCompleted: 'test.completed',
} as const

/** Every content event type, as webhook subscriptions may name them. */
export const CONTENT_EVENT_TYPES = Object.values(CONTENT_EVENTS)
/** A content event type. */
export type ContentEventType = (typeof CONTENT_EVENT_TYPES)[number]

/** What every content event's data holds (the document's `{ contentId, status }`), plus details per event. */
export interface ContentEventData {
  contentId: string
  status: string
  [key: string]: unknown
}

/**
 * An outbox row of a content event. The payload is `{ environment, data }`: webhooks deliver
 * `data` to the subscriptions of the environment of the credential that caused the event.
 */
export const contentEvent = (type: ContentEventType, environment: Environment, data: ContentEventData) => outboxRow(type, data.contentId, { environment, data })
