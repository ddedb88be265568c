import type { Principal } from '../../platform/auth/scopes.js'
import { WebhookInputError, type WebhookDeliveryInfo, type Webhooks, type WebhookSubscriptionInfo } from '../../platform/webhooks/index.js'
import { contentErrors as errors } from './errors.js'
import type { ContentScope } from './scopes.js'

/** Most deliveries one log page shows, and the default. */
export const DELIVERY_PAGE = { defaultLimit: 20, maxLimit: 100 } as const

/** What the webhook operations need from the content domain. */
export interface WebhooksFeatureDeps {
  webhooks: Webhooks
  authorize(actor: Principal | null, scope: ContentScope): Principal
}

const missing = (what: 'webhook' | 'delivery', id: string) =>
  errors.create('NOT_FOUND', `No ${what} with id ${id}`, {
    field: what === 'webhook' ? 'webhookId' : 'deliveryId',
    [what === 'webhook' ? 'webhookId' : 'deliveryId']: id,
  })

/**
 * Webhook subscriptions of the content events, per environment of the caller's credential, on
 * the platform's signed and retried delivery. Everything needs `content:webhooks`.
 */
export function createWebhooksFeature(deps: WebhooksFeatureDeps) {
  const { webhooks } = deps
  const who = (actor: Principal | null) => deps.authorize(actor, 'content:webhooks')
  return {
    /** Subscribes a URL; the secret is stored sealed and never shown again. */
    async createWebhook(
      actor: Principal | null,
      input: { url?: unknown; events?: unknown; secret?: unknown; description?: unknown },
    ): Promise<WebhookSubscriptionInfo> {
      const caller = who(actor)
      try {
        return await webhooks.create(caller.environment, caller.id, input)
      } catch (error) {
        if (error instanceof WebhookInputError) throw errors.invalid(error.issues)
        throw error
      }
    },

    async listWebhooks(actor: Principal | null): Promise<WebhookSubscriptionInfo[]> {
      return webhooks.list(who(actor).environment)
    },

    async getWebhook(actor: Principal | null, id: string): Promise<WebhookSubscriptionInfo> {
      const sub = await webhooks.get(who(actor).environment, id)
      if (!sub) throw missing('webhook', id)
      return sub
    },

    async deleteWebhook(actor: Principal | null, id: string): Promise<void> {
      if (!(await webhooks.remove(who(actor).environment, id))) throw missing('webhook', id)
    },

    /** Re-enables a subscription disabled after a delivery exhausted its retries. */
    async enableWebhook(actor: Principal | null, id: string): Promise<WebhookSubscriptionInfo> {
      const sub = await webhooks.enable(who(actor).environment, id)
      if (!sub) throw missing('webhook', id)
      return sub
    },

    /** The newest deliveries of a subscription with every attempt. */
    async listDeliveries(actor: Principal | null, id: string, limit?: number | null): Promise<WebhookDeliveryInfo[]> {
      const caller = who(actor)
      const take = limit ?? DELIVERY_PAGE.defaultLimit
      if (!Number.isInteger(take) || take < 1 || take > DELIVERY_PAGE.maxLimit)
        throw errors.invalid([{ field: 'limit', message: `must be an integer from 1 to ${DELIVERY_PAGE.maxLimit}` }])
      const deliveries = await webhooks.deliveries(caller.environment, id, take)
      if (!deliveries) throw missing('webhook', id)
      return deliveries
    },

    /** Sends a delivery again with the same event id; a disabled subscription must be enabled first. */
    async redeliverWebhook(actor: Principal | null, id: string, deliveryId: string): Promise<WebhookDeliveryInfo> {
      const delivery = await webhooks.redeliver(who(actor).environment, id, deliveryId)
      if (delivery === 'disabled') throw errors.invalid([{ field: 'webhookId', message: `webhook ${id} is disabled; enable it before redelivering` }])
      if (!delivery) throw missing('delivery', deliveryId)
      return delivery
    },
  }
}
