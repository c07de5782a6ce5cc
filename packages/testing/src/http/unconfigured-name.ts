/**
 * Names the validation checks send expecting a refusal. A fixed name such as `platinum` could be
 * one a user's configuration defines, and then the check would fail for a correct implementation;
 * these are derived from what is configured instead.
 */

/** `preferred` if nothing configured is called so, else `preferred-2`, `preferred-3`, … */
export function unconfiguredName(preferred: string, configured: Iterable<string>): string {
  const taken = new Set(configured);
  let name = preferred;
  for (let suffix = 2; taken.has(name); suffix++) name = `${preferred}-${suffix}`;
  return name;
}
