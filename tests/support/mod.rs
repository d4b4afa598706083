//! What the integration tests share: the `arbigraph` binary, the vendored fixtures, scratch directories, free
//! ports and the fault-injecting test server. Used by the fast suite (`tests/it`) and by the slow stages (`tests/stages/*`, included by path), so
//! each binary uses only part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The crate root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file under `tests/fixtures/`; fails loudly when it is missing, so no test can pass on an absent input.
pub fn fixture(relative: &str) -> PathBuf {
    let path = root().join("tests/fixtures").join(relative);
    assert!(path.exists(), "fixture {} is missing", path.display());
    path
}

/// A file of the reference release's samples, vendored under `tests/fixtures/reference/`.
pub fn reference(name: &str) -> PathBuf {
    fixture(&format!("reference/{name}"))
}

/// Every vendored reference file whose name satisfies `keep`, sorted; never empty.
pub fn reference_files(keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let dir = root().join("tests/fixtures/reference");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&keep))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no reference file in {} matches", dir.display());
    files
}

/// A fresh scratch directory for one test, under cargo's per-target temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// A private copy of the `arbigraph` binary: the build directory may be shared with other checkouts that rebuild
/// the same binary name while a test runs, so the copy is made once per test binary and checked to be this one.
pub fn arbigraph_binary() -> PathBuf {
    static COPY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    COPY.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("arbigraph-bin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let copy = dir.join("arbigraph");
        std::fs::copy(env!("CARGO_BIN_EXE_arbigraph"), &copy).expect("copy the binary");
        let help = Command::new(&copy).args(["eval", "--help"]).output().expect("the binary runs");
        assert!(
            String::from_utf8_lossy(&help.stdout).contains("--base-url"),
            "the shared build directory's arbigraph binary was rebuilt from another checkout; run the test again"
        );
        copy
    })
    .clone()
}

/// Runs `arbigraph` with `args`: (exit code, stdout, stderr).
pub fn arbigraph(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(arbigraph_binary()).args(args).output().expect("the binary runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A TCP port that was free a moment ago on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// A child process killed (by its own handle) when dropped.
pub struct Killer(pub Child);

impl Drop for Killer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `tools/fault_server.py` with `args` on a free port and returns it with the port it printed.
pub fn start_fault_server(args: &[&str]) -> (Killer, u16) {
    start_python_server("tools/fault_server.py", args)
}

/// Starts `tools/provider_emulator.py` (the hosted chat APIs, one route prefix per provider) with `args` on a free
/// port and returns it with the port it printed.
pub fn start_provider_emulator(args: &[&str]) -> (Killer, u16) {
    start_python_server("tools/provider_emulator.py", args)
}

/// Starts one of the repository's Python test servers, which print `PORT <n>` once they listen.
fn start_python_server(script: &str, args: &[&str]) -> (Killer, u16) {
    let mut child = Command::new("python3").arg(root().join(script)).args(args).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("python3 runs");
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let child = Killer(child);
    let line = rx.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|_| panic!("{script} printed its port in time"));
    let port = line.trim().strip_prefix("PORT ").and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("{script}: a PORT line, got {line:?}"));
    (child, port)
}

/// The body of a bare HTTP GET of `path` on 127.0.0.1:`port` (std only; for test servers' admin routes).
pub fn http_get(port: u16, path: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("the test server accepts");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("a read timeout");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").expect("the request is sent");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("the reply is read");
    response.split_once("\r\n\r\n").map(|(_, body)| body.to_string()).unwrap_or_default()
}
