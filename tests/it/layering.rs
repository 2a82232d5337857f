//! The layering of `src/`, read from the source: each module imports only modules of
//! its own layer or earlier ones in [`LAYERS`] (the data flow of `src/lib.rs`), and the
//! engine crate does no I/O. The engine's dependency tree is checked beside it
//! (crates/robots-census-engine/tests/dependencies.rs).

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::{files_with_extension, repo};

/// The crate's top-level modules, earliest first. Modules of one layer may import each
/// other; a module never imports one of a later layer.
const LAYERS: &[&[&str]] = &[
    // Shared settings and helpers, used at every step.
    &["limits", "progress", "spill"],
    &["store"],
    &["input"],
    &["census"],
    &["verdicts"],
    &["output"],
    &["config"],
    &["pipeline"],
    &["status", "study"],
    &["sites"],
    &["changes"],
    &["check"],
    &["audit", "report"],
    &["cli"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// Every `.rs` file under `dir`; a directory that holds none is a mistake of the test.
fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let files = files_with_extension(dir, "rs");
    assert!(!files.is_empty(), "no .rs file under {}", dir.display());
    files
}

/// The code of a file without comments (doc links name later modules freely) and
/// without its inline `#[cfg(test)] mod tests { .. }`, which may reach anywhere.
fn code_of(text: &str) -> String {
    let code = text
        .lines()
        .map(|line| match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let Some(start) = code.find("#[cfg(test)]\nmod tests {") else {
        return code;
    };
    // The block ends at the brace that closes it (the file's code has no comments left,
    // and its braces in strings and chars come in pairs).
    let mut depth = 0usize;
    let mut end = code.len();
    for (i, c) in code[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = start + i + 1;
                    break;
                }
            }
            _ => {}
        }
    }
    format!("{}{}", &code[..start], &code[end..])
}

/// `crate::<module>` paths named in `code`.
fn crate_modules(code: &str) -> BTreeSet<String> {
    code.match_indices("crate::")
        .filter(|(i, _)| {
            // `robots_census_engine::` and `$crate::` are not this crate's paths.
            !code[..*i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$')
        })
        .map(|(i, m)| {
            code[i + m.len()..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect()
        })
        .collect()
}

/// Each module's imports of a later layer, as `file: module -> imported`.
fn backward_imports(src: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for file in rust_files(src) {
        let rel = file.strip_prefix(src).expect("under src");
        let top = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .expect("UTF-8 name")
            .trim_end_matches(".rs");
        if top == "lib" || top == "main" {
            continue;
        }
        let own = layer_of(top).unwrap_or_else(|| panic!("{top} is in no layer of LAYERS"));
        let code = code_of(&std::fs::read_to_string(&file).expect("read"));
        for module in crate_modules(&code) {
            let layer = layer_of(&module)
                .unwrap_or_else(|| panic!("{}: crate::{module} is in no layer", rel.display()));
            if layer > own {
                found.push(format!("{}: {top} -> {module}", rel.display()));
            }
        }
    }
    found
}

#[test]
fn no_module_imports_a_later_step() {
    let src = repo().join("src");
    let found = backward_imports(&src);
    assert!(found.is_empty(), "imports of a later layer: {found:#?}");
    // Every top-level module of lib.rs has a layer.
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs");
    for line in lib.lines() {
        let line = line.trim_start_matches("pub ");
        if let Some(name) = line.strip_prefix("mod ").and_then(|l| l.strip_suffix(';')) {
            assert!(
                layer_of(name).is_some(),
                "lib.rs: mod {name} is in no layer"
            );
        }
    }
}

#[test]
fn the_layering_check_sees_a_backward_import() {
    let dir = crate::support::scratch("layering-break");
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("input")).expect("mkdir");
    std::fs::write(
        src.join("input/mod.rs"),
        "//! See crate::cli for the commands.\nuse crate::store::Stores;\nuse crate::sites::run;\n\
         #[cfg(test)]\nmod tests {\n    use crate::cli::Args;\n}\n",
    )
    .expect("write");
    assert_eq!(backward_imports(&src), ["input/mod.rs: input -> sites"]);
}

/// The engine is bytes in, answers out: no file, network, process or clock access in its
/// source (its dependency tree holds no I/O crate either).
#[test]
fn the_engine_does_no_io() {
    let engine = repo().join("crates/robots-census-engine/src");
    let banned = [
        "std::fs",
        "std::net",
        "std::process",
        "std::env",
        "std::time",
        "std::thread",
        "File::",
        "stdin()",
        "stdout()",
        "stderr()",
        "println!",
        "eprintln!",
        "print!",
    ];
    // Modules the engine declares for its unit tests alone (`#[cfg(test)] mod x;`).
    let lib = std::fs::read_to_string(engine.join("lib.rs")).expect("lib.rs");
    let test_only: Vec<String> = lib
        .split("#[cfg(test)]\nmod ")
        .skip(1)
        .filter_map(|rest| rest.split_once(';').map(|(name, _)| format!("{name}.rs")))
        .collect();
    let mut found = Vec::new();
    for file in rust_files(&engine) {
        if file
            .file_name()
            .is_some_and(|name| test_only.iter().any(|t| name == t.as_str()))
        {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&file).expect("read"));
        for word in banned {
            if code.contains(word) {
                found.push(format!("{}: {word}", file.display()));
            }
        }
    }
    assert!(found.is_empty(), "I/O in the engine: {found:#?}");
}
