//! The published schemas (`schemas/<table>.json`) must equal the code's schemas,
//! and the Parquet files a run writes must carry exactly those schemas.

use parquet::basic::Encoding;
use parquet::file::reader::{FileReader, SerializedFileReader};
use std::collections::BTreeSet;

use robots_census::internals::InputError;
use robots_census::internals::StoreError;
use robots_census::internals::INTERNAL_PANIC;
use robots_census::internals::{columns_markdown, schema_json, Table};
use robots_census_engine::Code;

use crate::support::{bin, gz_record, http_block, parts, repo, scratch};

/// The Python module's `check_many` batch (python/src/verdicts.rs), compiled here as it
/// is in the module.
#[path = "../../python/src/verdicts.rs"]
mod python_verdicts;

#[test]
fn python_check_many_columns_are_the_verdicts_table_s() {
    let table = Table::Verdicts.schema();
    let module = python_verdicts::verdicts_schema();
    let names: Vec<&str> = module.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names[0], "body", "the module's own column comes first");
    // The others are the table's columns, in the table's order, with its types.
    let in_table: Vec<&str> = table
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .filter(|name| names.contains(name))
        .collect();
    assert_eq!(&names[1..], &in_table[..]);
    for field in &module.fields()[1..] {
        let want = table
            .field_with_name(field.name())
            .expect("a verdicts column");
        assert_eq!(
            (field.data_type(), field.is_nullable()),
            (want.data_type(), want.is_nullable()),
            "check_many's {} against verdicts.{}",
            field.name(),
            field.name()
        );
    }
    // The batch builds with that schema, lines as robots.cc numbers them.
    let body = b"User-agent: *\nDisallow: /x\n".to_vec();
    let batch =
        python_verdicts::answer_all(&[body], &[b"a".to_vec()], &[b"/x".to_vec(), b"/y".to_vec()])
            .expect("check_many's batch");
    let lines = batch
        .column_by_name("line")
        .and_then(|c| c.as_any().downcast_ref::<arrow_array::Int32Array>())
        .expect("line: Int32");
    assert_eq!(lines.values().to_vec(), [2, 0]);
}

#[test]
fn schema_files_match_the_code() {
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    let mut stale = Vec::new();
    for table in Table::ALL.into_iter().chain(Table::DERIVED) {
        let path = repo()
            .join("schemas")
            .join(format!("{}.json", table.name()));
        let want = serde_json::to_string_pretty(&schema_json(table)).expect("schema JSON") + "\n";
        if update {
            std::fs::write(&path, &want).expect("write schema file");
            continue;
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "schema files differ from src/output/tables.rs (run `make schemas` and review): {stale:?}"
    );
}

/// The `| column | type | null | meaning |` table under `## `<table>``, as
/// (start, end) byte offsets in `readme`.
fn column_table(readme: &str, table: &str) -> Option<(usize, usize)> {
    let heading = readme.find(&format!("\n## `{table}`\n"))?;
    let start = heading + readme[heading..].find("\n| column | type | null | meaning |\n")? + 1;
    let mut end = start;
    for line in readme[start..].split_inclusive('\n') {
        if !line.starts_with('|') {
            break;
        }
        end += line.len();
    }
    Some((start, end))
}

#[test]
fn schemas_readme_column_tables_are_the_code_s() {
    let path = repo().join("schemas/README.md");
    let mut readme = std::fs::read_to_string(&path).expect("schemas/README.md");
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    let mut stale = Vec::new();
    for table in Table::ALL.into_iter().chain(Table::DERIVED) {
        let (start, end) = column_table(&readme, table.name()).unwrap_or_else(|| {
            panic!("schemas/README.md has no column table for {}", table.name())
        });
        let want = columns_markdown(table);
        if readme[start..end] != want {
            stale.push(table.name());
            readme.replace_range(start..end, &want);
        }
    }
    if update {
        // Renamed into place: the other tests of this file read it meanwhile.
        let tmp = path.with_extension("md.tmp");
        std::fs::write(&tmp, readme).expect("write schemas/README.md");
        std::fs::rename(&tmp, &path).expect("replace schemas/README.md");
    } else {
        assert!(
            stale.is_empty(),
            "schemas/README.md column tables differ from src/output/tables.rs (run `make schemas` and review): {stale:?}"
        );
    }
}

/// The first-column codes of the markdown tables after `heading` up to the next `## `.
fn documented_codes(readme: &str, heading: &str) -> BTreeSet<String> {
    let start = readme
        .find(heading)
        .unwrap_or_else(|| panic!("no section {heading}"));
    let rest = &readme[start + heading.len()..];
    let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once('`').map(|(code, _)| code.to_owned()))
        .collect()
}

#[test]
fn schemas_readme_documents_exactly_the_codes_of_the_code() {
    let readme =
        std::fs::read_to_string(repo().join("schemas/README.md")).expect("schemas/README.md");
    let lint: BTreeSet<String> = Code::ALL.iter().map(|c| c.as_str().to_owned()).collect();
    assert_eq!(documented_codes(&readme, "## Lint codes"), lint);
    let input: BTreeSet<String> = InputError::CODES
        .iter()
        .chain(StoreError::CODES)
        .chain([&INTERNAL_PANIC])
        .map(|c| (*c).to_owned())
        .collect();
    assert_eq!(documented_codes(&readme, "## Input problem codes"), input);
}

/// Each column is written with the dictionary and statistics its `Layout` names, in
/// every row group of every table: the run's, and the `sites` step's and its ranks'.
#[test]
fn written_columns_follow_their_layout() {
    let dir = scratch("layout");
    let out = dir.join("out");
    // The sample has no AI-use signal: one more record gives the signals table rows.
    let signals = dir.join("signals.warc.gz");
    let body = b"User-agent: *\nContent-Usage: train-ai=n\nContent-Signal: ai-train=no\nLicense: https://a.example/l.xml\nDisallow: /x\n";
    std::fs::write(
        &signals,
        gz_record(
            "response",
            "https://a.example/robots.txt",
            &http_block(200, body),
        ),
    )
    .expect("write signals input");
    let status = bin()
        .arg("run")
        .arg(repo().join("data-samples/cc-robotstxt-sample.warc.gz"))
        .arg(&signals)
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--profiles", "all"])
        .status()
        .expect("run robots-census");
    assert!(matches!(status.code(), Some(0 | 1)), "run failed: {status}");
    let ranks = dir.join("ranks.csv");
    std::fs::write(&ranks, "1,example.com\n2,example.org\n").expect("write ranks");
    let status = bin()
        .arg("sites")
        .arg(&out)
        .arg("--ranks")
        .arg(&ranks)
        .arg("--quiet")
        .status()
        .expect("run robots-census sites");
    assert_eq!(status.code(), Some(0), "sites failed: {status}");
    for table in Table::ALL.into_iter().chain([Table::Sites, Table::Ranks]) {
        // The first part file with rows (a task whose inputs have no signal line writes
        // an empty part).
        let reader = parts(&out, table.name())
            .iter()
            .map(|part| {
                SerializedFileReader::new(std::fs::File::open(part).expect("open part"))
                    .expect("parquet footer")
            })
            .find(|reader| reader.metadata().num_row_groups() > 0)
            .unwrap_or_else(|| panic!("{} has no row group", table.name()));
        let meta = reader.metadata();
        for group in meta.row_groups() {
            assert_eq!(group.num_columns(), table.columns().len());
            for (chunk, column) in group.columns().iter().zip(table.columns()) {
                let name = format!("{}.{}", table.name(), column.name);
                let has_dictionary = chunk.encodings().any(|e| e == Encoding::RLE_DICTIONARY);
                assert_eq!(
                    has_dictionary,
                    column.layout.dictionary(),
                    "{name}: dictionary"
                );
                assert_eq!(
                    chunk.statistics().is_some(),
                    column.layout.statistics(),
                    "{name}: statistics"
                );
            }
        }
    }
}
