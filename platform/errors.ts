/** Extra, machine-readable facts about an error: the field at fault and why, limits, ids. */
export type ErrorDetails = Record<string, unknown>

/** One coded error of a service: its HTTP status and default message. */
export interface ErrorDefinition {
  status: number
  message: string
}

/**
 * The failures the platform itself detects before a service's code runs. Each service says
 * which of its own codes stands for each, so an interface keeps its documented codes
 * (`AUTH_001` in one, `UNAUTHORIZED` in another) while the mechanism stays shared.
 */
export type PlatformErrorRole =
  'invalidRequest' | 'unauthorized' | 'forbidden' | 'notFound' | 'payloadTooLarge' | 'unsupportedMediaType' | 'rateLimited' | 'internal'

/** An expected failure with a code from a service's registry; safe to show to the caller. */
export class TesseraError extends Error {
  override name = 'TesseraError'
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details?: ErrorDetails,
    /** Extra response headers this error needs (e.g. `WWW-Authenticate`, `Retry-After`). */
    readonly headers?: Record<string, string>,
  ) {
    super(message)
  }

  /**
   * GraphQL's `GraphQLError` copies an original error's `extensions`, so a TesseraError thrown
   * in any resolver reaches the client as `extensions.code` / `extensions.http.status`
   * whichever server runs the schema.
   */
  get extensions(): Record<string, unknown> {
    return { code: this.code, http: { status: this.status }, ...(this.details ? { details: this.details } : {}) }
  }
}

/** A field-level validation problem, as domain validators report them. */
export interface ValidationIssue {
  field: string
  message: string
}

/** A service's registry of coded errors. */
export interface ErrorRegistry<Code extends string = string> {
  readonly definitions: Readonly<Record<Code, ErrorDefinition>>
  readonly roles: Readonly<Record<PlatformErrorRole, Code>>
  /** Creates the error `code`, with the registry's default message unless one is given. */
  create(code: Code, message?: string, details?: ErrorDetails, headers?: Record<string, string>): TesseraError
  /** Creates the error that plays `role` in this service. */
  forRole(role: PlatformErrorRole, message?: string, details?: ErrorDetails, headers?: Record<string, string>): TesseraError
  /** An invalid-request error listing every issue; the first one is named in `field`/`reason`. */
  invalid(issues: readonly ValidationIssue[]): TesseraError
}

/**
 * Declares a service's coded errors once, in the style of Fastify's `createError` registry.
 * The REST edge and the GraphQL edge map these to their wire formats in one place each.
 */
export function defineErrors<const Code extends string>(
  definitions: Record<Code, ErrorDefinition>,
  roles: Record<PlatformErrorRole, NoInfer<Code>>,
): ErrorRegistry<Code> {
  const create = (code: Code, message?: string, details?: ErrorDetails, headers?: Record<string, string>) => {
    const def = definitions[code]
    return new TesseraError(code, def.status, message ?? def.message, details, headers)
  }
  return {
    definitions,
    roles,
    create,
    forRole: (role, message, details, headers) => create(roles[role], message, details, headers),
    invalid(issues) {
      const [first] = issues
      const message = first ? `${first.field}: ${first.message}` : definitions[roles.invalidRequest].message
      return create(roles.invalidRequest, message, {
        field: first?.field,
        reason: first?.message,
        issues: issues.map((i) => ({ field: i.field, reason: i.message })),
      })
    },
  }
}

/** True for errors whose message may be shown to a caller. */
export function isTesseraError(error: unknown): error is TesseraError {
  return error instanceof TesseraError
}

/** Closes a switch over a union: the compiler proves every case is handled. */
export class UnreachableCaseError extends Error {
  constructor(value: never) {
    super(`Unreachable case: ${JSON.stringify(value)}`)
  }
}

/**
 * The same error with field names translated (`dwellMs` → `dwell_ms`) in its message and
 * details, for an interface that spells fields differently from the domain. Other errors
 * pass through unchanged.
 */
export function renameFields(error: unknown, names: Record<string, string>): unknown {
  if (!(error instanceof TesseraError)) return error
  const rename = (text: string) => Object.entries(names).reduce((t, [from, to]) => t.replace(new RegExp(`\\b${from}\\b`, 'g'), to), text)
  const details = error.details ? (JSON.parse(rename(JSON.stringify(error.details))) as ErrorDetails) : undefined
  return new TesseraError(error.code, error.status, rename(error.message), details, error.headers)
}
