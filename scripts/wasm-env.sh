# Sourced by the build and test scripts: selects the wasm toolchain and puts the pinned tools on PATH.
# WASM_MODE=rustup uses an installed rustup wasm32 target; WASM_MODE=debweb uses Debian's rustc-web
# (linked as the rustup toolchain `debweb`) with build-std. `scripts/setup` decides and records the mode.
_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -z "${WASM_MODE:-}" ]; then
  if [ -f "$_root/target/.wasm-mode" ]; then
    WASM_MODE="$(cat "$_root/target/.wasm-mode")"
  elif rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    WASM_MODE=rustup
  else
    WASM_MODE=debweb
  fi
fi
export WASM_MODE
if [ "$WASM_MODE" = debweb ]; then
  export RUSTUP_TOOLCHAIN=debweb
  export RUSTC_BOOTSTRAP=1
  export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
fi
export PATH="$_root/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
unset _root
