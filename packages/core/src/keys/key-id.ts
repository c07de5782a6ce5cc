/**
 * Key ids: `key_` + 24 base62 characters, made here and nowhere else. They appear in paths
 * (`/api-keys/{key_id}/rotate`), so anything that is not one can be answered without asking a
 * store: no id of another shape was ever issued.
 */
import type { RandomSource } from "../random.js";
import { randomBase62 } from "./base62.js";

const keyIdPrefix = "key_";
const keyIdRandomLength = 24;
const keyIdPattern = /^key_[0-9A-Za-z]{24}$/;

/** A new key id (about 143 random bits: unguessable, though ids are not secrets). */
export function generateKeyId(random: RandomSource): string {
  return `${keyIdPrefix}${randomBase62(keyIdRandomLength, random)}`;
}

/**
 * Whether `value` has the shape of an id `generateKeyId` makes.
 *
 * @example
 * isKeyId("key_4eC39HqLyjWDarjtT1zdp7dc"); // true
 * isKeyId("key_1\u0000"); // false
 */
export function isKeyId(value: unknown): value is string {
  return typeof value === "string" && keyIdPattern.test(value);
}
