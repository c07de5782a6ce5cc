import { describe, expect, it } from "vitest";
import { errorStatus } from "./codes.js";
import { codeByStatus, codeForStatus, errorBody } from "./error-body.js";

describe("error bodies", () => {
  it("carry the detail and the code", () => {
    expect(JSON.parse(errorBody("key_not_found", "API key not found"))).toEqual({
      detail: "API key not found",
      code: "key_not_found",
    });
  });

  it("give a framework's own statuses the table's code for that status", () => {
    for (const [status, code] of Object.entries(codeByStatus)) {
      expect(errorStatus[code!], `${code} is ${status}`).toBe(Number(status));
      expect(codeForStatus(Number(status))).toBe(code);
    }
    expect(codeForStatus(503)).toBe("internal");
    expect(codeForStatus(402)).toBe("http_error");
  });
});
