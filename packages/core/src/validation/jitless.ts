import { scope } from "arktype";

/**
 * Where every request schema is built: an arktype scope that never compiles validators with
 * `new Function`. Cloudflare Workers allow code generation while a module loads but not while a
 * request runs, and the schemas are built by `createKeyward`, which a Worker calls from its first
 * request (its secrets arrive with it): arktype checks for code generation once, at load, and would
 * compile there and fail (`EvalError`) on the first `POST`. Interpreted validation costs nothing that
 * matters on calls as rare as creating or updating a key, and every runtime runs the same path.
 */
export const validation = scope({}, { jitless: true });
