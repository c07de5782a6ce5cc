/**
 * `verify`, heard by observers (`verify-observer.ts`): the wrapper a feature lists at the kernel's
 * `verify` phase `around` (`auth/verify-wrappers.ts`) to watch verifications. It lives outside the
 * kernel's path: an instance that lists no observer never bundles it.
 *
 * @example
 * // in a feature
 * extends: { verify: { around: [observeVerify(myObserver)] } }
 */

import { isPromise } from "../auth/pending-verify.js";
import type { VerifyResult } from "../auth/principal.js";
import type { VerifyFunction, VerifyWrapper } from "../auth/verify-wrappers.js";
import { isOwnerRefusal } from "../limits/layered-response.js";
import { refusedLayerOf, type VerifyObservation, type VerifyObserver } from "./verify-observer.js";

/**
 * A wrapper that lets every observer given hear each verification once, decided, in their order
 * (the first is the outermost scope). With no observer it returns `verify` itself.
 */
export function observeVerify(...observers: VerifyObserver[]): VerifyWrapper {
  return (verify, report) => observedVerify(verify, observers, report);
}

/**
 * @param report where an observer's own failure goes (the instance's repeat-filtered logger)
 */
function observedVerify(
  verify: VerifyFunction,
  observers: readonly VerifyObserver[],
  report: (message: string, cause: unknown) => void,
): VerifyFunction {
  if (observers.length === 0) return verify;
  const list = [...observers];
  const failed = (error: unknown) => report("a verification observer failed", error);

  const finish = (result: VerifyResult, started: number, scopes: unknown[]) => {
    const observation = observationOf(result, (performance.now() - started) / 1000);
    for (let index = 0; index < list.length; index++) {
      try {
        list[index]!.verified(observation, scopes[index]);
      } catch (error) {
        failed(error);
      }
    }
    return result;
  };

  // One observer without a scope (metrics only): no closure and no array per verification.
  const only = list.length === 1 ? list[0]! : undefined;
  if (only !== undefined && only.start === undefined && only.within === undefined) {
    const finishOnly = (result: VerifyResult, started: number) => {
      try {
        only.verified(observationOf(result, (performance.now() - started) / 1000), undefined);
      } catch (error) {
        failed(error);
      }
      return result;
    };
    return (authorization, options) => {
      const started = performance.now();
      const result = verify(authorization, options);
      if (isPromise(result)) return result.then((settled) => finishOnly(settled, started));
      return finishOnly(result, started);
    };
  }

  return (authorization, options) => {
    const started = performance.now();
    const scopes: unknown[] = new Array(list.length);
    for (let index = 0; index < list.length; index++) {
      try {
        scopes[index] = list[index]!.start?.();
      } catch (error) {
        failed(error);
      }
    }
    // The first observer listed is the outermost scope.
    let run = () => verify(authorization, options);
    for (let index = list.length - 1; index >= 0; index--) {
      const observer = list[index]!;
      if (observer.within === undefined) continue;
      const inner = run;
      const scope = scopes[index];
      run = () => observer.within!(scope, inner);
    }
    const result = run();
    if (isPromise(result)) return result.then((settled) => finish(settled, started, scopes));
    return finish(result, started, scopes);
  };
}

function observationOf(result: VerifyResult, durationSeconds: number): VerifyObservation {
  if (result.ok) {
    const principal = result.principal;
    return {
      outcome: "ok",
      status: 200,
      principalKind: principal.kind,
      tier: principal.tier,
      layer: undefined,
      keyId: principal.kind === "key" ? principal.keyId : undefined,
      durationSeconds,
    };
  }
  return {
    outcome: result.error.code,
    status: result.error.status,
    principalKind: undefined,
    tier: undefined,
    layer: refusedLayerOf(result, isOwnerRefusal),
    keyId: undefined,
    durationSeconds,
  };
}
