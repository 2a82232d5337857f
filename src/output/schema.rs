//! The output tables' schemas, defined once: Arrow types for the writers, and the
//! column descriptions that `schemas/<table>.json` publishes (a test keeps the two equal).

use std::sync::{Arc, OnceLock};

use arrow_array::builder::{
    BooleanBuilder, FixedSizeBinaryBuilder, Float64Builder, Int32Builder, Int64Builder,
    ListBuilder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};

use crate::limits::{
    BUILDER_ROOM_BYTES, BUILDER_ROOM_ROWS, RUNS_DICTIONARY_BYTES, STEP_BATCH_ROWS,
    STEP_BUILDER_ROOM_BYTES,
};

/// The tables, in the order the pipeline writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    Documents,
    Groups,
    Rules,
    Sitemaps,
    Errors,
    Verdicts,
    Agents,
    /// Each interpretation profile's reading per (document, agent): only with
    /// `run --profiles` (or `--tables readings`).
    Readings,
    /// The AI-use signal lines and comments.
    Signals,
    /// Written by `robots-census sites`, not by `run`.
    Sites,
    /// The ranked host list `sites --ranks` stores in the dataset.
    Ranks,
    /// Written by `robots-census changes`: what changed per site between two crawls.
    Changes,
}

impl Table {
    /// The tables `run` writes.
    pub const ALL: [Table; 9] = [
        Table::Documents,
        Table::Groups,
        Table::Rules,
        Table::Sitemaps,
        Table::Errors,
        Table::Verdicts,
        Table::Agents,
        Table::Readings,
        Table::Signals,
    ];

    /// Tables derived from the run's tables by later steps (`sites`).
    pub const DERIVED: [Table; 3] = [Table::Sites, Table::Ranks, Table::Changes];

    pub fn name(self) -> &'static str {
        match self {
            Table::Documents => "documents",
            Table::Groups => "groups",
            Table::Rules => "rules",
            Table::Sitemaps => "sitemaps",
            Table::Errors => "errors",
            Table::Verdicts => "verdicts",
            Table::Agents => "agents",
            Table::Readings => "readings",
            Table::Signals => "signals",
            Table::Sites => "sites",
            Table::Ranks => "ranks",
            Table::Changes => "changes",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Table::Documents => "One row per robots.txt capture (WARC response/resource/revisit record or CSV row).",
            Table::Groups => "One row per group: a run of user-agent lines and the rules after them.",
            Table::Rules => "One row per allow/disallow line, and per other directive line (crawl-delay, host, unknown keys, ...).",
            Table::Sitemaps => "One row per Sitemap line.",
            Table::Errors => "Lint findings of the engine (origin = lint) and input problems of the pipeline (origin = input).",
            Table::Verdicts => "One row per (document, agent, URL) asked: robots.cc's answer from the parsed model.",
            Table::Agents => "One row per (document, agent): how the document treats that crawler.",
            Table::Readings => "One row per (parsed document, agent, profile): how each crawler family's parser reads the document for that agent, beside Google's (run --profiles).",
            Table::Signals => "One row per AI-use signal line or comment of a parsed document (AIPREF Content-Usage, Cloudflare Content-Signal, RSL License, LLM-Policy, DisallowAITraining, text-and-data-mining reservations, Cloudflare's managed block), parsed and validated.",
            Table::Sites => "One row per (crawl, site, agent): the capture that decides for the site in that crawl, and what it says (robots-census sites).",
            Table::Ranks => "The ranked host list given to `sites --ranks`, one row per host.",
            Table::Changes => "One row per change of a site between two crawls of the sites table: status class, an agent's block, a rule line, a sitemap, or the site appearing or disappearing (robots-census changes).",
        }
    }

    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Documents => DOCUMENTS,
            Table::Groups => GROUPS,
            Table::Rules => RULES,
            Table::Sitemaps => SITEMAPS,
            Table::Errors => ERRORS,
            Table::Verdicts => VERDICTS,
            Table::Agents => AGENTS,
            Table::Readings => READINGS,
            Table::Signals => SIGNALS,
            Table::Sites => SITES,
            Table::Ranks => RANKS,
            Table::Changes => CHANGES,
        }
    }

    /// The table's Arrow schema, made from [`Table::columns`] once per process: every
    /// batch of every task shares it, instead of building the same schema per batch.
    pub fn schema(self) -> SchemaRef {
        // `Changes` is the last variant: one slot per table.
        const TABLES: usize = Table::Changes as usize + 1;
        static SCHEMAS: [OnceLock<SchemaRef>; TABLES] = [const { OnceLock::new() }; TABLES];
        SCHEMAS[self as usize]
            .get_or_init(|| {
                let fields: Vec<Field> = self.columns().iter().map(Column::field).collect();
                Arc::new(Schema::new(fields))
            })
            .clone()
    }
}

/// Which tables a run writes. `documents` and `errors` are always in it: every
/// other table joins on `documents.doc_id`, and input problems must not be lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSet(u16);

impl TableSet {
    pub const ALL: TableSet = TableSet((1 << Table::ALL.len()) - 1);
    /// The tables of a run without `--tables`: all but `readings`, which costs a parse
    /// per crawler family and is asked for with `--profiles`.
    pub const DEFAULT: TableSet = TableSet(TableSet::ALL.0 & !(1 << Table::Readings as u16));
    const REQUIRED: TableSet =
        TableSet((1 << Table::Documents as u16) | (1 << Table::Errors as u16));

    /// The set with `table` added.
    pub fn with(self, table: Table) -> TableSet {
        TableSet(self.0 | 1 << table as u16)
    }

    pub fn contains(self, table: Table) -> bool {
        self.0 & (1 << table as u16) != 0
    }

    /// The names of the tables in the set, in [`Table::ALL`] order.
    pub fn names(self) -> Vec<&'static str> {
        Table::ALL
            .into_iter()
            .filter(|t| self.contains(*t))
            .map(Table::name)
            .collect()
    }

    /// The required tables plus the comma-separated names in `list`; `all` is every
    /// table of a run.
    pub fn parse(list: &str) -> Result<TableSet, String> {
        let mut set = TableSet::REQUIRED;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name == "all" {
                set.0 |= TableSet::ALL.0;
                continue;
            }
            // Only the run's tables: derived ones are written by their own step.
            let table = Table::ALL
                .into_iter()
                .find(|t| t.name() == name)
                .ok_or_else(|| name.to_owned())?;
            set.0 |= 1 << table as u16;
        }
        Ok(set)
    }
}

impl Default for TableSet {
    fn default() -> Self {
        TableSet::ALL
    }
}

/// Column types, mapped to Arrow (and so to Parquet and DuckDB).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// 16 bytes, a UUID in Parquet (DuckDB reads it as `UUID`).
    Uuid,
    Int64,
    Int32,
    Float64,
    Bool,
    Utf8,
    Utf8List,
    TimestampUtc,
}

impl Kind {
    pub fn data_type(self) -> DataType {
        match self {
            Kind::Uuid => DataType::FixedSizeBinary(16),
            Kind::Int64 => DataType::Int64,
            Kind::Int32 => DataType::Int32,
            Kind::Float64 => DataType::Float64,
            Kind::Bool => DataType::Boolean,
            Kind::Utf8 => DataType::Utf8,
            Kind::Utf8List => DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            Kind::TimestampUtc => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        }
    }

    /// The type as DuckDB names it (typed empty views of `_views.sql`).
    pub fn duckdb_type(self) -> &'static str {
        match self {
            Kind::Uuid => "UUID",
            Kind::Int64 => "BIGINT",
            Kind::Int32 => "INTEGER",
            Kind::Float64 => "DOUBLE",
            Kind::Bool => "BOOLEAN",
            Kind::Utf8 => "VARCHAR",
            Kind::Utf8List => "VARCHAR[]",
            Kind::TimestampUtc => "TIMESTAMPTZ",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Uuid => "uuid",
            Kind::Int64 => "int64",
            Kind::Int32 => "int32",
            Kind::Float64 => "float64",
            Kind::Bool => "bool",
            Kind::Utf8 => "string",
            Kind::Utf8List => "list<string>",
            Kind::TimestampUtc => "timestamp[us, UTC]",
        }
    }
}

/// One column: name, type, nullability, what it means, and how it is laid out.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    pub nullable: bool,
    pub doc: &'static str,
    pub layout: Layout,
}

/// How a column is encoded in Parquet, chosen by what its values look like. Writing is
/// the largest share of a run (BENCHMARKS.md, "Where a run's time goes"), dictionary
/// interning a large part of it: a dictionary or min/max statistics that help no reader
/// are cost and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Numbers, booleans, timestamps: plain pages (zstd finds the repeats) with
    /// min/max statistics, which are cheap for them and let readers skip row groups.
    /// A dictionary would intern every value and make the files larger, not smaller.
    Number,
    /// Strings repeated from row to row (agents, codes, directives; a document's host on
    /// each of its agents' rows): dictionary, no min/max. Every row group holds the
    /// whole domain, so min/max prune nothing.
    Repeated,
    /// One value per part file (`source`): dictionary and min/max, so a query on one
    /// input skips the part files of the others.
    PerFile,
    /// Mostly distinct strings (URLs, hashes, rule values): plain pages, no
    /// statistics. A dictionary would overflow and fall back to plain anyway.
    Distinct,
    /// The mostly distinct string a step's table is written in order of, a few rows per
    /// value (`changes.site`): plain pages with min/max, so a reader of a range of names
    /// (a `WHERE site = ...` in DuckDB) skips the row groups outside it.
    Sorted,
    /// Mostly distinct over the table, but one key's value on each of its consecutive
    /// rows (`sites.url`, `sites.start_url`: a site's URLs on each of its agents' rows):
    /// dictionary pages, whose indices are runs, with room for a row group's values
    /// ([`RUNS_DICTIONARY_BYTES`]); no statistics. Plain pages copied and compressed
    /// each value once per row: the sites step's largest cost.
    Runs,
    /// [`Layout::Sorted`] and [`Layout::Runs`] at once (`sites.site`): dictionary pages
    /// with min/max, so the `changes` step's passes over ranges of names skip the row
    /// groups outside them.
    SortedRuns,
}

impl Layout {
    pub fn dictionary(self) -> bool {
        matches!(
            self,
            Layout::Repeated | Layout::PerFile | Layout::Runs | Layout::SortedRuns
        )
    }

    pub fn statistics(self) -> bool {
        matches!(
            self,
            Layout::Number | Layout::PerFile | Layout::Sorted | Layout::SortedRuns
        )
    }

    /// The dictionary page room when it is not Parquet's default (1 MiB).
    pub fn dictionary_bytes(self) -> Option<usize> {
        matches!(self, Layout::Runs | Layout::SortedRuns).then_some(RUNS_DICTIONARY_BYTES)
    }
}

impl Column {
    /// A column with the layout its kind implies: strings repeated, the rest numbers.
    pub const fn new(name: &'static str, kind: Kind, nullable: bool, doc: &'static str) -> Column {
        let layout = match kind {
            Kind::Utf8 | Kind::Utf8List => Layout::Repeated,
            Kind::Uuid => Layout::Distinct,
            Kind::Int64 | Kind::Int32 | Kind::Float64 | Kind::Bool | Kind::TimestampUtc => {
                Layout::Number
            }
        };
        Column {
            name,
            kind,
            nullable,
            doc,
            layout,
        }
    }

    /// The same column, laid out as mostly distinct strings.
    pub const fn distinct(self) -> Column {
        Column {
            layout: Layout::Distinct,
            ..self
        }
    }

    /// The same column, laid out as the string its table is written in order of.
    pub const fn sorted(self) -> Column {
        Column {
            layout: Layout::Sorted,
            ..self
        }
    }

    /// The same column, laid out as a key's value on each of its consecutive rows.
    pub const fn runs(self) -> Column {
        Column {
            layout: Layout::Runs,
            ..self
        }
    }

    /// The same column, laid out as the string its table is written in order of, on
    /// each of a key's consecutive rows.
    pub const fn sorted_runs(self) -> Column {
        Column {
            layout: Layout::SortedRuns,
            ..self
        }
    }

    /// The same column, laid out as one value per part file.
    pub const fn per_file(self) -> Column {
        Column {
            layout: Layout::PerFile,
            ..self
        }
    }

    pub fn field(&self) -> Field {
        let field = Field::new(self.name, self.kind.data_type(), self.nullable);
        match self.kind {
            Kind::Uuid => field.with_extension_type(arrow_schema::extension::Uuid),
            _ => field,
        }
    }
}

pub use super::tables::{
    AGENTS, CHANGES, DOCUMENTS, ERRORS, GROUPS, RANKS, READINGS, RULES, SIGNALS, SITEMAPS, SITES,
    VERDICTS,
};

/// An Arrow builder that hands its column over as an array. It is left empty, with
/// room for about as many values (and bytes) as it handed over, up to a [`Room`]:
/// batches of one run are alike in size, so a reused builder does not grow by doubling
/// (a copy at each step, and up to twice the memory held by every finished array) for
/// each batch again.
pub trait ColumnBuilder: Default {
    fn finish_within(&mut self, room: Room) -> ArrayRef;
}

/// The most values and string bytes a finished builder keeps room for.
#[derive(Debug, Clone, Copy)]
pub struct Room {
    pub rows: usize,
    pub bytes: usize,
}

impl Room {
    /// A task's batches: [`BUILDER_ROOM_ROWS`], [`BUILDER_ROOM_BYTES`].
    pub const RUN: Room = Room {
        rows: BUILDER_ROOM_ROWS,
        bytes: BUILDER_ROOM_BYTES,
    };

    /// A step's batches ([`STEP_BATCH_ROWS`] rows and the rows of a site or two more).
    pub const STEP: Room = Room {
        rows: 2 * STEP_BATCH_ROWS,
        bytes: STEP_BUILDER_ROOM_BYTES,
    };

    /// Room for `used` values or bytes next time: a quarter more, so a slightly larger
    /// batch does not double the buffer, capped at `max`.
    fn next(used: usize, max: usize) -> usize {
        used.saturating_add(used / 4).min(max)
    }
}

macro_rules! primitive_builder {
    ($($builder:ty),*) => {
        $(impl ColumnBuilder for $builder {
            fn finish_within(&mut self, room: Room) -> ArrayRef {
                let array = self.finish();
                *self = <$builder>::with_capacity(Room::next(array.len(), room.rows));
                Arc::new(array)
            }
        })*
    };
}

primitive_builder!(BooleanBuilder, Float64Builder, Int32Builder, Int64Builder);

/// Builds a [`Kind::Utf8`] column. Nulls are counted and appended in runs: most
/// nullable string columns are null on most rows (an agents row's preferences, a
/// document's absent headers), and Arrow's builder pays a bitmap write and an offset
/// push for each null it is given one at a time.
#[derive(Default)]
pub struct StringColumn {
    builder: StringBuilder,
    /// Nulls appended since the last value, not yet in `builder`.
    nulls: usize,
}

impl StringColumn {
    #[inline]
    pub fn append_value(&mut self, value: impl AsRef<str>) {
        self.flush_nulls();
        self.builder.append_value(value);
    }

    #[inline]
    pub fn append_null(&mut self) {
        self.nulls += 1;
    }

    #[inline]
    pub fn append_option(&mut self, value: Option<impl AsRef<str>>) {
        match value {
            Some(value) => self.append_value(value),
            None => self.append_null(),
        }
    }

    /// `value` `n` times.
    pub fn append_value_n(&mut self, value: &str, n: usize) {
        self.flush_nulls();
        self.builder.append_value_n(value, n);
    }

    /// `value`, or null, `n` times.
    pub fn append_option_n(&mut self, value: Option<&str>, n: usize) {
        match value {
            Some(value) => self.append_value_n(value, n),
            None => self.nulls += n,
        }
    }

    #[inline]
    fn flush_nulls(&mut self) {
        if self.nulls > 0 {
            self.builder.append_nulls(self.nulls);
            self.nulls = 0;
        }
    }
}

impl ColumnBuilder for StringColumn {
    fn finish_within(&mut self, room: Room) -> ArrayRef {
        self.flush_nulls();
        let array = self.builder.finish();
        self.builder = StringBuilder::with_capacity(
            Room::next(array.len(), room.rows),
            Room::next(array.value_data().len(), room.bytes),
        );
        Arc::new(array)
    }
}

impl ColumnBuilder for ListBuilder<StringBuilder> {
    fn finish_within(&mut self, _room: Room) -> ArrayRef {
        // Lists are rare (one column, a few values per row): no room kept.
        Arc::new(self.finish())
    }
}

/// Builds a [`Kind::Uuid`] column: 16 bytes, a UUID in Parquet (DuckDB reads it as one).
pub struct IdBuilder(FixedSizeBinaryBuilder);

impl Default for IdBuilder {
    fn default() -> Self {
        IdBuilder(FixedSizeBinaryBuilder::new(16))
    }
}

impl IdBuilder {
    pub fn append_value(&mut self, id: [u8; 16]) {
        // The width is fixed at 16, so appending 16 bytes cannot fail.
        let appended = self.0.append_value(id);
        debug_assert!(appended.is_ok());
    }

    pub fn append_option(&mut self, id: Option<[u8; 16]>) {
        match id {
            Some(id) => self.append_value(id),
            None => self.0.append_null(),
        }
    }

    /// `id`, or null, `n` times.
    pub fn append_option_n(&mut self, id: Option<[u8; 16]>, n: usize) {
        match id {
            Some(id) => (0..n).for_each(|_| self.append_value(id)),
            None => self.0.append_nulls(n),
        }
    }
}

impl ColumnBuilder for IdBuilder {
    fn finish_within(&mut self, room: Room) -> ArrayRef {
        let array = self.0.finish();
        self.0 = FixedSizeBinaryBuilder::with_capacity(Room::next(array.len(), room.rows), 16);
        Arc::new(array)
    }
}

/// Builds a [`Kind::TimestampUtc`] column: microseconds since the epoch, in UTC.
#[derive(Default)]
pub struct UtcTimestampBuilder(TimestampMicrosecondBuilder);

impl UtcTimestampBuilder {
    pub fn append_option(&mut self, micros: Option<i64>) {
        self.0.append_option(micros);
    }
}

impl ColumnBuilder for UtcTimestampBuilder {
    fn finish_within(&mut self, room: Room) -> ArrayRef {
        let array = self.0.finish();
        self.0 = TimestampMicrosecondBuilder::with_capacity(Room::next(array.len(), room.rows));
        Arc::new(array.with_timezone("UTC"))
    }
}

/// `schemas/<table>.json`: the published form of a table's schema.
pub fn schema_json(table: Table) -> serde_json::Value {
    let columns: Vec<serde_json::Value> = table
        .columns()
        .iter()
        .map(|c| serde_json::json!({"name": c.name, "type": c.kind.name(), "nullable": c.nullable, "description": c.doc}))
        .collect();
    serde_json::json!({"table": table.name(), "description": table.description(), "columns": columns})
}

/// The column table of `schemas/README.md` for `table` (markdown, one line per column).
pub fn columns_markdown(table: Table) -> String {
    let mut text = "| column | type | null | meaning |\n|---|---|---|---|\n".to_owned();
    for c in table.columns() {
        let null = if c.nullable { "yes" } else { "no" };
        text += &format!(
            "| `{}` | {} | {null} | {} |\n",
            c.name,
            c.kind.name(),
            c.doc
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_columns_keep_values_and_nulls_in_order_across_batches() {
        use arrow_array::{Array, StringArray};
        let mut column = StringColumn::default();
        let rows = [
            None,
            None,
            Some("a"),
            None,
            Some("b"),
            Some("c"),
            None,
            None,
            None,
        ];
        for row in rows {
            column.append_option(row);
        }
        column.append_option_n(None, 2);
        column.append_option_n(Some("d"), 2);
        column.append_value_n("e", 1);
        let want: Vec<Option<&str>> = rows
            .into_iter()
            .chain([None, None, Some("d"), Some("d"), Some("e")])
            .collect();
        let array = column.finish_within(Room::RUN);
        let got = array
            .as_any()
            .downcast_ref::<StringArray>()
            .expect("strings");
        assert_eq!(got.iter().collect::<Vec<_>>(), want);
        assert_eq!(got.null_count(), 8);
        // Nulls last in one batch stay in it; the next batch starts empty.
        column.append_null();
        assert_eq!(column.finish_within(Room::RUN).len(), 1);
        assert_eq!(column.finish_within(Room::RUN).len(), 0);
    }

    #[test]
    fn table_sets_always_hold_documents_and_errors() {
        let set = TableSet::parse("agents, verdicts").expect("known names");
        for table in [
            Table::Documents,
            Table::Errors,
            Table::Agents,
            Table::Verdicts,
        ] {
            assert!(set.contains(table), "{table:?}");
        }
        for table in [Table::Groups, Table::Rules, Table::Sitemaps] {
            assert!(!set.contains(table), "{table:?}");
        }
        assert_eq!(TableSet::parse("rule").unwrap_err(), "rule");
        assert!(Table::ALL.iter().all(|t| TableSet::ALL.contains(*t)));
        // `all` is every table of a run, signals and readings too.
        assert_eq!(TableSet::parse("all"), Ok(TableSet::ALL));
        let signals = TableSet::parse("signals").expect("signals is a run table");
        assert!(signals.contains(Table::Signals) && !signals.contains(Table::Agents));
        assert!(TableSet::DEFAULT.contains(Table::Signals));
    }
}
