//! The agents table as the site step needs it: for the deciding capture of every
//! site, one byte of facts per agent (`named`, `root_allowed`, `probe_class`,
//! `cc_class`), in a flat table of a row per capture.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::Array;

use super::read::{Columns, Dictionary, DocId};
use super::SitesError;
use crate::output::read::{
    in_parallel, AgentNumbers, ReadError, RowGroup, RowsOf, SortedIds, Wanted,
};
use crate::robots::{ProbeClass, RuleSetClass};

/// What the agents table says about one (capture, agent), in one byte: `named`
/// (bit 0), `root_allowed` (bits 1-2: null, false, true), `probe_class` (bits 3-4:
/// null or the index in [`ProbeClass::ALL`] + 1), `cc_class` (bits 5-7: null or
/// the index in [`RuleSetClass::ALL`] + 1). A crawl's deciding captures times the
/// agents asked can be tens of millions of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentFacts(u8);

impl AgentFacts {
    /// No agents row (root bits 3 never occur otherwise).
    pub const MISSING: AgentFacts = AgentFacts(0b110);

    fn pack(named: bool, root: Option<bool>, probe: u8, cc: u8) -> AgentFacts {
        let root = match root {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        };
        AgentFacts(u8::from(named) | (root << 1) | (probe << 3) | (cc << 5))
    }

    pub fn is_missing(self) -> bool {
        self == Self::MISSING
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

/// The code of row `i` of a class column from its values' `codes` (0 for null; `None`
/// for a name this version does not know).
fn class_code(column: &Dictionary<'_>, codes: &[Option<u8>], i: usize) -> Option<u8> {
    match column.key(i) {
        None => Some(0),
        Some(k) => codes.get(k).copied().flatten(),
    }
}

/// The agents rows of the deciding captures: every agent the files name (sorted),
/// and per capture one [`AgentFacts`] per agent, in the order agents were first seen.
/// One flat table, a row per wanted capture in id order: 16 + agents bytes a
/// capture (a hash map of vectors cost about four times that).
#[derive(Debug, Default)]
pub struct AgentRows {
    pub agents: Vec<String>,
    /// For each of `agents`, its position in the rows of `cells`.
    seen: Vec<usize>,
    /// The wanted captures: row `i` of `cells` is the `i`-th's.
    ids: Arc<SortedIds>,
    cells: Cells,
}

impl AgentRows {
    /// Every agent's facts for a capture (one look-up for all of its agents).
    pub fn of(&self, doc: DocId) -> CaptureFacts<'_> {
        let width = self.cells.width;
        let row = match self.ids.position(&doc) {
            Some(i) => &self.cells.facts[i * width..(i + 1) * width],
            None => &[],
        };
        CaptureFacts {
            seen: &self.seen,
            row,
        }
    }
}

/// The facts of [`AgentRows`]: `width` per row, a row per wanted capture.
#[derive(Debug, Default)]
struct Cells {
    rows: usize,
    width: usize,
    facts: Vec<AgentFacts>,
}

impl Cells {
    /// Sets the facts of row `row` that `from` has (not missing); `numbers` maps the
    /// positions of `from` to the table's (None: the same).
    fn merge(&mut self, row: usize, from: &[AgentFacts], numbers: Option<&[usize]>) {
        let column = |a: usize| numbers.map_or(a, |n| n[a]);
        let need = (0..from.len()).map(|a| column(a) + 1).max().unwrap_or(0);
        if need > self.width {
            self.widen(need);
        }
        let cells = &mut self.facts[row * self.width..(row + 1) * self.width];
        for (a, &f) in from.iter().enumerate() {
            if !f.is_missing() {
                cells[column(a)] = f;
            }
        }
    }

    /// Room for `width` agents in every row (agents first seen in a later row group:
    /// rare, a run asks every capture about the same agents).
    fn widen(&mut self, width: usize) {
        let mut facts = vec![AgentFacts::MISSING; self.rows * width];
        if self.width > 0 {
            for (old, new) in self
                .facts
                .chunks_exact(self.width)
                .zip(facts.chunks_exact_mut(width))
            {
                new[..self.width].copy_from_slice(old);
            }
        }
        self.facts = facts;
        self.width = width;
    }
}

/// One capture's row of [`AgentRows`].
#[derive(Debug, Clone, Copy)]
pub struct CaptureFacts<'a> {
    seen: &'a [usize],
    row: &'a [AgentFacts],
}

impl CaptureFacts<'_> {
    /// The facts of `agent` (an index into [`AgentRows::agents`]).
    pub fn get(self, agent: usize) -> AgentFacts {
        let column = self.seen.get(agent).copied().unwrap_or(usize::MAX);
        self.row.get(column).copied().unwrap_or(AgentFacts::MISSING)
    }
}

/// Reads the agents rows of the `wanted` captures from `files`;
/// files that do not exist are skipped (a run with `--tables` may have no agents table).
/// With `filter`, only the wanted rows are decoded (for a pass that wants a few of the
/// crawl's captures; with about half of them wanted, reading every row is faster).
/// Row groups are read in parallel (decoding is most of the step's reading), then
/// merged in file and row-group order, so the result does not depend on the thread count.
pub fn read_agents(
    files: &[PathBuf],
    wanted: Vec<DocId>,
    filter: bool,
) -> Result<AgentRows, SitesError> {
    let files: Vec<PathBuf> = files.iter().filter(|p| p.is_file()).cloned().collect();
    // Agents are numbered as first seen over the files in order.
    let mut index: HashMap<String, usize> = HashMap::new();
    let shared = Arc::new(SortedIds::new(wanted));
    let mut cells = Cells {
        rows: shared.len(),
        ..Cells::default()
    };
    in_parallel(
        &files,
        |group| read_agents_group(group, &shared, filter),
        |part| {
            let global: Vec<usize> = part
                .names
                .into_iter()
                .map(|name| {
                    let next = index.len();
                    *index.entry(name).or_insert(next)
                })
                .collect();
            let identity = global.iter().enumerate().all(|(i, &g)| i == g);
            let numbers = (!identity).then_some(global.as_slice());
            // In row order, so a capture's rows seen twice keep the later facts.
            for &(row, ref range) in &part.captures {
                cells.merge(row, &part.facts[range.clone()], numbers);
            }
        },
    )?;
    let mut agents: Vec<(String, usize)> = index.into_iter().collect();
    agents.sort();
    Ok(AgentRows {
        seen: agents.iter().map(|(_, a)| *a).collect(),
        agents: agents.into_iter().map(|(name, _)| name).collect(),
        ids: shared,
        cells,
    })
}

/// One row group's agents rows of the wanted captures, agents numbered as first seen in
/// it: each capture's row of [`Cells`] (its position among the wanted) and its range of
/// `facts` (one per agent number), in the order read. One buffer for the row group,
/// not a vector per capture.
struct FileAgents {
    names: Vec<String>,
    captures: Vec<(usize, std::ops::Range<usize>)>,
    facts: Vec<AgentFacts>,
}

fn read_agents_group(
    group: &RowGroup<'_>,
    wanted: &Arc<SortedIds>,
    filter: bool,
) -> Result<FileAgents, SitesError> {
    let path = group.path;
    let mut numbers = AgentNumbers::default();
    let mut captures: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
    let mut facts: Vec<AgentFacts> = Vec::new();
    // A run writes a capture's agents rows together and in the same agent order for
    // every capture: the capture and the agent of the row before are tried first. A
    // capture is looked up once, for its row among the wanted (None: not wanted).
    let mut current: Option<(DocId, Option<usize>)> = None;
    let mut asked = Wanted::new(&**wanted);
    // Where the current capture's facts start in `facts`.
    let mut start = 0usize;
    let mut position = 0usize;
    let columns = [
        "doc_id",
        "agent",
        "named",
        "root_allowed",
        "probe_class",
        "cc_class",
    ];
    // Filtered, only the wanted captures' rows are decoded, and every agent the row
    // group names is collected apart: the agents are the table's either way.
    let of = RowsOf {
        wanted: wanted.clone(),
        filter,
        dictionary: "agent",
        dictionaries: &["probe_class", "cc_class"],
        values: Arc::default(),
    };
    for batch in group.rows_of(&columns, &of)? {
        let batch = batch?;
        let c = Columns {
            batch: &batch,
            path,
        };
        let (ids, agents, named, root) = (
            c.ids("doc_id")?,
            c.dictionary("agent")?,
            c.bool("named")?,
            c.bool("root_allowed")?,
        );
        let (probe, cc) = (c.dictionary("probe_class")?, c.dictionary("cc_class")?);
        // The classes' codes once per value of the batch, not a name compared per row;
        // an agent's number once per value too, on the first row that has it.
        let probe_codes = probe.map_values(|v| code(v, &ProbeClass::ALL, ProbeClass::as_str));
        let cc_codes = cc.map_values(|v| code(v, &RuleSetClass::ALL, RuleSetClass::as_str));
        let mut agent_numbers: Vec<Option<usize>> = agents.map_values(|_| None);
        // Each row's position among the wanted, one look-up per capture, the batch's
        // look-ups made together so their cache misses overlap (one at a time, between
        // rows, they were 4% of the 2M bench crawl's samples).
        let found = asked.positions(&ids, batch.num_rows());
        for (i, &at) in found.iter().enumerate() {
            let id = ids.value(i);
            let keep = match current {
                Some((capture, wanted_row)) if capture == id => {
                    position += 1;
                    wanted_row.is_some()
                }
                _ => {
                    if let Some((_, Some(at))) = current {
                        captures.push((at, start..facts.len()));
                    }
                    start = facts.len();
                    position = 0;
                    current = Some((id, at));
                    at.is_some()
                }
            };
            let key = agents.key(i).ok_or_else(|| c.wrong("agent"))?;
            let a = match agent_numbers.get(key).copied().flatten() {
                Some(a) => a,
                None => {
                    let agent = agents.value(i).ok_or_else(|| c.wrong("agent"))?;
                    let a = numbers.number(position, agent);
                    agent_numbers[key] = Some(a);
                    a
                }
            };
            if !keep {
                continue;
            }
            let probe =
                class_code(&probe, &probe_codes, i).ok_or_else(|| c.wrong("probe_class"))?;
            let cc = class_code(&cc, &cc_codes, i).ok_or_else(|| c.wrong("cc_class"))?;
            let root = root.is_valid(i).then(|| root.value(i));
            if facts.len() <= start + a {
                facts.resize(start + a + 1, AgentFacts::MISSING);
            }
            facts[start + a] = AgentFacts::pack(named.value(i), root, probe, cc);
        }
    }
    if let Some((_, Some(at))) = current {
        captures.push((at, start..facts.len()));
    }
    let mut names = numbers.names;
    let all = of
        .values
        .lock()
        .map_err(|_| ReadError::column(path, "agent"))?;
    for name in all.iter() {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    Ok(FileAgents {
        names,
        captures,
        facts,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::Path;
    use std::sync::Arc;

    use arrow_array::{ArrayRef, BooleanArray, FixedSizeBinaryArray, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;

    use super::*;

    /// (doc, agent, named, root_allowed, probe_class, cc_class) as an agents part writes them.
    type AgentRow = (
        u8,
        &'static str,
        bool,
        Option<bool>,
        Option<&'static str>,
        Option<&'static str>,
    );

    fn write_part(path: &Path, rows: &[AgentRow]) {
        let id = |d: u8| [d; 16];
        let columns: Vec<(&str, ArrayRef)> = vec![
            (
                "doc_id",
                Arc::new(
                    FixedSizeBinaryArray::try_from_iter(rows.iter().map(|r| id(r.0))).expect("ids"),
                ),
            ),
            (
                "agent",
                Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.1))),
            ),
            (
                "named",
                Arc::new(BooleanArray::from_iter(rows.iter().map(|r| Some(r.2)))),
            ),
            (
                "root_allowed",
                Arc::new(BooleanArray::from_iter(rows.iter().map(|r| r.3))),
            ),
            (
                "probe_class",
                Arc::new(StringArray::from_iter(rows.iter().map(|r| r.4))),
            ),
            (
                "cc_class",
                Arc::new(StringArray::from_iter(rows.iter().map(|r| r.5))),
            ),
        ];
        let batch = RecordBatch::try_from_iter(columns).expect("batch");
        // Row groups of 3 rows: a capture's rows are split across row groups.
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(3))
            .build();
        let file = std::fs::File::create(path).expect("create");
        let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).expect("writer");
        w.write(&batch).expect("write");
        w.close().expect("close");
    }

    #[test]
    fn row_groups_read_in_parallel_give_each_wanted_capture_its_agents_facts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (a, b) = (dir.path().join("a.parquet"), dir.path().join("b.parquet"));
        let (full, none, partial) = (Some("full"), Some("none"), Some("partial"));
        let (allows, part) = (Some("allow_all"), Some("allow_part"));
        // The two files name the agents in different orders, and the second knows one
        // agent more; capture 2 is not wanted, capture 5's rows are split by a row group.
        let first: Vec<AgentRow> = vec![
            (1, "GPTBot", true, Some(false), full, Some("disallow_all")),
            (1, "*", false, Some(true), none, allows),
            (5, "GPTBot", false, None, None, None),
            (5, "*", true, Some(true), partial, part),
            (2, "GPTBot", false, Some(true), none, allows),
            (2, "*", false, Some(true), none, allows),
            // An agent only an unwanted capture's rows name is still one of the table's.
            (2, "Bingbot", false, Some(true), none, allows),
        ];
        let second: Vec<AgentRow> = vec![
            (7, "CCBot", true, Some(false), full, Some("disallow_all")),
            (7, "*", false, Some(true), none, allows),
            (7, "GPTBot", false, Some(true), none, allows),
            (9, "CCBot", false, Some(true), none, allows),
            (9, "*", false, None, None, None),
            (9, "GPTBot", true, Some(false), partial, part),
        ];
        write_part(&a, &first);
        write_part(&b, &second);
        let wanted: Vec<DocId> = vec![[1; 16], [5; 16], [7; 16], [9; 16]];
        let rows = read_agents(&[a.clone(), b.clone()], wanted.clone(), false).expect("read");
        let filtered = read_agents(&[a, b], wanted, true).expect("read, filtered");
        assert_eq!(rows.agents, filtered.agents);
        for doc in [1u8, 2, 5, 7, 9] {
            let (all, some) = (rows.of([doc; 16]), filtered.of([doc; 16]));
            for i in 0..rows.agents.len() {
                assert_eq!(all.get(i), some.get(i), "doc {doc} agent {i}");
            }
        }
        assert_eq!(rows.agents, ["*", "Bingbot", "CCBot", "GPTBot"]);
        let expected: HashMap<(u8, &str), AgentRow> = first
            .iter()
            .chain(&second)
            .filter(|r| r.0 != 2)
            .map(|r| ((r.0, r.1), *r))
            .collect();
        for doc in [1u8, 2, 5, 7, 9] {
            let facts = rows.of([doc; 16]);
            for (i, agent) in rows.agents.iter().enumerate() {
                let got = facts.get(i);
                match expected.get(&(doc, agent.as_str())) {
                    None => assert!(got.is_missing(), "doc {doc} {agent}"),
                    Some(r) => {
                        assert_eq!(
                            (
                                got.named(),
                                got.root_allowed(),
                                got.probe_class(),
                                got.cc_class()
                            ),
                            (r.2, r.3, r.4, r.5),
                            "doc {doc} {agent}"
                        );
                    }
                }
            }
        }
    }
}
