import { findForbiddenCharacter, forbiddenCharacterNames } from "./forbidden-characters.js";

/** The longest owner id (a JWT's `sub`), in characters. */
export const maxOwnerIdLength = 255;

/**
 * Why `value` cannot be an owner id, or `null` when it can: a non-empty string of at most 255
 * characters without control, bidi-override or lone-surrogate characters. Stores index owner ids;
 * the bound keeps every one of them within any store's key and index limits, and the character
 * rule keeps one id the same id on every store. The reason names no part of the value.
 *
 * @example
 * ownerIdProblem("user_42"); // null
 * ownerIdProblem("x".repeat(5000)); // "is longer than 255 characters"
 */
export function ownerIdProblem(value: unknown): string | null {
  if (typeof value !== "string" || value.length === 0) return "is missing";
  if (value.length > maxOwnerIdLength && [...value].length > maxOwnerIdLength) {
    return `is longer than ${maxOwnerIdLength} characters`;
  }
  const forbidden = findForbiddenCharacter(value);
  return forbidden
    ? `contains ${forbiddenCharacterNames[forbidden.kind]} (${forbidden.codePoint})`
    : null;
}
