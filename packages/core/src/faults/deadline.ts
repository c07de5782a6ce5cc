/**
 * The one timeout race every store uses: the first of `work`'s outcome and the deadline decides.
 * Nothing is cancelled; whoever owns the work reacts to the deadline through `expired` (destroying
 * a connection, for instance).
 */

/**
 * `work`'s outcome, or a rejection with the error `expired()` returns once `ms` have passed without
 * one. A late outcome is ignored, a late rejection included (it never becomes an unhandled one).
 *
 * @example
 * const rows = await withDeadline(client.query("SELECT 1"), 2_000, () => new Error("no answer in 2 s"));
 */
export function withDeadline<T>(
  work: PromiseLike<T>,
  ms: number,
  expired: () => unknown,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(expired());
    }, ms);
    work.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
