/**
 * `POST /api/v1/completions` on Express (demo contract v0.4): `requireHold` reserves `max_tokens`
 * from the key's credits after `express.json()` read the body, the handler streams `use` chunks
 * counting each with `sent(1)`, and the hold settles what was counted when the response ends (or
 * the client goes away). A body that is not the contract's is a 422 that spends nothing.
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
import { requireHold } from "@keyward/express";
import express, { type Express, type NextFunction, type Request, type Response } from "express";

export function addCompletions(app: Express, keyward: Keyward & { budgets: BudgetsApi }): void {
  app.post(
    COMPLETIONS_PATH,
    express.json(),
    requireHold(keyward, {
      scopes: [...COMPLETIONS_SCOPES],
      route: COMPLETIONS_PATH,
      reserve: (req) => tokensToReserve(req.body),
    }),
    (req: Request, res: Response, next: NextFunction) => {
      const state = req.keywardHold!;
      let use: number;
      try {
        ({ use } = parseCompletionRequest(req.body));
      } catch (error) {
        if (!isKeywardError(error)) throw error;
        // The 422's issues as Keyward answers them; nothing was sent, so the hold settles 0.
        res.status(error.status).type("application/json").send(errorBody(error.code, error.detail));
        return;
      }
      writeCompletionStream(res, use, (n) => state.sent(n)).catch(next);
    },
  );
}
