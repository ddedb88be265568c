export {
  createWebhooks,
  MAX_SUBSCRIPTIONS,
  WebhookInputError,
  type Webhooks,
  type WebhooksOptions,
  type WebhookAttemptInfo,
  type WebhookDeliveryInfo,
  type WebhookSubscriptionInfo,
} from './create-webhooks.js'
export { checkWebhookUrl, isBlockedAddress, type ResolveHost } from './address-guard.js'
export { DEFAULT_RETRY_SCHEDULE, retryDelayMs, retrySpanMs, type RetrySchedule } from './retry-schedule.js'
export { sendWebhook, type SendResult } from './send-webhook.js'
export { payloadSignature, signatureHeaders } from './webhook-signature.js'
export { loadWebhooksConfig, type WebhooksConfig } from './webhooks-config.js'
