#!/usr/bin/env bash
# Runs the Dockerfile's steps in a clean directory (no Docker engine is needed): a production install
# (`npm ci --omit=dev`) of the tracked files, then `npm start` and the compiled entry point as the image
# runs it. Fails when anything the production start needs is a dev dependency.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$work"
cd "$work"
echo "production install in $work"
npm ci --omit=dev --no-audit --no-fund --prefer-offline >/dev/null
test ! -e node_modules/typescript || { echo "typescript is installed by a production install: it should be a dev dependency"; exit 1; }
env_for_run=(env -i PATH="$PATH" HOME="$HOME" OPENAI_BASE_URL=http://127.0.0.1:9/v1 DATABASE_PATH="$work/data/errand.db" ERRAND_CONSOLE=on LOG_LEVEL=warn)
out="$(printf '/help\n' | "${env_for_run[@]}" npm start --silent 2>&1)" || { echo "$out"; echo "npm start failed after a production install"; exit 1; }
grep -q '/tasks' <<<"$out" || { echo "$out"; echo "npm start did not answer /help"; exit 1; }
out="$(printf '/help\n' | "${env_for_run[@]}" node --expose-gc --v8-pool-size=1 --max-semi-space-size=4 dist/src/main.js 2>&1)" || { echo "$out"; echo "the image's command (node --expose-gc --v8-pool-size=1 --max-semi-space-size=4 dist/src/main.js) failed"; exit 1; }
grep -q '/tasks' <<<"$out" || { echo "$out"; echo "node --expose-gc --v8-pool-size=1 --max-semi-space-size=4 dist/src/main.js did not answer /help"; exit 1; }
node --input-type=module -e "const m = await import('./dist/src/db/pg-client.js'); if (!m.PG_MIGRATIONS_DIR.startsWith(process.cwd())) process.exit(1);" \
  || { echo "the compiled PostgreSQL client cannot load or cannot find drizzle-pg/ after a production install"; exit 1; }
out="$(env -i PATH="$PATH" node scripts/healthcheck.mjs)" || { echo "$out"; echo "the healthcheck without METRICS_PORT should pass"; exit 1; }
echo "production install: npm start and node --expose-gc --v8-pool-size=1 --max-semi-space-size=4 dist/src/main.js both work"
