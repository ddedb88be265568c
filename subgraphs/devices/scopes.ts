/** The scopes the device gateway checks. */
export const DEVICES_SCOPES = ['devices:read', 'devices:write'] as const
