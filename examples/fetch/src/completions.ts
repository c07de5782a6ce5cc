/**
 * `POST /api/v1/completions` as a Fetch handler (demo contract v0.4): `withHold` reserves
 * `max_tokens` from the key's credits, and the answer's body is a `settlingStream` of `use` chunks:
 * it settles what the client took when it ends, or when the client cancels it. A body that is not
 * the contract's is a 422 that spends nothing.
 */
import type { Keyward } from "@keyward/core";
import { isKeywardError } from "@keyward/core";
import { type BudgetsApi, settlingStream } from "@keyward/core/budgets";
import {
  COMPLETION_STREAM_HEADERS,
  COMPLETIONS_PATH,
  COMPLETIONS_ROUTE,
  COMPLETIONS_SCOPES,
  completionChunks,
  parseCompletionRequest,
  tokensToReserve,
} from "@keyward/example-demo";
import { withHold } from "@keyward/fetch";

/** Answers the completions path, or null for any other. */
export function completionsRoute(
  keyward: Keyward & { budgets: BudgetsApi },
  clientIp: (request: Request) => string | null | undefined,
): (request: Request) => Promise<Response | null> {
  const complete = withHold(
    keyward,
    {
      scopes: [...COMPLETIONS_SCOPES],
      route: COMPLETIONS_ROUTE,
      clientIp,
      // Read from a copy: the handler reads the body itself once the key is admitted.
      reserve: async (request) =>
        tokensToReserve(
          await request
            .clone()
            .json()
            .catch(() => null),
        ),
    },
    async (request, _principal, hold) => {
      let use: number;
      try {
        ({ use } = parseCompletionRequest(await request.json().catch(() => null)));
      } catch (error) {
        await hold.release();
        if (isKeywardError(error)) return error.toResponse();
        throw error;
      }
      return new Response(settlingStream(hold, completionChunks(use)), {
        headers: COMPLETION_STREAM_HEADERS,
      });
    },
  );
  return async (request) => {
    if (new URL(request.url).pathname !== COMPLETIONS_PATH) return null;
    if (request.method !== "POST") {
      return Response.json(
        { detail: "Method Not Allowed", code: "method_not_allowed" },
        { status: 405, headers: { Allow: "POST" } },
      );
    }
    return complete(request);
  };
}
