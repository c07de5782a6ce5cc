/**
 * What the CLI must know of the application it serves: its scopes, tiers and key prefix (a key the
 * CLI creates or rotates must be one the application accepts), and where the stores keep their
 * data. Read from a JSON file or an ES module's default export; the pepper, a secret, comes from
 * the environment only.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { TierConfig } from "@keyward/core";
import { badInput } from "./exit-codes.js";

export interface CliConfig {
  /** Scope name → description, as in `createKeyward`. */
  scopes: Record<string, string>;
  /** Tier name → allowances, lowest first, as in `createKeyward`. */
  tiers: Record<string, TierConfig>;
  /** As in `createKeyward`; default `sk_live_`. */
  keyPrefix?: string;
  /** As in `createKeyward`: the longest `--grace` of `keys rotate`; default `true` (7 days). */
  gracefulRotation?: boolean | { maxGracePeriodSeconds?: number };
  /** Where `@keyward/postgres` keeps its tables (`postgresStore`'s naming options). */
  postgres?: { schema?: string; tablePrefix?: string };
  /** The prefix of every Redis key (`redisStore`'s `prefix`). */
  redis?: { prefix?: string };
}

/** The file read when neither `--config` nor `KEYWARD_CONFIG` names one. */
export const defaultConfigFile = "keyward.config.json";

/**
 * Loads the configuration named by `--config`, else `KEYWARD_CONFIG`, else `keyward.config.json`
 * in the working directory. A `.js`/`.mjs` file is imported (its default export is the config).
 */
export async function loadConfig(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<CliConfig> {
  const named = explicit ?? env.KEYWARD_CONFIG;
  const file = path.resolve(cwd, named ?? defaultConfigFile);
  if (!existsSync(file)) {
    throw badInput(
      named
        ? `configuration file not found: ${file}`
        : `no configuration: pass --config <file> or set KEYWARD_CONFIG (or create ${defaultConfigFile}); it holds your application's scopes and tiers`,
    );
  }
  let loaded: unknown;
  try {
    loaded = /\.(c|m)?js$/.test(file)
      ? ((await import(pathToFileURL(file).href)) as { default?: unknown }).default
      : JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw badInput(`cannot read the configuration ${file}: ${(error as Error).message}`);
  }
  return checkConfig(loaded, file);
}

function checkConfig(value: unknown, file: string): CliConfig {
  const fail = (problem: string) => badInput(`configuration ${file}: ${problem}`);
  if (!isRecord(value)) throw fail("must be an object with scopes and tiers");
  if (!isRecord(value.scopes) || Object.keys(value.scopes).length === 0) {
    throw fail('"scopes" must map each scope name to its description');
  }
  if (!isRecord(value.tiers) || Object.keys(value.tiers).length === 0) {
    throw fail('"tiers" must map each tier name to its allowances, lowest first');
  }
  if (value.keyPrefix !== undefined && typeof value.keyPrefix !== "string") {
    throw fail('"keyPrefix" must be a string');
  }
  for (const part of ["postgres", "redis"] as const) {
    if (value[part] !== undefined && !isRecord(value[part]))
      throw fail(`"${part}" must be an object`);
  }
  return value as unknown as CliConfig;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
