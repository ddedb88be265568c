/**
 * Every event the esports service publishes (outbox `type`, webhook `event`, GraphQL
 * subscription). Each event's `data` is documented in rest-adapters/esports/README.md.
 */
export const ESPORTS_EVENTS = {
  programCreated: 'program.created',
  programUpdated: 'program.updated',
  programDeleted: 'program.deleted',
  teamCreated: 'team.created',
  teamUpdated: 'team.updated',
  playerCreated: 'player.created',
  playerUpdated: 'player.updated',
  playerJoined: 'player.joined',
  matchScheduled: 'match.scheduled',
  matchCompleted: 'match.completed',
  matchUpdated: 'match.updated',
  careerUpdated: 'career.updated',
} as const

/** One esports event name. */
export type EsportsEventType = (typeof ESPORTS_EVENTS)[keyof typeof ESPORTS_EVENTS]

/** Every esports event name, for validation and documentation. */
export const ESPORTS_EVENT_TYPES: readonly EsportsEventType[] = Object.values(ESPORTS_EVENTS)
