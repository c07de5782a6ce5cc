const dayMs = 86_400_000;

/**
 * `YYYY-MM-DD` of an epoch-ms time in UTC. Remembers the current day, so the hot path formats a
 * date once a day instead of once a request.
 */
export function utcDayFormatter(): (epochMs: number) => string {
  let start = Number.NaN;
  let label = "";
  return (epochMs) => {
    if (!(epochMs >= start && epochMs < start + dayMs)) {
      start = Math.floor(epochMs / dayMs) * dayMs;
      label = new Date(start).toISOString().slice(0, 10);
    }
    return label;
  };
}
