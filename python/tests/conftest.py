"""Shared helpers: the repository's paths and the `arbigraph` binary the package is compared with."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "tests" / "fixtures" / "reference"


def binary() -> pathlib.Path:
    """The CLI: $ARBIGRAPH_BIN, else the debug build in target/ (scripts/test builds it first)."""
    path = pathlib.Path(os.environ.get("ARBIGRAPH_BIN", ROOT / "target" / "debug" / "arbigraph"))
    if not path.exists():
        pytest.fail(f"{path} does not exist: build it with `cargo build --bin arbigraph` or set ARBIGRAPH_BIN")
    return path


def cli(*args: str) -> subprocess.CompletedProcess:
    """Runs the CLI and fails the test, with its stderr, when it fails."""
    done = subprocess.run([str(binary()), *args], capture_output=True, text=True)
    assert done.returncode == 0, f"arbigraph {' '.join(args)} exited {done.returncode}: {done.stderr}"
    return done
