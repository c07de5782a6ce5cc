/**
 * How Keyward's request bodies are validated: with arktype's engine, `@ark/schema`, the layer that
 * arktype's `type()` compiles its definitions to. The nodes, their errors (`ArkErrors`) and their
 * Standard Schema are arktype's own; what is left out is arktype's parser of definition strings and
 * its keyword modules (about 32 KB minified), which a kernel whose checks are written by hand
 * (`narrow`) never needed.
 *
 * Every schema is built in a scope that never compiles validators with `new Function`. Cloudflare
 * Workers allow code generation while a module loads but not while a request runs, and the schemas
 * are built by `createKeyward`, which a Worker calls from its first request (its secrets arrive with
 * it): arktype checks for code generation once, at load, and would compile there and fail
 * (`EvalError`) on the first `POST`. Interpreted validation costs nothing that matters on calls as
 * rare as creating or updating a key, and every runtime runs the same path.
 */
import {
  ArkErrors,
  type BaseRoot,
  type RootSchema,
  schemaScope,
  type Traversal,
} from "@ark/schema";

const scope = schemaScope({}, { jitless: true });

/**
 * A schema whose valid input comes out as `Out`: called with a value, it returns the value (after
 * any transformation) or the `ArkErrors` that say what is wrong; `schema["~standard"]` is its
 * Standard Schema and `schema.toJsonSchema()` its JSON Schema.
 */
export type Schema<Out> = ((input: unknown) => Out | ArkErrors) & BaseRoot;

/** A hand-written check: true to accept, or `ctx.reject({...})` (which returns false). */
export type Check<In = unknown> = (value: In, ctx: Traversal) => boolean;

/** Whether a schema's answer is a refusal. */
export function isRefusal(result: unknown): result is ArkErrors {
  return result instanceof ArkErrors;
}

/** A schema by its node definition (`{ unit: null }`, `["string", { unit: null }]`…). */
export function schemaNode<Out = unknown>(definition: RootSchema): Schema<Out> {
  return scope.schema(definition) as Schema<Out>;
}

/** Any value that `check` accepts, as `Out`. */
export function checked<Out>(check: Check): Schema<Out> {
  return scope.schema({ predicate: [check] }) as Schema<Out>;
}

/** A string that `check` accepts. */
export function checkedString(check: Check<string>): Schema<string> {
  return scope.schema({ domain: "string", predicate: [check as Check] }) as Schema<string>;
}

/** A list of strings, at least `minLength` long, that `check` accepts. */
export function checkedStringList(minLength: number, check: Check<string[]>): Schema<string[]> {
  return scope
    .schema({ proto: Array, sequence: "string", minLength })
    .narrow(check as Check) as Schema<string[]>;
}

/** `schema`, its accepted value then transformed by `morph`. */
export function transformed<In, Out>(schema: Schema<In>, morph: (value: In) => Out): Schema<Out> {
  return schema.pipe(morph as (value: unknown) => unknown) as Schema<Out>;
}

/** Fields, each with its schema; `optional` ones may be absent. */
export interface ObjectFields {
  required?: Readonly<Record<string, BaseRoot>>;
  optional?: Readonly<Record<string, BaseRoot>>;
}

/**
 * An object with these fields, every problem reported at once. Other fields are ignored, as
 * arktype's object types ignore them (`update-key-body.ts` refuses them itself).
 */
export function objectSchema<Out>(fields: ObjectFields): Schema<Out> {
  const entries = (record: Readonly<Record<string, BaseRoot>> | undefined) =>
    Object.entries(record ?? {}).map(([key, value]) => ({ key, value }));
  return scope.schema({
    domain: "object",
    required: entries(fields.required),
    optional: entries(fields.optional),
  }) as Schema<Out>;
}

/** A list of objects with these fields. */
export function listOf<Out>(item: Schema<Out>): Schema<Out[]> {
  return item.array() as Schema<Out[]>;
}

/** Any string. */
export const anyString = scope.schema("string") as Schema<string>;

/** A string, or null. */
export const stringOrNull = scope.schema(["string", { unit: null }]) as Schema<string | null>;
