//! The `robots_census` Python module from the wheel `make wheel` built: installed with
//! pip (no index) into a scratch directory, then `tests/python/test_module.py` runs
//! under pytest with the venv's oracles (Google's parser, pyarrow, mypy). The corpus
//! answers of Google's parser are the ones the differential test uses.

use std::process::Command;

use crate::support::{corpus_oracle_answers, python, repo, scratch, shared, wheel};

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs the wheel `make wheel` puts in dist/, ../shared/corpus and the venv (pytest, mypy, pyarrow, jwm-robotstxt, Google's parser): make test"
)]
fn python_module_agrees_with_googles_parser_and_the_cli() {
    let site = scratch("python-module").join("site");
    let pip = Command::new(python())
        .args([
            "-m",
            "pip",
            "install",
            "--no-index",
            "--disable-pip-version-check",
            "--quiet",
            "--target",
        ])
        .arg(&site)
        .arg(wheel())
        .output()
        .expect("pip install --target");
    assert!(
        pip.status.success(),
        "{}",
        String::from_utf8_lossy(&pip.stderr)
    );
    let answers = corpus_oracle_answers();
    let out = Command::new(python())
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(repo().join("tests/python"))
        .env("PYTHONPATH", &site)
        .env("ROBOTS_CENSUS_SHARED", shared())
        .env("ROBOTS_CENSUS_CLI", site.join("bin/robots-census"))
        .env("ROBOTS_CENSUS_ORACLE_ANSWERS", &answers)
        .output()
        .expect("python -m pytest");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pytest failed:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every test of the suite ran (none skipped or deselected).
    assert!(report.contains("15 passed"), "{report}");
}
