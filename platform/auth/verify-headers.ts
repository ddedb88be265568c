import type { CredentialStore } from './credential-store.js'
import { readCredential, type HeaderBag } from './read-credential.js'
import type { Principal } from './scopes.js'

/** The caller of a request from its headers; null when it carries no valid credential. */
export async function principalFromHeaders(store: CredentialStore, headers: HeaderBag): Promise<Principal | null> {
  const credential = readCredential(headers)
  return credential ? store.verify(credential) : null
}
