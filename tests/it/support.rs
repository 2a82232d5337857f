//! Paths and helpers shared by the integration tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The repository root.
/// The tables every run writes (all of them by default; not `readings`), in the order the
/// tests name them.
pub const TABLES: [&str; 8] = [
    "documents",
    "groups",
    "rules",
    "sitemaps",
    "errors",
    "verdicts",
    "agents",
    "signals",
];

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

/// Every `.txt` body of `../shared/corpus/robots` (recursively), in path order.
pub fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![shared().join("corpus/robots")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("read corpus dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "txt") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Every file under `dir` (recursively) whose extension is `ext`, in path order; none
/// when `dir` does not exist.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
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

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The answers of an oracle answer record (tests/oracle/answers.py's format,
/// agent-major): (allowed, deciding line) per question.
pub fn oracle_answers(record: &serde_json::Value) -> Vec<(bool, u32)> {
    let allowed = record["allowed"].as_str().expect("allowed").as_bytes();
    let lines = record["lines"].as_array().expect("lines");
    assert_eq!(
        allowed.len(),
        lines.len(),
        "answer record: allowed vs lines"
    );
    allowed
        .iter()
        .zip(lines)
        .map(|(a, l)| {
            let line = l.as_u64().and_then(|l| u32::try_from(l).ok());
            (*a == b'1', line.expect("line number"))
        })
        .collect()
}

pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// The built `robots-census` binary.
pub fn bin() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_robots-census"))
}

/// The part files of `<out>/<table>/crawl=*/`, in path order (none when the table
/// is absent): crawl partitions in name order, tasks in order within each.
pub fn parts(out: &std::path::Path, table: &str) -> Vec<PathBuf> {
    let mut parts: Vec<PathBuf> = walkdir::WalkDir::new(out.join(table))
        .into_iter()
        .flatten()
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    parts.sort();
    parts
}

/// Every record batch of `<out>/<table>/crawl=*/*.parquet`, part files in path order.
pub fn read_table(out: &std::path::Path, table: &str) -> Vec<arrow_array::RecordBatch> {
    parts(out, table)
        .iter()
        .flat_map(|p| read_table_file(p))
        .collect()
}

/// Every record batch of one part file.
pub fn read_table_file(part: &std::path::Path) -> Vec<arrow_array::RecordBatch> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let file = std::fs::File::open(part).expect("open part file");
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .expect("parquet footer")
        .build()
        .expect("reader");
    reader.map(|b| b.expect("record batch")).collect()
}

/// Every file under `dir` (relative path -> bytes).
///
/// A dataset's `_views.sql` is left out: its text names the dataset's own absolute
/// location (and the tasks finished when it was written), so two equal datasets in two
/// places differ there by design. `study.rs` checks what it lists.
pub fn tree(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file() && e.file_name() != "_views.sql")
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .expect("under dir")
                .to_string_lossy()
                .into_owned();
            (rel, std::fs::read(e.path()).expect("read file"))
        })
        .collect()
}

/// A column of a table as strings (nulls as None), all parts concatenated.
pub fn strings(batches: &[arrow_array::RecordBatch], column: &str) -> Vec<Option<String>> {
    use arrow_array::Array;
    let mut out = Vec::new();
    for batch in batches {
        let col = batch
            .column_by_name(column)
            .unwrap_or_else(|| panic!("no column {column}"));
        let col = arrow_array::cast::AsArray::as_string::<i32>(col);
        out.extend((0..col.len()).map(|i| col.is_valid(i).then(|| col.value(i).to_owned())));
    }
    out
}

/// An integer column (Int64 or Int32) as i64 (nulls as None).
pub fn ints(batches: &[arrow_array::RecordBatch], column: &str) -> Vec<Option<i64>> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type};
    use arrow_array::Array;
    let mut out = Vec::new();
    for batch in batches {
        let col = batch
            .column_by_name(column)
            .unwrap_or_else(|| panic!("no column {column}"));
        match col.data_type() {
            arrow_schema::DataType::Int64 => {
                let c = col.as_primitive::<Int64Type>();
                out.extend((0..c.len()).map(|i| c.is_valid(i).then(|| c.value(i))));
            }
            _ => {
                let c = col.as_primitive::<Int32Type>();
                out.extend((0..c.len()).map(|i| c.is_valid(i).then(|| i64::from(c.value(i)))));
            }
        }
    }
    out
}

/// The `doc_id` column (16-byte UUIDs) as hex strings (nulls as None).
pub fn ids(batches: &[arrow_array::RecordBatch], column: &str) -> Vec<Option<String>> {
    use arrow_array::cast::AsArray;
    use arrow_array::Array;
    let mut out = Vec::new();
    for batch in batches {
        let col = batch
            .column_by_name(column)
            .unwrap_or_else(|| panic!("no column {column}"))
            .as_fixed_size_binary();
        out.extend((0..col.len()).map(|i| {
            col.is_valid(i)
                .then(|| col.value(i).iter().map(|b| format!("{b:02x}")).collect())
        }));
    }
    out
}

/// Every input's report from the task manifests of `<out>/_manifests/`, in task
/// order, each with a `skipped_total`.
pub fn input_reports(out: &std::path::Path) -> Vec<serde_json::Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(out.join("_manifests"))
        .expect("manifests")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut reports = Vec::new();
    for file in files {
        let task: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&file).expect("read manifest"))
                .expect("manifest JSON");
        for input in task["inputs"].as_array().expect("inputs") {
            let mut input = input.clone();
            let skipped: u64 = input["skipped"]
                .as_object()
                .map_or(0, |m| m.values().filter_map(|v| v.as_u64()).sum());
            input["skipped_total"] = skipped.into();
            reports.push(input);
        }
    }
    reports
}

/// A boolean column (nulls as None).
pub fn bools(batches: &[arrow_array::RecordBatch], column: &str) -> Vec<Option<bool>> {
    use arrow_array::Array;
    let mut out = Vec::new();
    for batch in batches {
        let col = batch
            .column_by_name(column)
            .unwrap_or_else(|| panic!("no column {column}"));
        let c = arrow_array::cast::AsArray::as_boolean(col);
        out.extend((0..c.len()).map(|i| c.is_valid(i).then(|| c.value(i))));
    }
    out
}

/// A WARC record, gzip-compressed as its own member (Common Crawl style).
pub fn gz_record(warc_type: &str, uri: &str, block: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut record = format!(
        "WARC/1.0\r\nWARC-Type: {warc_type}\r\nWARC-Record-ID: <urn:uuid:{uri}-{warc_type}>\r\nWARC-Date: 2026-11-01T00:00:00Z\r\nWARC-Target-URI: {uri}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    record.extend_from_slice(block);
    record.extend_from_slice(b"\r\n\r\n");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&record).expect("gzip");
    gz.finish().expect("gzip")
}

/// An HTTP response block with a text/plain body.
pub fn http_block(status: u16, body: &[u8]) -> Vec<u8> {
    let mut block = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    block.extend_from_slice(body);
    block
}

/// A table's rows as sorted strings (one per row, columns joined by tabs): its
/// content, independent of how rows are split into part files.
pub fn table_rows(out: &std::path::Path, table: &str) -> Vec<String> {
    use arrow_cast::display::{ArrayFormatter, FormatOptions};
    let mut rows = Vec::new();
    for batch in read_table(out, table) {
        let options = FormatOptions::default();
        // Timestamps print as UTC wall time (named time zones need chrono-tz).
        let columns: Vec<arrow_array::ArrayRef> = batch
            .columns()
            .iter()
            .map(|c| match c.data_type() {
                arrow_schema::DataType::Timestamp(unit, Some(_)) => {
                    arrow_cast::cast(c, &arrow_schema::DataType::Timestamp(*unit, None))
                        .expect("timestamp cast")
                }
                _ => c.clone(),
            })
            .collect();
        let formatters: Vec<ArrayFormatter> = columns
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).expect("formatter"))
            .collect();
        for i in 0..batch.num_rows() {
            let cells: Vec<String> = formatters.iter().map(|f| f.value(i).to_string()).collect();
            rows.push(cells.join("\t"));
        }
    }
    rows.sort();
    rows
}

/// Runs queries/<name>.sql over the dataset `dir/out` in both engines the project
/// supports: DuckDB (tests/queries/run_queries.py, through the `_views.sql` the tool
/// writes) and the embedded DataFusion (`robots-census query --format json`), and
/// requires the same columns and rows from both (floats to 1e-9 relative). Returns
/// file stem -> DuckDB's result (`columns`, `rows`).
pub fn run_queries(dir: &Path, names: &[&str]) -> BTreeMap<String, Value> {
    let out = dir.join("out");
    let output = Command::new(python())
        .arg(repo().join("tests/queries/run_queries.py"))
        .arg(out.join("_views.sql"))
        .args(
            names
                .iter()
                .map(|n| repo().join("queries").join(format!("{n}.sql"))),
        )
        .output()
        .expect("run tests/queries/run_queries.py");
    assert!(
        output.status.success(),
        "DuckDB failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let duckdb = results_by_file(&output.stdout);
    for name in names {
        let file = repo().join("queries").join(format!("{name}.sql"));
        let run = bin()
            .arg("query")
            .arg(&out)
            .arg(&file)
            .args(["--format", "json", "--memory-limit", "256MiB"])
            .output()
            .expect("run robots-census query");
        assert!(
            run.status.success(),
            "robots-census query {name}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let embedded: Vec<serde_json::Map<String, Value>> = String::from_utf8_lossy(&run.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON object per row"))
            .collect();
        same_rows(name, "DuckDB", &duckdb[*name], &embedded);
    }
    duckdb
}

/// The JSON lines of tests/queries/run_queries.py (or run_queries_spark.py): file stem
/// -> its result (`columns`, `rows`).
pub fn results_by_file(stdout: &[u8]) -> BTreeMap<String, Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("JSON line");
            let name = v["file"]
                .as_str()
                .expect("file")
                .trim_end_matches(".sql")
                .to_owned();
            (name, v)
        })
        .collect()
}

/// Every SQL file of `files` run over the dataset `out` by DuckDB (through its
/// `_views.sql`, tests/queries/run_queries.py), all of them in one session: results by
/// file name as [`results_by_file`] gives them.
pub fn duckdb_results(out: &Path, files: &[PathBuf]) -> BTreeMap<String, Value> {
    let duckdb = Command::new(python())
        .arg(repo().join("tests/queries/run_queries.py"))
        .arg(out.join("_views.sql"))
        .args(files)
        .output()
        .expect("run tests/queries/run_queries.py");
    assert!(
        duckdb.status.success(),
        "DuckDB: {}",
        String::from_utf8_lossy(&duckdb.stderr)
    );
    results_by_file(&duckdb.stdout)
}

/// [`duckdb_results`], and the same files run by Spark SQL in local mode
/// (tests/queries/run_queries_spark.py with queries/preamble/spark.sql), all of them in
/// one session: `[("DuckDB", results), ("Spark", results)]`.
pub fn duckdb_and_spark_results(
    out: &Path,
    files: &[PathBuf],
) -> [(&'static str, BTreeMap<String, Value>); 2] {
    let spark = Command::new(python())
        .arg(repo().join("tests/queries/run_queries_spark.py"))
        .arg("--preamble")
        .arg(repo().join("queries/preamble/spark.sql"))
        .arg(out)
        .args(files)
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .output()
        .expect("run tests/queries/run_queries_spark.py");
    assert!(
        spark.status.success(),
        "Spark: {}",
        String::from_utf8_lossy(&spark.stderr)
    );
    [
        ("DuckDB", duckdb_results(out, files)),
        ("Spark", results_by_file(&spark.stdout)),
    ]
}

/// The result of `name` in `engine` (as run_queries.py / run_queries_spark.py print it)
/// and the embedded engine's rows hold the same values in the same order (arrow-json
/// leaves null fields out; timestamps compared as instants).
pub fn same_rows(
    name: &str,
    engine: &str,
    result: &Value,
    embedded: &[serde_json::Map<String, Value>],
) {
    let columns: Vec<&str> = result["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| c.as_str().expect("column"))
        .collect();
    let rows = result["rows"].as_array().expect("rows");
    assert_eq!(
        rows.len(),
        embedded.len(),
        "{name}: {engine} gives {} rows, the embedded engine {}",
        rows.len(),
        embedded.len()
    );
    for (i, (row, got)) in rows.iter().zip(embedded).enumerate() {
        if let Some(extra) = got.keys().find(|k| !columns.contains(&k.as_str())) {
            panic!("{name} row {i}: the embedded engine has column {extra}, {engine} {columns:?}");
        }
        let row = row.as_array().expect("row");
        assert_eq!(
            row.len(),
            columns.len(),
            "{name} row {i}: {engine}'s row width"
        );
        for (column, want) in columns.iter().zip(row) {
            let have = got.get(*column).unwrap_or(&Value::Null);
            assert!(
                same_value(want, have),
                "{name} row {i} column {column}: {engine} {want}, embedded engine {have}"
            );
        }
    }
}

pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
        }
        (Value::String(x), Value::String(y)) => {
            x == y || instant(x).is_some_and(|t| Some(t) == instant(y))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_value(a, b))
        }
        _ => a == b,
    }
}

/// A timestamp as DuckDB (`2026-01-02 03:04:05+00`) or arrow-json
/// (`2026-01-02T03:04:05Z`) writes it, as one comparable text.
fn instant(text: &str) -> Option<String> {
    let t = text.replacen('T', " ", 1);
    let t = t
        .strip_suffix('Z')
        .or_else(|| t.strip_suffix("+00:00"))
        .or_else(|| t.strip_suffix("+00"))?;
    let t = t.strip_suffix(".000000").unwrap_or(t);
    (t.len() >= 19 && t.as_bytes()[4] == b'-' && t.as_bytes()[13] == b':').then(|| t.to_owned())
}

/// The rows of one [`run_queries`] result as column name -> value maps.
pub fn named_rows(result: &Value) -> Vec<BTreeMap<String, Value>> {
    let columns: Vec<&str> = result["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| c.as_str().expect("column name"))
        .collect();
    result["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            columns
                .iter()
                .map(|c| c.to_string())
                .zip(r.as_array().expect("row").iter().cloned())
                .collect()
        })
        .collect()
}

/// robots.cc's answers to the differential questions about every corpus body
/// (`tests/oracle/answers.py`, JSON lines): computed once per test process (about six
/// minutes of both cores) and shared by the tests that need them (the Rust engine's
/// and the Python module's). ROBOTS_CENSUS_ANSWERS reuses an earlier file while
/// iterating; ROBOTS_CENSUS_DIFF_LIMIT asks about the first N bodies only.
pub fn corpus_oracle_answers() -> PathBuf {
    static ANSWERS: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ANSWERS
        .get_or_init(|| {
            if let Some(path) = std::env::var_os("ROBOTS_CENSUS_ANSWERS") {
                return path.into();
            }
            let out = scratch("oracle-answers").join("answers.jsonl");
            let mut cmd = Command::new(python());
            cmd.arg(repo().join("tests/oracle/answers.py"))
                .arg(shared())
                .arg(&out);
            if let Ok(limit) = std::env::var("ROBOTS_CENSUS_DIFF_LIMIT") {
                cmd.args(["--limit", &limit]);
            }
            let status = cmd.status().expect("run tests/oracle/answers.py");
            assert!(status.success(), "the oracle script failed: {status}");
            out
        })
        .clone()
}

/// The wheel `make wheel` left in dist/ for this version.
pub fn wheel() -> PathBuf {
    let prefix = format!("robots_census-{}-", env!("CARGO_PKG_VERSION"));
    let wheels: Vec<PathBuf> = std::fs::read_dir(repo().join("dist"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
                && p.extension().is_some_and(|e| e == "whl")
        })
        .collect();
    assert_eq!(
        wheels.len(),
        1,
        "expected one dist/{prefix}*.whl: run `make wheel` (found {wheels:?})"
    );
    wheels[0].clone()
}

/// Runs `cmd` (Chromium) with a deadline; returns whether it exited with success and its
/// stdout. Past the deadline the command and every process it started are killed: it
/// runs in a process group of its own, and the group is killed (Chromium leaves its
/// renderer and zygote processes behind when only the browser process is).
pub fn run_with_timeout(mut cmd: Command, limit: std::time::Duration) -> (bool, Vec<u8>) {
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .expect("start chromium");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut buf).ok();
        buf
    });
    let start = Instant::now();
    let ok = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.success();
        }
        if start.elapsed() > limit {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.kill();
            let _ = child.wait();
            break false;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    (ok, reader.join().unwrap_or_default())
}

/// Headless Chromium (Debian's package, which `make chromium` installs) with a window
/// 1280 px wide and `height` px high and its own profile directory `profile`.
pub fn chromium(profile: &Path, height: u32) -> Command {
    let mut cmd = Command::new("/usr/bin/chromium");
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ])
    .arg(format!("--window-size=1280,{height}"))
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}
