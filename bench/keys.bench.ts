/**
 * Keys and hashing: what every API-key request pays before storage is touched (parse, then hash),
 * and what key creation pays. Figures and the machine they came from: docs/benchmarks.md.
 */

import { createKeyFormat } from "@keyward/core/toolkit";
import { bench, do_not_optimize, group, summary } from "mitata";
import { createSecretHasher, jsSha256, nodeSha256 } from "../packages/core/src/keys/hash.js";

const keys = createKeyFormat({ prefix: "sk_live_" });
// As a server sees it: cut from an Authorization header, not the rope string generate() built.
const request = new Request("https://api.example.com/v1/things", {
  headers: { authorization: `Bearer ${keys.generate()}` },
});
const token = request.headers.get("authorization")!.slice("Bearer ".length);
const lastChar = token.at(-1);
const badChecksum = token.slice(0, -1) + (lastChar === "0" ? "1" : "0");
const wrongPrefix = `sk_test_${token.slice("sk_live_".length)}`;
const pepper = crypto.getRandomValues(new Uint8Array(32));

const node = nodeSha256();
if (node === undefined)
  throw new Error("node:crypto is not reachable via process.getBuiltinModule");

group("keys: format", () => {
  bench("generate", () => do_not_optimize(keys.generate()));
  bench("parse valid", () => do_not_optimize(keys.parse(token)));
  bench("parse invalid checksum", () => do_not_optimize(keys.parse(badChecksum)));
  bench("parse wrong prefix", () => do_not_optimize(keys.parse(wrongPrefix)));
});

summary(() => {
  group("keys: SHA-256 of a 44-char key", () => {
    bench("SHA-256 plain JavaScript", () => do_not_optimize(jsSha256.sha256(token)));
    bench("SHA-256 node:crypto", () => do_not_optimize(node.sha256(token)));
  });
});

const jsHmac = jsSha256.hmacSha256(pepper);
const nodeHmac = node.hmacSha256(pepper);
summary(() => {
  group("keys: HMAC-SHA-256 of a 44-char key, 32-byte pepper", () => {
    bench("HMAC-SHA-256 plain JavaScript", () => do_not_optimize(jsHmac(token)));
    bench("HMAC-SHA-256 node:crypto", () => do_not_optimize(nodeHmac(token)));
  });
});

const hasher = createSecretHasher({ pepper });
group("keys: per API-key request", () => {
  bench("parse + HMAC-SHA-256 (default hasher)", () => {
    const parsed = keys.parse(token);
    do_not_optimize(parsed === null ? null : hasher.hash(parsed.token));
  });
});
