export {
  defineServiceCore,
  serviceMigrations,
  type DomainDependencies,
  type ServiceCore,
  type ServiceCoreDefinition,
  type ServiceInstance,
} from './define-service-core.js'
export { defineService, type RestAdapterOptions, type RestContext, type RestFace, type Service, type TypedApp } from './define-service.js'
export type { ServiceRuntime } from './service-runtime.js'
