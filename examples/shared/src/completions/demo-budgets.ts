/**
 * The demo's `budgets()`: what lets `POST /api/v1/completions` reserve from a key's credits and
 * settle what it streamed. Holds are kept where the limits are: in Redis when `REDIS_URL` is set
 * (they survive the process, as the credits they came from do), else in this process's memory,
 * like the limits themselves.
 */
import { budgets, type HoldStore } from "@keyward/core/budgets";

export function demoBudgets(holds?: HoldStore) {
  return budgets(holds ? { holds } : {});
}
