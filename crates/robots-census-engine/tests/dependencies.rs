//! This crate stays a pure library that builds in seconds: its normal dependency tree
//! (`cargo tree`) holds no async runtime, no Arrow or Parquet, no thread pool, no object
//! store or HTTP client, no query engine, no command-line parser and no Python binding.
//! (The robots-census pipeline and its Python module bring those; they depend on this
//! crate, never the other way.)

use std::process::Command;

/// Crates the engine must not depend on, by name or name prefix (`arrow-*`, `tokio-*`,
/// `datafusion-*`, `clap_*`).
const FORBIDDEN: [&str; 9] = [
    "tokio",
    "arrow",
    "parquet",
    "rayon",
    "object_store",
    "datafusion",
    "reqwest",
    "clap",
    "pyo3",
];

#[test]
fn the_engine_depends_on_no_io_arrow_or_cli_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--locked",
            "-p",
            "robots-census-engine",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .output()
        .expect("cargo tree");
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `name vX.Y.Z [(path)] [(*)]`, one crate a line.
    let crates: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    // The tree is the engine's: it and its matching dependency are in it.
    assert_eq!(crates.first(), Some(&"robots-census-engine"), "{tree}");
    assert!(crates.contains(&"memchr"), "{tree}");
    let found: Vec<&str> = crates
        .iter()
        .copied()
        .filter(|name| FORBIDDEN.iter().any(|f| name.starts_with(f)))
        .collect();
    assert!(
        found.is_empty(),
        "the engine crate depends on {found:?}; its tree:\n{tree}"
    );
}
