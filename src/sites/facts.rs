//! The `agents` table as the sites step needs it: one byte of facts per (capture,
//! agent), read beside the `documents` rows they belong to.
//!
//! `run` writes, for every document, one agents row per agent of the run, in the same
//! agent order, in the order of the documents rows (a task's agents part goes with its
//! documents part). So the agents rows of documents rows `a..b` are rows `a*A..b*A` of
//! the agents part, A the agents asked. [`AgentsPart`] reads them by position, and
//! every row is checked: its `doc_id` must be its document's and its agent the one
//! at its place, or the step stops with an error naming the file and the row.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection,
    RowSelector,
};
use parquet::arrow::ProjectionMask;

use super::SitesError;
use crate::limits::READ_BATCH_ROWS;
use crate::output::ids::Ids;
use crate::output::read::ReadError;
use crate::output::rows::DocId;
use robots_census_engine::{ProbeClass, RuleSetClass};

/// What the agents table says about one (capture, agent), in one byte: `named`
/// (bit 0), `root_allowed` (bits 1-2: null, false, true), `probe_class` (bits 3-4:
/// null or the index in [`ProbeClass::ALL`] + 1), `cc_class` (bits 5-7: null or
/// the index in [`RuleSetClass::ALL`] + 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentFacts(pub u8);

impl AgentFacts {
    fn pack(named: bool, root: Option<bool>, probe: u8, cc: u8) -> AgentFacts {
        let root = match root {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        };
        AgentFacts(u8::from(named) | (root << 1) | (probe << 3) | (cc << 5))
    }

    pub fn named(self) -> bool {
        self.0 & 1 == 1
    }

    pub fn root_allowed(self) -> Option<bool> {
        match (self.0 >> 1) & 0b11 {
            1 => Some(false),
            2 => Some(true),
            _ => None,
        }
    }

    pub fn probe_class(self) -> Option<&'static str> {
        let code = usize::from((self.0 >> 3) & 0b11);
        code.checked_sub(1)
            .and_then(|i| ProbeClass::ALL.get(i))
            .map(|c| c.as_str())
    }

    pub fn cc_class(self) -> Option<&'static str> {
        let code = usize::from(self.0 >> 5);
        code.checked_sub(1)
            .and_then(|i| RuleSetClass::ALL.get(i))
            .map(|c| c.as_str())
    }
}

/// The code of a class name (0 for null), or `None` for a name this version does not know.
fn code<T: Copy>(name: Option<&str>, all: &[T], as_str: impl Fn(T) -> &'static str) -> Option<u8> {
    match name {
        None => Some(0),
        Some(name) => all
            .iter()
            .position(|c| as_str(*c) == name)
            .and_then(|i| u8::try_from(i + 1).ok()),
    }
}

/// The agents rows' columns the step reads; the string ones are read as dictionaries,
/// so a batch's names are compared once per value, not once per row.
const COLUMNS: [&str; 6] = [
    "doc_id",
    "agent",
    "named",
    "root_allowed",
    "probe_class",
    "cc_class",
];
const DICTIONARIES: [&str; 3] = ["agent", "probe_class", "cc_class"];

/// One agents part file, its footer read once, the agents it lists per document.
#[derive(Clone)]
pub struct AgentsPart {
    pub path: PathBuf,
    meta: ArrowReaderMetadata,
    /// Agents rows per document.
    pub width: usize,
}

impl AgentsPart {
    /// The agents part at `path`, going with a documents part of `documents` rows.
    pub fn open(path: &Path, documents: u64) -> Result<AgentsPart, SitesError> {
        let file = open(path)?;
        let plain = ArrowReaderMetadata::load(&file, ArrowReaderOptions::default())
            .map_err(parquet_err(path))?;
        let fields: Vec<Arc<Field>> = plain
            .schema()
            .fields()
            .iter()
            .map(|f| {
                let hinted =
                    DICTIONARIES.contains(&f.name().as_str()) && f.data_type() == &DataType::Utf8;
                match hinted {
                    true => Arc::new(f.as_ref().clone().with_data_type(DataType::Dictionary(
                        Box::new(DataType::Int32),
                        Box::new(DataType::Utf8),
                    ))),
                    false => f.clone(),
                }
            })
            .collect();
        let schema = Schema::new_with_metadata(fields, plain.schema().metadata().clone());
        let options = ArrowReaderOptions::new().with_schema(Arc::new(schema));
        let meta = ArrowReaderMetadata::try_new(plain.metadata().clone(), options)
            .map_err(parquet_err(path))?;
        for column in COLUMNS {
            if meta.schema().field_with_name(column).is_err() {
                return Err(ReadError::column(path, column).into());
            }
        }
        let rows = u64::try_from(meta.metadata().file_metadata().num_rows()).unwrap_or(0);
        let width = match (rows, documents) {
            (0, _) | (_, 0) => 0,
            (rows, documents) if rows % documents == 0 => (rows / documents) as usize,
            (rows, documents) => {
                return Err(SitesError::Misaligned {
                    path: path.to_owned(),
                    why: format!(
                        "{rows} agents rows for {documents} documents rows: not the same agents for every document"
                    ),
                })
            }
        };
        Ok(AgentsPart {
            path: path.to_owned(),
            meta,
            width,
        })
    }

    /// The agents of the first document, in order: what every document lists.
    pub fn agents(&self) -> Result<Vec<String>, SitesError> {
        let mut names = Vec::with_capacity(self.width);
        let mut rows = self.rows(0..self.width as u64)?;
        while names.len() < self.width {
            let Some(batch) = rows.next() else { break };
            let batch = batch?;
            let agents = dictionary(&batch, "agent", &self.path)?;
            for i in 0..batch.num_rows() {
                let name = agents
                    .value(i)
                    .ok_or_else(|| ReadError::column(&self.path, "agent"))?;
                names.push(name.to_owned());
            }
        }
        Ok(names)
    }

    /// The agents rows `range` (numbered from the file's first), in batches.
    fn rows(
        &self,
        range: std::ops::Range<u64>,
    ) -> Result<impl Iterator<Item = Result<RecordBatch, ReadError>>, SitesError> {
        let groups = self.meta.metadata().row_groups();
        let (mut start, mut picked, mut first) = (0u64, Vec::new(), None);
        for (i, g) in groups.iter().enumerate() {
            let n = u64::try_from(g.num_rows()).unwrap_or(0);
            if start < range.end && range.start < start + n {
                first.get_or_insert(start);
                picked.push(i);
            }
            start += n;
        }
        let first = first.unwrap_or(0);
        let skip = usize::try_from(range.start.saturating_sub(first)).unwrap_or(usize::MAX);
        let take = usize::try_from(range.end - range.start).unwrap_or(usize::MAX);
        let selection =
            RowSelection::from(vec![RowSelector::skip(skip), RowSelector::select(take)]);
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(
            open(&self.path)?,
            self.meta.clone(),
        );
        let mask = ProjectionMask::columns(builder.parquet_schema(), COLUMNS);
        let reader = builder
            .with_row_groups(picked)
            .with_row_selection(selection)
            .with_projection(mask)
            .with_batch_size(READ_BATCH_ROWS)
            .build()
            .map_err(parquet_err(&self.path))?;
        let path = self.path.clone();
        Ok(reader.map(move |b| {
            b.map_err(|e| ReadError::Parquet {
                path: path.clone(),
                source: e.into(),
            })
        }))
    }

    /// A reader of the facts of documents rows `docs` (numbered from the documents
    /// part's first), which list `agents` in that order.
    pub fn facts<'a>(
        &'a self,
        docs: std::ops::Range<u64>,
        agents: &'a Agents,
    ) -> Result<Facts<'a>, SitesError> {
        let width = self.width as u64;
        let rows = self.rows(docs.start * width..docs.end * width)?;
        Ok(Facts {
            part: self,
            agents,
            rows: Box::new(rows),
            batch: FactsBatch {
                ids: Vec::new(),
                facts: Vec::new(),
                used: 0,
            },
            next_row: docs.start * width,
        })
    }
}

/// The agents of a crawl: their names in the order every document lists them.
#[derive(Debug, Default)]
pub struct Agents {
    pub names: Vec<String>,
    index: HashMap<String, usize>,
}

impl Agents {
    pub fn new(names: Vec<String>) -> Agents {
        let index = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        Agents { names, index }
    }
}

/// One batch of agents rows, each row's facts worked out when it is read.
struct FactsBatch {
    ids: Vec<DocId>,
    facts: Vec<u8>,
    /// Rows of the batch used.
    used: usize,
}

/// The facts of consecutive documents, read from their agents rows.
pub struct Facts<'a> {
    part: &'a AgentsPart,
    agents: &'a Agents,
    rows: Box<dyn Iterator<Item = Result<RecordBatch, ReadError>> + Send + 'a>,
    batch: FactsBatch,
    /// The file row of the next row to be read.
    next_row: u64,
}

impl Facts<'_> {
    /// Fills `out` (one byte per agent) with the facts of the next document, whose id
    /// is `doc`.
    pub fn next(&mut self, doc: &DocId, out: &mut [u8]) -> Result<(), SitesError> {
        for fact in out.iter_mut() {
            if self.batch.used == self.batch.ids.len() {
                self.batch = self.next_batch()?;
            }
            let i = self.batch.used;
            if self.batch.ids[i] != *doc {
                let row = self.next_row;
                return Err(
                    self.misaligned(row, "its doc_id is not that of the document it goes with")
                );
            }
            *fact = self.batch.facts[i];
            self.batch.used += 1;
            self.next_row += 1;
        }
        Ok(())
    }

    /// The next batch, each row's agent checked against its place and its facts packed.
    fn next_batch(&mut self) -> Result<FactsBatch, SitesError> {
        let first = self.next_row;
        let batch = match self.rows.next() {
            Some(batch) => batch?,
            None => return Err(self.misaligned(first, "the file ends before its documents do")),
        };
        let path = &self.part.path;
        let c = Columns(&batch, path);
        let (ids, agents, named, root) = (
            c.ids()?,
            c.dictionary("agent")?,
            c.bool("named")?,
            c.bool("root_allowed")?,
        );
        let (probe, cc) = (c.dictionary("probe_class")?, c.dictionary("cc_class")?);
        fn values<'d>(
            d: &'d arrow_array::DictionaryArray<Int32Type>,
            column: &str,
            path: &Path,
        ) -> Result<&'d arrow_array::StringArray, ReadError> {
            d.values()
                .as_string_opt::<i32>()
                .ok_or_else(|| ReadError::column(path, column))
        }
        let names = values(agents, "agent", path)?;
        let positions: Vec<Option<usize>> = (0..names.len())
            .map(|k| self.agents.index.get(names.value(k)).copied())
            .collect();
        let codes = |d: &arrow_array::DictionaryArray<Int32Type>,
                     column: &str,
                     of: &dyn Fn(Option<&str>) -> Option<u8>|
         -> Result<Vec<Option<u8>>, ReadError> {
            let v = values(d, column, path)?;
            Ok((0..v.len())
                .map(|k| of(v.is_valid(k).then(|| v.value(k))))
                .collect())
        };
        let probe_codes = codes(probe, "probe_class", &|v| {
            code(v, &ProbeClass::ALL, ProbeClass::as_str)
        })?;
        let cc_codes = codes(cc, "cc_class", &|v| {
            code(v, &RuleSetClass::ALL, RuleSetClass::as_str)
        })?;
        let class =
            |d: &arrow_array::DictionaryArray<Int32Type>, codes: &[Option<u8>], i: usize| {
                if d.is_null(i) {
                    return Some(0);
                }
                usize::try_from(d.keys().value(i))
                    .ok()
                    .and_then(|k| codes.get(k).copied().flatten())
            };
        let width = self.part.width.max(1) as u64;
        let rows = batch.num_rows();
        let mut facts = Vec::with_capacity(rows);
        let mut doc_ids = Vec::with_capacity(rows);
        for i in 0..rows {
            let row = first + i as u64;
            let place = (row % width) as usize;
            let key = agents.keys().value(i);
            let position = usize::try_from(key)
                .ok()
                .and_then(|k| positions.get(k).copied().flatten());
            if agents.is_null(i) || position != Some(place) {
                let name = usize::try_from(key)
                    .ok()
                    .filter(|&k| k < names.len() && !agents.is_null(i))
                    .map(|k| names.value(k));
                let want = self.agents.names.get(place).map_or("", String::as_str);
                return Err(self.misaligned(
                    row,
                    &format!("agent {name:?} where every document lists {want:?}"),
                ));
            }
            let probe = class(probe, &probe_codes, i)
                .ok_or_else(|| ReadError::column(path, "probe_class"))?;
            let cc = class(cc, &cc_codes, i).ok_or_else(|| ReadError::column(path, "cc_class"))?;
            let root = root.is_valid(i).then(|| root.value(i));
            facts.push(AgentFacts::pack(named.value(i), root, probe, cc).0);
            doc_ids.push(ids.value(i));
        }
        Ok(FactsBatch {
            ids: doc_ids,
            facts,
            used: 0,
        })
    }

    fn misaligned(&self, row: u64, why: &str) -> SitesError {
        SitesError::Misaligned {
            path: self.part.path.clone(),
            why: format!(
                "row {row}: {why} (the sites step reads agents parts as `run` writes them)"
            ),
        }
    }
}

/// Typed columns of an agents batch, errors naming the file.
struct Columns<'a>(&'a RecordBatch, &'a Path);

impl<'a> Columns<'a> {
    fn ids(&self) -> Result<Ids<'a>, ReadError> {
        self.0
            .column_by_name("doc_id")
            .and_then(|c| Ids::of(c.as_ref()))
            .ok_or_else(|| ReadError::column(self.1, "doc_id"))
    }

    fn dictionary(
        &self,
        name: &str,
    ) -> Result<&'a arrow_array::DictionaryArray<Int32Type>, ReadError> {
        self.0
            .column_by_name(name)
            .and_then(|c| c.as_dictionary_opt::<Int32Type>())
            .ok_or_else(|| ReadError::column(self.1, name))
    }

    fn bool(&self, name: &str) -> Result<&'a arrow_array::BooleanArray, ReadError> {
        self.0
            .column_by_name(name)
            .and_then(|c| c.as_boolean_opt())
            .ok_or_else(|| ReadError::column(self.1, name))
    }
}

/// A string column of `batch` read as a dictionary.
fn dictionary<'b>(
    batch: &'b RecordBatch,
    name: &str,
    path: &Path,
) -> Result<DictionaryColumn<'b>, ReadError> {
    let keys = batch
        .column_by_name(name)
        .and_then(|c| c.as_dictionary_opt::<Int32Type>())
        .ok_or_else(|| ReadError::column(path, name))?;
    let values = keys
        .values()
        .as_string_opt::<i32>()
        .ok_or_else(|| ReadError::column(path, name))?;
    Ok(DictionaryColumn { keys, values })
}

struct DictionaryColumn<'b> {
    keys: &'b arrow_array::DictionaryArray<Int32Type>,
    values: &'b arrow_array::StringArray,
}

impl<'b> DictionaryColumn<'b> {
    fn value(&self, i: usize) -> Option<&'b str> {
        if self.keys.is_null(i) {
            return None;
        }
        let k = usize::try_from(self.keys.keys().value(i)).ok()?;
        (k < self.values.len()).then(|| self.values.value(k))
    }
}

fn open(path: &Path) -> Result<std::fs::File, ReadError> {
    std::fs::File::open(path).map_err(|source| ReadError::Io {
        path: path.to_owned(),
        source,
    })
}

fn parquet_err(path: &Path) -> impl Fn(parquet::errors::ParquetError) -> ReadError + '_ {
    move |source| ReadError::Parquet {
        path: path.to_owned(),
        source,
    }
}
