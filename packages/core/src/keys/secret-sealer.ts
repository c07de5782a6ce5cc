/**
 * Sealing a new secret so that it can be shown again (`recoverable()` fills this kernel point):
 * `create` and `rotate` hand it each secret they issue, and store what it returns with the key in
 * the same write. Without it, a secret is shown once and only its hash is kept.
 */
export interface SecretSealer {
  /** The secret, encrypted and bound to `keyId`: an opaque text the key store keeps. */
  seal(secret: string, keyId: string): Promise<string>;
}
