#!/usr/bin/env bash
# examples/fetch for real on Bun and on Deno, with the pinned binaries scripts/runtimes.mjs installs
# from npm on first use (into .cache/runtimes): create -> use -> rotate (old secret 401) ->
# revoke (401) over HTTP with curl. Apart from that one install, nothing is downloaded: Bun runs with
# --no-install, Deno with --no-remote --cached-only from node_modules and a fresh, empty DENO_DIR.
#
#   .ci/e2e-runtimes.sh            both runtimes
#   .ci/e2e-runtimes.sh deno       one of them
#
# Needs: node, npm, curl, and `pnpm install` done. Exits non-zero, saying why, on the first failure.
set -euo pipefail

# The server and the token script share it; a non-default secret also keeps the warning quiet.
export KEYWARD_JWT_SECRET="e2e-runtimes-secret-long-enough-for-hs256-0123456789"
unset DATABASE_URL REDIS_URL KEYWARD_TIER_LIMITS

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
example="$root/examples/fetch"
work=$(mktemp -d)
server_pid=""
runtime=""
log=""

cleanup() {
  if [[ -n "$server_pid" ]]; then kill -- "-$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL [$runtime]: $*" >&2
  if [[ -n "$log" && -f "$log" ]]; then
    echo "---- server output ----" >&2
    cat "$log" >&2
  fi
  exit 1
}

# json FIELD: reads a JSON object on stdin, prints one field (no jq needed).
json() { node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const v=JSON.parse(s)[process.argv[1]];if(v===undefined)process.exit(1);console.log(v)})' "$1"; }

# expect_status WANT DESCRIPTION CURL_ARGS...: one request, its status checked.
expect_status() {
  local want=$1 what=$2
  shift 2
  local got
  got=$(curl -s -o "$work/body" -w '%{http_code}' "$@") || fail "$what: curl failed"
  [[ "$got" == "$want" ]] || fail "$what: expected $want, got $got: $(cat "$work/body")"
  echo "  ok  $what -> $got"
}

run() {
  runtime=$1
  # One log per runtime: a fresh file cannot hold the previous run's banner.
  log="$work/$runtime.log"
  export DENO_DIR="$work/deno-dir" DENO_NO_UPDATE_CHECK=1
  local started=$SECONDS start_ns
  start_ns=$(date +%s%N)
  # Its own process group (job control on), so the cleanup stops whatever the start command spawned.
  set -m
  PORT=0 node "$root/scripts/start.mjs" "$runtime" >"$log" 2>&1 &
  server_pid=$!
  set +m
  until grep -q "end of walkthrough" "$log" 2>/dev/null; do
    kill -0 "$server_pid" 2>/dev/null || fail "the server exited before it was ready"
    ((SECONDS - started < 60)) || fail "no banner within 60 s"
    sleep 0.1
  done
  local ready_ms=$((($(date +%s%N) - start_ns) / 1000000))
  grep -q "Fetch API on ${runtime^}" "$log" || fail "the banner does not name $runtime"
  local base
  base=$(sed -n 's/^  URL *\(http:[^ ]*\)$/\1/p' "$log" | head -n 1)
  [[ -n "$base" ]] || fail "no URL in the banner"
  echo "$runtime: listening on $base (ready after ${ready_ms} ms)"

  local token created key_id key new_key profile="$base/api/v1/profiles/alice"
  token=$(cd "$example" && node --conditions=@keyward/source --import tsx src/token.ts --sub alice --tier pro) ||
    fail "the token script failed"
  local session=(-H "Authorization: Bearer $token")

  expect_status 200 "list scopes" "$base/api/v1/api-keys/scopes" "${session[@]}"
  grep -q '"profile:write"' "$work/body" || fail "scopes listing lacks profile:write"
  expect_status 201 "create a key" "$base/api/v1/api-keys" "${session[@]}" \
    -H 'Content-Type: application/json' \
    -d '{"name":"e2e","scopes":["profile:read"],"tier":"pro"}'
  created=$(cat "$work/body")
  key_id=$(json id <<<"$created") || fail "no id in $created"
  key=$(json key <<<"$created") || fail "no key in $created"

  expect_status 200 "GET a profile with the key" "$profile" -H "Authorization: Bearer $key"
  grep -q '"viewer":"alice"' "$work/body" || fail "unexpected profile body $(cat "$work/body")"
  expect_status 403 "PUT without profile:write" -X PUT "$profile" -H "Authorization: Bearer $key"

  expect_status 200 "rotate" -X POST "$base/api/v1/api-keys/$key_id/rotate" "${session[@]}"
  new_key=$(json key <"$work/body") || fail "no key in the rotation"
  expect_status 401 "the old secret after rotation" "$profile" -H "Authorization: Bearer $key"
  expect_status 200 "the new secret" "$profile" -H "Authorization: Bearer $new_key"

  expect_status 200 "revoke" -X DELETE "$base/api/v1/api-keys/$key_id" "${session[@]}"
  expect_status 401 "the revoked key" "$profile" -H "Authorization: Bearer $new_key"

  kill -- "-$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
  echo "$runtime: passed in $((SECONDS - started)) s"
}

runtimes=("$@")
[[ ${#runtimes[@]} -gt 0 ]] || runtimes=(bun deno)
for runtime in "${runtimes[@]}"; do
  case "$runtime" in
    bun | deno) ;;
    *) echo "unknown runtime $runtime (bun or deno)" >&2; exit 2 ;;
  esac
done
# Installed before any server starts, so a first-use download does not eat into the start timeout.
node "$root/scripts/runtimes.mjs" "${runtimes[@]}" >/dev/null || { echo "FAIL: could not install ${runtimes[*]}" >&2; exit 1; }
for runtime in "${runtimes[@]}"; do
  run "$runtime"
done
