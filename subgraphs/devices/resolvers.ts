import { DateTimeScalar, JSONScalar } from '../../platform/graphql/scalars.js'
import type { AlertPriority, AlertStatus } from './alert-lifecycle.js'
import { DEVICE_EVENTS, type AlertRecord, type DevicesService, type DwellEventRecord } from './devices-service.js'
import type {
  AlertPriority as GqlAlertPriority,
  AlertStatus as GqlAlertStatus,
  DwellEventKind as GqlDwellEventKind,
  Resolvers,
  SignalType as GqlSignalType,
} from './generated/graphql.js'
import type { SignalType } from './signal-input.js'

// GraphQL enums are upper case by convention; the REST interface and the domain use the
// document's lower-case values.
const lower = <T extends string>(value: string | null | undefined) => (value ? (value.toLowerCase() as T) : undefined)
const upper = <T extends string>(value: string) => value.toUpperCase() as T

/**
 * GraphQL resolvers of the devices subgraph: each one translates arguments, calls the domain
 * service with the caller, and shapes the result. No rule lives here.
 */
export function createDevicesResolvers(service: DevicesService): Resolvers {
  return {
    DateTime: DateTimeScalar,
    JSON: JSONScalar,
    Query: {
      alert: (_, { id }, ctx) => service.getAlert(ctx.actor, id),
      alerts: (_, args, ctx) =>
        service.listAlerts(ctx.actor, {
          status: lower<AlertStatus>(args.status),
          deviceId: args.deviceId ?? undefined,
          priority: lower<AlertPriority>(args.priority),
          limit: args.limit ?? undefined,
          offset: args.offset ?? undefined,
        }),
      device: async (_, { id }, ctx) => {
        await service.getDwellConfig(ctx.actor, id)
        return { id }
      },
      signal: (_, { id }, ctx) => service.getSignal(ctx.actor, id),
      circuit: (_, { id }, ctx) => service.getCircuit(ctx.actor, id),
      supportedGates: (_, __, ctx) =>
        service
          .describeGates(ctx.actor)
          .gates.map((g) => ({ name: g.name, qubits: g.arity, parametric: g.parametric, aliases: [...g.aliases], description: g.description })),
      circuitLimits: (_, __, ctx) => ({ ...service.describeGates(ctx.actor).limits }),
    },
    Mutation: {
      submitSignal: (_, { input }, ctx) =>
        service.submitSignal(ctx.actor, { device_id: input.deviceId ?? undefined, type: lower<SignalType>(input.type), data: input.data }),
      raiseAlert: (_, { input }, ctx) =>
        service.raiseAlert(ctx.actor, { device_id: input.deviceId, priority: lower(input.priority), message: input.message ?? undefined }),
      acknowledgeAlert: (_, { id }, ctx) => service.acknowledgeAlert(ctx.actor, id),
      resolveAlert: (_, { id }, ctx) => service.resolveAlert(ctx.actor, id),
      runCircuit: (_, { input }, ctx) =>
        service.runCircuit(ctx.actor, { qubits: input.qubits, gates: input.gates, shots: input.shots ?? undefined, seed: input.seed ?? undefined }),
      configureDwell: async (_, { deviceId, input }, ctx) => {
        await service.configureDwell(ctx.actor, deviceId, input)
        return { id: deviceId }
      },
    },
    Subscription: {
      alertRaised: {
        subscribe: (_, args, ctx) =>
          service.watchAlerts(ctx.actor, { types: [DEVICE_EVENTS.alertRaised], deviceId: args.deviceId ?? undefined, minPriority: lower(args.minPriority) }),
        resolve: (alert: AlertRecord) => alert,
      },
      alertEscalated: {
        subscribe: (_, args, ctx) => service.watchAlerts(ctx.actor, { types: [DEVICE_EVENTS.alertEscalated], deviceId: args.deviceId ?? undefined }),
        resolve: (alert: AlertRecord) => alert,
      },
      alertChanged: {
        subscribe: (_, args, ctx) =>
          service.watchAlerts(ctx.actor, {
            types: [DEVICE_EVENTS.alertRaised, DEVICE_EVENTS.alertAcknowledged, DEVICE_EVENTS.alertResolved, DEVICE_EVENTS.alertEscalated],
            deviceId: args.deviceId ?? undefined,
          }),
        resolve: (alert: AlertRecord) => alert,
      },
      dwellEvents: {
        subscribe: (_, args, ctx) => service.watchDwell(ctx.actor, args.deviceId ?? undefined),
        resolve: (event: DwellEventRecord) => event,
      },
    },
    Alert: {
      __resolveReference: (ref, ctx) => ctx.alertLoader.load(ref.id as string),
      priority: (a) => upper<GqlAlertPriority>(a.priority),
      status: (a) => upper<GqlAlertStatus>(a.status),
      device: (a) => ({ id: a.deviceId }),
    },
    Device: {
      __resolveReference: (ref) => ({ id: ref.id as string }),
      alerts: (d, args, ctx) =>
        service.listAlerts(ctx.actor, {
          deviceId: d.id,
          status: lower<AlertStatus>(args.status),
          limit: args.limit ?? undefined,
          offset: args.offset ?? undefined,
        }),
      dwellConfig: (d, _, ctx) => service.getDwellConfig(ctx.actor, d.id),
      dwellEvents: (d, args, ctx) => service.listDwellEvents(ctx.actor, d.id, args.limit ?? undefined),
    },
    DwellEvent: {
      kind: (e) => upper<GqlDwellEventKind>(e.kind),
    },
    Signal: {
      __resolveReference: (ref, ctx) => service.getSignal(ctx.actor, ref.id as string),
      type: (s) => upper<GqlSignalType>(s.type),
    },
    Circuit: {
      __resolveReference: (ref, ctx) => service.getCircuit(ctx.actor, ref.id as string),
    },
  }
}
