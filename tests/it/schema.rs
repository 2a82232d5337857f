//! The published schemas (`schemas/<table>.json`) must equal the code's schemas,
//! and the Parquet files a run writes must carry exactly those schemas.

use parquet::basic::Encoding;
use parquet::file::reader::{FileReader, SerializedFileReader};
use robots_census::output::schema::{schema_json, Table};

use crate::support::{bin, parts, repo, scratch};

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
        "schema files differ from src/output/schema.rs (run `make schemas` and review): {stale:?}"
    );
}

#[test]
fn schemas_readme_documents_every_table_and_code() {
    let readme =
        std::fs::read_to_string(repo().join("schemas/README.md")).expect("schemas/README.md");
    for table in Table::ALL.into_iter().chain(Table::DERIVED) {
        assert!(
            readme.contains(&format!("`{}`", table.name())),
            "schemas/README.md does not describe table {}",
            table.name()
        );
        for column in table.columns() {
            assert!(
                readme.contains(&format!("`{}`", column.name)),
                "schemas/README.md does not mention column {}",
                column.name
            );
        }
    }
    for code in robots_census::robots::Code::ALL {
        assert!(
            readme.contains(&format!("`{}`", code.as_str())),
            "schemas/README.md does not document lint code {}",
            code.as_str()
        );
    }
}

/// Each column is written with the dictionary and statistics its `Layout` names, in
/// every row group of every table.
#[test]
fn written_columns_follow_their_layout() {
    let out = scratch("layout").join("out");
    let status = bin()
        .arg("run")
        .arg(repo().join("data-samples/cc-robotstxt-sample.warc.gz"))
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .status()
        .expect("run robots-census");
    assert!(matches!(status.code(), Some(0 | 1)), "run failed: {status}");
    for table in Table::ALL {
        let part = parts(&out, table.name());
        let part = part.first().expect("a part file");
        let reader = SerializedFileReader::new(std::fs::File::open(part).expect("open part"))
            .expect("parquet footer");
        let meta = reader.metadata();
        assert!(
            meta.num_row_groups() > 0,
            "{} has no row group",
            table.name()
        );
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
