import { pydanticMeta } from "../../validation/issues.js";
import { checked, type Schema, transformed } from "../../validation/schema.js";
import { allowedIpEntry } from "./allowed-ips.js";

/** The most entries one key's `allowedIps` may have. */
export const maxAllowedIps = 100;

/**
 * `allowedIps` on create (a list) and update (a list, or null to remove it): IPv4/IPv6 addresses
 * and CIDR ranges, 1 to 100 of them, no two the same once written canonically. Every bad entry is
 * reported at its own index, all at once; a valid list comes out in canonical text
 * (`allowedIpEntry`), which is what is stored and shown.
 */
export function allowedIpsSchema(options: { nullable: boolean }): Schema<string[] | null> {
  return transformed(
    checked<unknown[] | null>((value, ctx) => {
      if (value === null && options.nullable) return true;
      if (!Array.isArray(value)) {
        return ctx.reject({
          expected: "a list of IP addresses or CIDR ranges",
          actual: typeof value,
          meta: pydanticMeta("list_type", "Input should be a valid list"),
        });
      }
      if (value.length === 0) {
        return ctx.reject({
          expected: "at least one entry",
          actual: "",
          meta: pydanticMeta(
            "too_short",
            options.nullable
              ? "List should have at least 1 item after validation, not 0; send null to remove the allowlist"
              : "List should have at least 1 item after validation, not 0; leave allowedIps out for a key usable from anywhere",
          ),
        });
      }
      if (value.length > maxAllowedIps) {
        return ctx.reject({
          expected: `at most ${maxAllowedIps} entries`,
          actual: "",
          meta: pydanticMeta(
            "too_long",
            `List should have at most ${maxAllowedIps} items after validation, not ${value.length}`,
          ),
        });
      }
      const seen = new Set<string>();
      let valid = true;
      value.forEach((text: unknown, index) => {
        const entry = allowedIpEntry(text);
        if (!entry.ok) {
          valid = ctx.reject({
            relativePath: [index],
            expected: "an IP address or CIDR range",
            actual: "",
            meta:
              typeof text === "string"
                ? pydanticMeta("value_error", `Value error, ${entry.problem}`)
                : pydanticMeta("string_type", "Input should be a valid string"),
          });
        } else if (seen.has(entry.canonical)) {
          valid = ctx.reject({
            relativePath: [index],
            expected: "an entry not already listed",
            actual: "",
            meta: pydanticMeta(
              "value_error",
              `Value error, duplicate entry '${text as string}' (${entry.canonical})`,
            ),
          });
        } else {
          seen.add(entry.canonical);
        }
      });
      return valid;
    }),
    (value: unknown[] | null) =>
      value === null
        ? null
        : value.map((text) => {
            const entry = allowedIpEntry(text);
            return entry.ok ? entry.canonical : String(text);
          }),
  );
}
