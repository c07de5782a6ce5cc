/**
 * Integer division for the rate-limit algorithms. Their state and arithmetic stay on integers so
 * that decisions are exact at every boundary and a Redis Lua script can reproduce them bit for bit;
 * `%` is exact on doubles, so ⌊a / b⌋ computed through it never suffers a float division's rounding.
 */

/** ⌊a / b⌋ for a non-negative integer `a` and a positive integer `b`. */
export function floorDivide(a: number, b: number): number {
  return (a - (a % b)) / b;
}

/** ⌈a / b⌉ for a non-negative integer `a` and a positive integer `b`. */
export function ceilDivide(a: number, b: number): number {
  return floorDivide(a + b - 1, b);
}
