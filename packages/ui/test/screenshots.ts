/**
 * Where the browser tests write their screenshots. A test run writes them to a temporary folder,
 * so `pnpm test` never rewrites the tracked `docs/images/*.png`; `pnpm docs:screenshots` (which
 * sets KEYWARD_UPDATE_SCREENSHOTS=1 and runs the two browser tests that take them) writes them
 * into docs/images, to be reviewed and committed.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { repositoryRoot } from "../../../examples/shared/test/run-example.js";

/** The folder the docs' images live in. */
export const docsImages = path.join(repositoryRoot, "docs", "images");

/** Whether this run updates docs/images (only through `pnpm docs:screenshots`). */
export const updatingScreenshots = process.env.KEYWARD_UPDATE_SCREENSHOTS === "1";

/** The folder this run's screenshots go to: docs/images when updating, a new temporary one else. */
export function screenshotFolder(): string {
  if (updatingScreenshots) {
    mkdirSync(docsImages, { recursive: true });
    return docsImages;
  }
  return mkdtempSync(path.join(tmpdir(), "keyward-screenshots-"));
}
