/**
 * The default deadline of a Redis call, in ms, for the store and its invalidation channel: about
 * three times the slowest call measured on a busy but healthy two-core host (347 ms, with both
 * cores burnt and redis-benchmark and pgbench running; docs/redis.md, "Choosing the deadline"),
 * so that a busy Redis is not taken for a dead one, while a hung one fails a request within a
 * second, and the circuit breaker then fails the following ones at once.
 */
export const defaultRedisTimeoutMs = 1_000;
