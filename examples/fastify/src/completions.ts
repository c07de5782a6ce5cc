/**
 * `POST /api/v1/completions` on Fastify (demo contract v0.4): `requireHold`'s preHandler reserves
 * `max_tokens` from the key's credits (Fastify has parsed the JSON body by then), the handler takes
 * the raw response and streams `use` chunks counting each with `sent(1)`, and the hold settles what
 * was counted when the response ends (or the client goes away). A body that is not the contract's
 * is a 422 that spends nothing.
 */
import { isKeywardError, type Keyward } from "@keyward/core";
import type { BudgetsApi } from "@keyward/core/budgets";
import { errorBody } from "@keyward/core/toolkit";
import {
  COMPLETIONS_PATH,
  COMPLETIONS_SCOPES,
  parseCompletionRequest,
  tokensToReserve,
  writeCompletionStream,
} from "@keyward/example-demo";
import { requireHold } from "@keyward/fastify";
import type { FastifyInstance } from "fastify";

export function addCompletions(
  app: FastifyInstance,
  keyward: Keyward & { budgets: BudgetsApi },
): void {
  app.post(
    COMPLETIONS_PATH,
    {
      preHandler: requireHold(keyward, {
        scopes: [...COMPLETIONS_SCOPES],
        reserve: (request) => tokensToReserve(request.body),
      }),
    },
    async (request, reply) => {
      const state = request.keywardHold!;
      let use: number;
      try {
        ({ use } = parseCompletionRequest(request.body));
      } catch (error) {
        if (!isKeywardError(error)) throw error;
        // The 422 with its issues; nothing was sent, so the hold settles 0 when it ends.
        return reply
          .code(error.status)
          .type("application/json")
          .send(errorBody(error.code, error.detail));
      }
      // The stream is written to the raw response, with the headers the guard set on the reply.
      reply.hijack();
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value);
      }
      await writeCompletionStream(reply.raw, use, (n) => state.sent(n));
    },
  );
}
