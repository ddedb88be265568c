import { UnreachableCaseError } from '../../platform/errors.js'

/** IEC 60601-1-8 alarm priorities. */
export const ALERT_PRIORITIES = ['high', 'medium', 'low'] as const
export type AlertPriority = (typeof ALERT_PRIORITIES)[number]

export const ALERT_STATUSES = ['active', 'acknowledged', 'resolved'] as const
export type AlertStatus = (typeof ALERT_STATUSES)[number]

export type AlertAction = 'acknowledge' | 'resolve'

/**
 * The alert lifecycle: active → acknowledged → resolved, or active → resolved when the
 * condition clears before anyone acknowledges. Resolved is final. Returns null when the
 * action is not allowed from `current`.
 */
export function nextStatus(current: AlertStatus, action: AlertAction): AlertStatus | null {
  switch (current) {
    case 'active':
      return action === 'acknowledge' ? 'acknowledged' : 'resolved'
    case 'acknowledged':
      return action === 'resolve' ? 'resolved' : null
    case 'resolved':
      return null
    default:
      throw new UnreachableCaseError(current)
  }
}

/** Priorities at or above `min` (high > medium > low). */
export function prioritiesAtLeast(min: AlertPriority): AlertPriority[] {
  return ALERT_PRIORITIES.slice(0, ALERT_PRIORITIES.indexOf(min) + 1)
}
