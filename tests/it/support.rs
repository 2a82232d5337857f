//! Paths and helpers shared by the integration tests.

use std::path::PathBuf;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared`, the corpus beside the repository (CI has it there too).
pub fn shared() -> PathBuf {
    let dir = repo().join("../shared");
    assert!(
        dir.join("corpus").is_dir(),
        "../shared/corpus is missing beside the repository"
    );
    dir
}

/// The Python of the project's venv (made by `make venv`), or `ROBOTS_CENSUS_PYTHON`.
pub fn python() -> PathBuf {
    let python = std::env::var_os("ROBOTS_CENSUS_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join(".venv/bin/python"));
    assert!(
        python.exists(),
        "{} not found: run `make venv` (or set ROBOTS_CENSUS_PYTHON)",
        python.display()
    );
    python
}

/// A scratch directory under cargo's per-target temp dir.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}
