//! `check_many`'s Arrow batch: every (body, agent, URL) answer, its columns those of
//! the census's `verdicts` table (but `doc_id`, `profile` and `crawl`) after a `body`
//! index. Plain Rust over the engine and arrow, no Python: `tests/it/schema.rs`
//! compiles this file too and holds its schema to the table's definition.

use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Int32Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use robots_census_engine::RobotsTxt;

/// The columns of the batch; all but `body` are the `verdicts` table's, with its types.
pub fn verdicts_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("body", DataType::Int64, false),
        Field::new("agent", DataType::Utf8, false),
        Field::new("url", DataType::Utf8, false),
        Field::new("allowed", DataType::Boolean, false),
        Field::new("line", DataType::Int32, false),
        Field::new("directive", DataType::Utf8, true),
        Field::new("pattern", DataType::Utf8, true),
        Field::new("scope", DataType::Utf8, false),
    ]))
}

/// Every (body, agent, URL) answer, each body parsed once; the error says why the batch
/// could not be built.
pub fn answer_all(
    bodies: &[Vec<u8>],
    agents: &[Vec<u8>],
    urls: &[Vec<u8>],
) -> Result<RecordBatch, String> {
    let mut body_col = Int64Builder::new();
    let (mut agent_col, mut url_col) = (StringBuilder::new(), StringBuilder::new());
    let mut allowed_col = BooleanBuilder::new();
    let mut line_col = Int32Builder::new();
    let (mut directive_col, mut pattern_col) = (StringBuilder::new(), StringBuilder::new());
    let mut scope_col = StringBuilder::new();
    for (index, body) in bodies.iter().enumerate() {
        let doc = RobotsTxt::parse(body);
        let index = i64::try_from(index).map_err(|_| format!("body {index}: too many bodies"))?;
        for agent in agents {
            let agent_text = String::from_utf8_lossy(agent);
            for url in urls {
                let verdict = doc.verdict(agent, url);
                // Lines of a body cut at 500 KiB: far below i32::MAX.
                let line = i32::try_from(verdict.line)
                    .map_err(|_| format!("body {index}: line {} out of range", verdict.line))?;
                body_col.append_value(index);
                agent_col.append_value(&agent_text);
                url_col.append_value(String::from_utf8_lossy(url));
                allowed_col.append_value(verdict.allowed);
                line_col.append_value(line);
                directive_col.append_option(verdict.directive().map(|d| d.as_str()));
                pattern_col.append_option(verdict.pattern().map(String::from_utf8_lossy));
                scope_col.append_value(verdict.scope.as_str());
            }
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(body_col.finish()),
        Arc::new(agent_col.finish()),
        Arc::new(url_col.finish()),
        Arc::new(allowed_col.finish()),
        Arc::new(line_col.finish()),
        Arc::new(directive_col.finish()),
        Arc::new(pattern_col.finish()),
        Arc::new(scope_col.finish()),
    ];
    RecordBatch::try_new(verdicts_schema(), columns).map_err(|e| e.to_string())
}
