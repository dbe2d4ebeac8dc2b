#!/usr/bin/env bash
# Fuzzes the running service against its own OpenAPI document with schemathesis: every
# documented operation, every check (status codes, schemas, headers, undeclared methods; all
# are on by default, and naming them with --checks would override the per-operation
# exceptions in scripts/schemathesis.toml).
# Starts the service on embedded defaults in a throw-away data folder with an Enterprise
# key made through the admin CLI, so keyed routes are fuzzed past the gate; stops it after.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v st >/dev/null 2>&1; then
  # Pinned: a new release brings new generators and checks, and CI must not turn red on its own.
  python3 -m pip install --quiet --disable-pip-version-check 'schemathesis==4.32.5'
fi

port=${FUZZ_PORT:-3917}
data_dir=$(mktemp -d)
admin_token="fuzz-admin-token-$RANDOM-$RANDOM-0000"
# Live timeline fetches go to a stand-in of the eCourts portal serving the real records.
node --import tsx scripts/court-portal-stand-in.ts >"$data_dir/portal-url" &
portal=$!
for _ in $(seq 1 30); do [[ -s "$data_dir/portal-url" ]] && break; sleep 0.5; done
DATA_DIR="$data_dir" PORT="$port" AUTO_INGEST=true LOG_LEVEL=silent PUBLIC_RATE_LIMIT_PER_MINUTE=100000 ADMIN_TOKEN="$admin_token" \
  COURT_PORTAL_URL="$(head -n 1 "$data_dir/portal-url")" TEMPORAL_DEV_PORT="${FUZZ_TEMPORAL_PORT:-7243}" TEMPORAL_UI_PORT="${FUZZ_TEMPORAL_UI_PORT:-8243}" \
  node --import tsx src/main.ts &
server=$!
trap 'kill "$server" "$portal" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$data_dir"' EXIT

for _ in $(seq 1 60); do
  curl -sf "http://127.0.0.1:$port/api/v1/prod/health" >/dev/null && break
  sleep 1
done

export COURT_RECORDS_URL="http://127.0.0.1:$port" ADMIN_TOKEN="$admin_token"
field() { node -e 'process.stdout.write(String(JSON.parse(require("fs").readFileSync(0, "utf8"))[process.argv[1]]))' "$1"; }
user_id=$(node bin/court-records.mjs admin user create --email fuzz@lawfirm.example --name Fuzz --tier enterprise | field userId)
api_key=$(node bin/court-records.mjs admin key create --user "$user_id" --name fuzz | field fullKey)
# Enough credits that charged routes are fuzzed past the 402 (which is fuzzed by the int tests).
node bin/court-records.mjs admin credits grant --user "$user_id" --amount 100000000 >/dev/null

# Fuzz against the real corpus: wait until first-start ingest has filled the search index.
for _ in $(seq 1 180); do
  found=$(curl -s -X POST -H "X-API-Key: $api_key" -H 'Content-Type: application/json' \
    -d '{"query":"Civil Appeal No. 56 of 1987"}' "http://127.0.0.1:$port/api/v1/prod/search/cases" |
    node -e 'const b = JSON.parse(require("fs").readFileSync(0, "utf8")); process.stdout.write(String((b.data ?? []).length))')
  [[ "$found" != "0" ]] && break
  sleep 2
done

st --config-file scripts/schemathesis.toml run "http://127.0.0.1:$port/api/v1/prod/openapi.json" \
  --url "http://127.0.0.1:$port/api/v1/prod" --max-examples 100 --seed 1 \
  -H "X-API-Key: $api_key"
