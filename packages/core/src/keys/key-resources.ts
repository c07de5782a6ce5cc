/** The most kinds one key may be limited in. */
export const maxResourceKinds = 20;
/** The most ids of one kind a key may list. */
export const maxResourceIds = 100;
/** The longest resource id, in characters. */
export const maxResourceIdLength = 256;
/** A kind's name: a letter, then letters, digits and `_ . : -`, at most 64 characters. */
export const resourceKindPattern = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

/**
 * The resources a key is limited to, by kind: `{ profile: ["alice"] }`. A key limits only the
 * kinds it names (a route about another kind, or about none, is not limited by them); absent or
 * null: every resource, as a key without them always was.
 */
export type KeyResourceLimits = Readonly<Record<string, readonly string[]>>;
