import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { CliError, ExitCode } from "./exit-codes.js";
import { importOptional } from "./optional-dependency.js";

const notInstalled = "keyward-test-package-that-is-not-installed";

describe("importOptional", () => {
  it("loads a package that is installed", async () => {
    const pg = await importOptional<typeof import("pg")>({
      specifier: "pg",
      packageName: "pg",
      neededBy: "keyward migrate",
    });
    expect(typeof pg.default.Pool).toBe("function");
  });

  it("names the package to install when it is not installed (exit 1)", async () => {
    const failure = await importOptional({
      specifier: notInstalled,
      packageName: notInstalled,
      neededBy: "keyward migrate",
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CliError);
    expect((failure as CliError).exitCode).toBe(ExitCode.badInput);
    expect((failure as CliError).message).toBe(
      `keyward migrate needs the package ${notInstalled}, which is not installed: npm install ${notInstalled}`,
    );
  });

  it("names every package the command installs together", async () => {
    await expect(
      importOptional({
        specifier: `${notInstalled}/some/entry`,
        packageName: notInstalled,
        neededBy: "keyward migrate",
        installWith: [notInstalled, "@keyward/postgres"],
      }),
    ).rejects.toThrow(`: npm install ${notInstalled} @keyward/postgres`);
  });

  it("throws as it is the failure of a module that is there but cannot load its own import", async () => {
    const fixture = new URL("../test/fixtures/imports-a-missing-package.mjs", import.meta.url);
    const failure = await importOptional({
      specifier: pathToFileURL(fileURLToPath(fixture)).href,
      packageName: "imports-a-missing-package",
      neededBy: "keyward migrate",
    }).catch((error: unknown) => error);
    expect(failure).not.toBeInstanceOf(CliError);
    expect(String(failure)).toContain(notInstalled);
  });
});
