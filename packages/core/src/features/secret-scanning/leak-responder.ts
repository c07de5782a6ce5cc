/**
 * What Keyward does with a verified report: each token is checked the cheap way first (one of our
 * prefixes and a valid checksum, no storage call), then looked up by hash. A key that matches is
 * revoked (or, with `action: "report"`, left alone) and `key.leaked` is written; every token gets
 * GitHub's label back: `true_positive` for a secret that is or was one of our keys, else
 * `false_positive`.
 */

import { isoTime } from "../../api/key-record.js";
import type { EventDataByType } from "../../event-model/event.js";
import { githubScannerActor } from "../../event-model/event-actor.js";
import type { FeatureKernel } from "../../feature-interface/feature-kernel.js";
import { toHex } from "../../keys/hash.js";
import type { StoredKey } from "../../storage/key-store.js";
import { storableText } from "../../validation/storable-json.js";
import type { LeakReportEntry } from "./leak-report-body.js";
import type { LeakAction } from "./secret-scanning-config.js";

export type LeakLabel = "true_positive" | "false_positive";

/** One entry of the response, GitHub's feedback format. */
export interface LeakLabelEntry {
  token_raw: string;
  token_type: string;
  label: LeakLabel;
}

/**
 * How long a `key.leaked` once-marker is kept: GitHub re-sends a report it got no 2xx for, and may
 * report the same place again on a later scan; within this time those write no second event.
 */
export const leakOnceMs = 90 * 24 * 60 * 60 * 1000;

export async function respondToLeaks(
  ctx: FeatureKernel,
  entries: readonly LeakReportEntry[],
  mode: LeakAction,
): Promise<LeakLabelEntry[]> {
  // A batch may name one token several times (found in several places): each place is a report,
  // but each token is looked up once.
  const found = new Map<string, Promise<StoredKey | null>>();
  const lookup = (token: string) => {
    let key = found.get(token);
    if (!key) {
      key = ctx.store.keys.findByHash(ctx.keyModel.hasher.hash(token));
      found.set(token, key);
    }
    return key;
  };

  const labels: LeakLabelEntry[] = [];
  for (const entry of entries) {
    // Shape, prefix (every environment's) and checksum: a forged or foreign token costs no lookup.
    const key = ctx.keyModel.format.isWellFormed(entry.token) ? await lookup(entry.token) : null;
    labels.push({
      token_raw: entry.token,
      token_type: entry.type,
      label: key ? "true_positive" : "false_positive",
    });
    if (key) await handleLeak(ctx, key, entry, mode);
  }
  return labels;
}

async function handleLeak(
  ctx: FeatureKernel,
  key: StoredKey,
  entry: LeakReportEntry,
  mode: LeakAction,
): Promise<void> {
  let action: EventDataByType["key.leaked"]["action"] =
    key.revokedAt !== null ? "already_revoked" : mode === "revoke" ? "revoked" : "reported";
  const now = ctx.clock.now();
  if (action === "revoked") {
    const events = ctx.events?.build.revoked(key, now, githubScannerActor);
    const revoked = await ctx.store.keys.revoke(key.id, now, events);
    // null: revoked meanwhile (GitHub's retry racing its first delivery, an operator).
    if (revoked) {
      if (events) ctx.events?.committed(events);
    } else {
      action = "already_revoked";
    }
  }
  const data: EventDataByType["key.leaked"] = {
    action,
    hint: ctx.keyModel.format.hint(entry.token),
    tokenType: entry.type,
    // Evidence, kept as reported but storable: a NUL byte in a URL must not fail the event's
    // write after the key is revoked (GitHub would retry into the same failure forever).
    url: entry.url == null ? null : storableText(entry.url),
    source: entry.source == null ? null : storableText(entry.source),
  };
  if (!ctx.events) {
    // Without `events` there is no audit log to write to: the operator hears of it here instead.
    ctx.log.logger.warn(
      `secret scanning: key ${key.id} (${key.ownerType} ${key.ownerId}) was found in public${data.url ? ` at ${data.url}` : ""}; ${action.replace("_", " ")}`,
      { keyId: key.id, ...data, at: isoTime(now) },
    );
    return;
  }
  // Written on its own, once per key and place: GitHub's repeats of a report write nothing more.
  await ctx.events.append([
    {
      event: ctx.events.build.leaked(key, now, githubScannerActor, data),
      once: { key: await leakOnceKey(key.id, data.url), until: now + leakOnceMs },
    },
  ]);
}

/** `key.leaked:{keyId}:{SHA-256 of the place}`: short and fixed-length, whatever the URL. */
async function leakOnceKey(keyId: string, url: string | null): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(url ?? ""));
  return `key.leaked:${keyId}:${toHex(new Uint8Array(digest)).slice(0, 32)}`;
}
