/**
 * What is told of each token the exchange issues: published on the instance's event bus as
 * `token.issued`, and handed to `agentTokens({ onIssued })`. Never the token itself: its id (`jti`)
 * names it, as an audit needs.
 */
export interface IssuedToken {
  jti: string;
  /** The key it was exchanged from. */
  keyId: string;
  owner: { type: "user" | "organization"; id: string };
  audience: string;
  scopes: readonly string[];
  resources?: Readonly<Record<string, readonly string[]>>;
  /** ISO 8601 UTC. */
  issuedAt: string;
  expiresAt: string;
}

/** The bus topic each issued token is published under. */
export const tokenIssuedTopic = "token.issued";
