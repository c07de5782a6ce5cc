import { describe, expect, it } from "vitest";
import { isOutage } from "./outage.js";

const serverError = (code: string) =>
  Object.assign(new Error(`server said ${code}`), { code, severity: "ERROR" });

describe("isOutage", () => {
  it("takes the server's answers to a statement as answers", () => {
    for (const code of ["23505", "22021", "22P02", "42P01", "40001", "54000", "25006"]) {
      expect(isOutage(serverError(code)), code).toBe(false);
    }
  });

  it("takes the server saying it cannot serve as an outage", () => {
    // connection exception, too many connections, terminated backend, cancelled statement, I/O error
    for (const code of ["08006", "53300", "57P01", "57014", "58030"]) {
      expect(isOutage(serverError(code)), code).toBe(true);
    }
  });

  it("takes anything that did not come from the server as an outage", () => {
    expect(isOutage(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isOutage(Object.assign(new Error("refused"), { code: "ECONNREFUSED" }))).toBe(true);
    // Five capitals, but a socket's code, not a SQLSTATE: no severity.
    expect(isOutage(Object.assign(new Error("broken pipe"), { code: "EPIPE" }))).toBe(true);
    expect(isOutage(Object.assign(new Error("closed"), { code: "CONNECTION_CLOSED" }))).toBe(true);
    expect(isOutage(undefined)).toBe(true);
  });
});
