import { type } from "arktype";

/**
 * An ISO 8601 UTC time as every response writes it. `format` is JSON Schema's annotation (arktype
 * copies a type's meta into its JSON Schema); responses are ours, so no runtime check is needed.
 */
export const isoDateTime = type("string").configure({ format: "date-time" } as never);

/**
 * `true` when A and B are assignable both ways, with their optional fields made required too (two
 * types that differ only by an optional field are assignable both ways).
 */
export type SameShape<A, B> = [
  MutuallyAssignable<A, B>,
  MutuallyAssignable<Required<A>, Required<B>>,
] extends [true, true]
  ? true
  : false;

type MutuallyAssignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * A type error unless `T` is `true`: `Expect<SameShape<typeof schema.infer, KeyRecord>>` keeps a
 * schema and the TypeScript type the API returns the same.
 */
export type Expect<T extends true> = T;
