//! `<OUT>/_views.sql`: the dataset's tables as DuckDB views, by name, so that
//! `duckdb -init OUT/_views.sql -c ".read queries/x.sql"` works from any directory.
//!
//! Each view reads exactly the files the [`Catalog`] lists (finished tasks only, derived
//! tables made from this state of the dataset), by absolute path or `s3://` URL; a run
//! table with no rows is a typed empty view; an absent or stale table is a comment
//! saying why. The file ends with the DuckDB preamble of `queries/` (functions under the
//! names DataFusion and Spark SQL use). `run` (but a `--shard` run), `status`, `sites` and
//! `changes` write it again, so it describes the dataset as the last of them left it.

use super::catalog::{Catalog, Entry};
use super::dataset::VIEWS_FILE;
use super::{OutTarget, OutputError};

/// The DuckDB preamble of the queries (see `queries/README.md`).
pub const DUCKDB_PREAMBLE: &str = include_str!("../../queries/preamble/duckdb.sql");

/// The text of `_views.sql` for `catalog`.
pub fn duckdb_views(catalog: &Catalog) -> String {
    let mut sql = String::new();
    line(
        &mut sql,
        format!(
            "-- The tables of the robots-census dataset {} as DuckDB views, by name.\n\
         -- Dataset state {} ({} finished tasks); written by robots-census {}.\n\
         -- Use: duckdb -init {}/{VIEWS_FILE} -c \".read queries/<file>.sql\"\n",
            catalog.root,
            catalog.state.stamp(),
            catalog.state.tasks,
            env!("CARGO_PKG_VERSION"),
            catalog.root,
        ),
    );
    for (table, entry) in catalog.entries() {
        let name = table.name();
        match entry {
            Entry::Present(files) if !files.is_empty() => {
                line(
                    &mut sql,
                    format!("CREATE OR REPLACE VIEW {name} AS SELECT * FROM read_parquet(["),
                );
                for (i, file) in files.iter().enumerate() {
                    let sep = if i + 1 < files.len() { "," } else { "" };
                    line(
                        &mut sql,
                        format!("    {}{sep}", quote(&file.to_string_lossy())),
                    );
                }
                line(&mut sql, "], hive_partitioning = false);\n".to_owned());
            }
            Entry::Present(_) => {
                let columns: Vec<String> = table
                    .columns()
                    .iter()
                    .map(|c| format!("CAST(NULL AS {}) AS {}", c.kind.duckdb_type(), c.name))
                    .collect();
                line(&mut sql, format!("-- {name}: no rows in this dataset.\nCREATE OR REPLACE VIEW {name} AS SELECT {} WHERE false;\n",
                    columns.join(", ")));
            }
            Entry::Absent(why) | Entry::Stale(why) => {
                line(
                    &mut sql,
                    format!("-- {name}: not available: {}\n", why.replace('\n', " ")),
                );
            }
        }
    }
    sql.push_str(DUCKDB_PREAMBLE);
    sql
}

/// Appends `text` and a newline.
fn line(sql: &mut String, text: String) {
    sql.push_str(&text);
    sql.push('\n');
}

/// A SQL string literal.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Writes `<OUT>/_views.sql` for the dataset as it is now.
pub fn write(out: &OutTarget) -> Result<(), OutputError> {
    let catalog = Catalog::open(out).map_err(|e| OutputError::Meta(e.to_string()))?;
    out.write_file(VIEWS_FILE, duckdb_views(&catalog).as_bytes())
}
