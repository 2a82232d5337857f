//! The agents table as the site step needs it: for the deciding capture of every
//! site, one byte of facts per agent (`named`, `root_allowed`, `probe_class`,
//! `cc_class`), in a flat table of a row per capture.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::Array;

use super::read::{Columns, Dictionary, DocId};
use super::read::{FilePlaces, Places};
use super::SitesError;
use crate::output::ids::{SortedIds, Wanted};
use crate::output::read::{in_parallel, AgentNumbers, Pick, ReadError, RowGroup, RowsOf};
use parquet::arrow::arrow_reader::RowSelection;
use robots_census_engine::{ProbeClass, RuleSetClass};

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
    /// Row groups read by position whose rows were not where the documents said, and
    /// were read again with the filter (see [`Find::At`]).
    pub refiltered: usize,
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

/// How [`read_agents`] finds the wanted captures' rows.
#[derive(Debug, Clone, Copy)]
pub enum Find<'a> {
    /// Every row decoded: with about half the captures wanted (one pass), the fastest.
    All,
    /// By position, where the URLs' read found the captures in the documents table
    /// (`files` then go with the documents parts, in the same order): a run writes a
    /// capture's agents rows together, as many for every capture, in the order of its
    /// documents rows, so a capture's rows are found without decoding every `doc_id`.
    /// Every row read is checked to be its capture's, and the row just before and after
    /// to be another's; a row group where one is not is read with the filter instead.
    At(&'a Places),
}

/// Reads the agents rows of the `wanted` captures from `files` (`None`, or a file that
/// does not exist, is skipped: a run with `--tables` may have no agents table), as
/// `find` says. Row groups are read in parallel (decoding is most of the step's
/// reading), then merged in file and row-group order, so the result does not depend
/// on the thread count.
pub fn read_agents(
    files: &[Option<PathBuf>],
    wanted: Vec<DocId>,
    find: Find<'_>,
) -> Result<AgentRows, SitesError> {
    // The files read, and the documents part each goes with.
    let (paired, files): (Vec<usize>, Vec<PathBuf>) = files
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.as_ref().filter(|p| p.is_file()).map(|p| (i, p.clone())))
        .unzip();
    // Agents are numbered as first seen over the files in order.
    let mut index: HashMap<String, usize> = HashMap::new();
    let shared = Arc::new(SortedIds::new(wanted));
    let mut cells = Cells {
        rows: shared.len(),
        ..Cells::default()
    };
    let refiltered = std::sync::atomic::AtomicUsize::new(0);
    let read = |group: &RowGroup<'_>| -> Result<FileAgents, SitesError> {
        if let Find::At(places) = find {
            let place = paired.get(group.file).and_then(|&d| places.files.get(d));
            if let Some(placed) = place.and_then(|place| Placed::new(group, place, &shared)) {
                let rows = Pick::Rows(placed.selection(group));
                let read = read_agents_group(group, &shared, rows, Some(&placed))?;
                if !read.misplaced {
                    return Ok(read);
                }
                refiltered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let pick = match find {
            Find::All => Pick::All,
            Find::At(_) => Pick::Filter,
        };
        read_agents_group(group, &shared, pick, None)
    };
    in_parallel(&files, read, |part| {
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
    })?;
    let mut agents: Vec<(String, usize)> = index.into_iter().collect();
    agents.sort();
    Ok(AgentRows {
        seen: agents.iter().map(|(_, a)| *a).collect(),
        agents: agents.into_iter().map(|(name, _)| name).collect(),
        ids: shared,
        cells,
        refiltered: refiltered.into_inner(),
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
    /// Read by position, and a row was not where the documents part said.
    misplaced: bool,
}

impl FileAgents {
    fn misplaced() -> FileAgents {
        FileAgents {
            names: Vec::new(),
            captures: Vec::new(),
            facts: Vec::new(),
            misplaced: true,
        }
    }
}

fn read_agents_group(
    group: &RowGroup<'_>,
    wanted: &Arc<SortedIds>,
    pick: Pick,
    placed: Option<&Placed>,
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
    // Filtered or picked by position, only the wanted captures' rows are decoded,
    // and every agent the row group names is collected apart (from the dictionary):
    // the agents are the table's either way.
    let mut next_check = placed.map(|p| p.checks.iter().peekable());
    let mut read_rows = 0usize;
    let of = RowsOf {
        wanted: wanted.clone(),
        pick,
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
        if let (Some(placed), Some(next_check)) = (placed, next_check.as_mut()) {
            // Each row read must be where the checks say: else the whole row group
            // is read again with the filter.
            for i in 0..batch.num_rows() {
                let Some(&row) = placed.rows.get(read_rows + i) else {
                    return Ok(FileAgents::misplaced());
                };
                while let Some(check) = next_check.next_if(|c| c.row == row) {
                    if (ids.value(i) == check.id) != check.is {
                        return Ok(FileAgents::misplaced());
                    }
                }
            }
            read_rows += batch.num_rows();
        }
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
    if placed.is_some_and(|p| read_rows != p.rows.len()) {
        return Ok(FileAgents::misplaced());
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
        misplaced: false,
    })
}

/// One row the positional read must find as [`Find::At`] says: row `row` of the file
/// is (`is`) or is not (the rows just before and after a capture's) capture `id`'s.
#[derive(Debug, Clone, Copy)]
struct Check {
    row: u64,
    id: DocId,
    is: bool,
}

/// What a positional read of one row group reads and checks.
struct Placed {
    /// The checks of the wanted captures whose rows (or the rows next to them) are in
    /// the group, in row order.
    checks: Vec<Check>,
    /// The rows read: those the checks name, each once, in order, or the group's first
    /// row when there are none (read for the agents its dictionary names: they are
    /// collected from every row group).
    rows: Vec<u64>,
}

impl Placed {
    /// `None` when the file's rows are not as many for every capture of its documents
    /// part (`place`).
    fn new(group: &RowGroup<'_>, place: &FilePlaces, wanted: &SortedIds) -> Option<Placed> {
        let file_rows = group.file_rows();
        if place.rows == 0 || file_rows % place.rows != 0 {
            return None;
        }
        let per = file_rows / place.rows;
        let all = group.rows();
        let checks = checks(&place.found, per, file_rows, &all, |id| wanted.contains(id));
        let mut rows: Vec<u64> = checks.iter().map(|c| c.row).collect();
        rows.dedup();
        if rows.is_empty() && !all.is_empty() {
            rows.push(all.start);
        }
        Some(Placed { checks, rows })
    }

    /// [`Placed::rows`] as a selection within the group.
    fn selection(&self, group: &RowGroup<'_>) -> RowSelection {
        let all = group.rows();
        let len = usize::try_from(all.end - all.start).unwrap_or(usize::MAX);
        let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
        for &row in &self.rows {
            let at = usize::try_from(row - all.start).unwrap_or(usize::MAX);
            match ranges.last_mut() {
                Some(last) if last.end == at => last.end = at + 1,
                _ => ranges.push(at..at + 1),
            }
        }
        RowSelection::from_consecutive_ranges(ranges.into_iter(), len)
    }
}

/// The checks of the `wanted` captures among `found` (row in its documents part, id;
/// in row order) whose rows, `per` rows a capture in a file of `file_rows`, or the rows
/// next to them, are in `all`: in row order.
fn checks(
    found: &[(u64, DocId)],
    per: u64,
    file_rows: u64,
    all: &std::ops::Range<u64>,
    wanted: impl Fn(&DocId) -> bool,
) -> Vec<Check> {
    let mut checks: Vec<Check> = Vec::new();
    // The captures whose rows, with one row either side, end before the group are
    // skipped.
    let first = found.partition_point(|&(r, _)| (r + 1) * per < all.start);
    for &(r, id) in &found[first..] {
        let (from, to) = (r * per, (r + 1) * per);
        if from.saturating_sub(1) >= all.end {
            break;
        }
        if !wanted(&id) {
            continue;
        }
        // In row order: the row before, the capture's rows, the row after. The row
        // before is the last row of the capture just pushed when the two are next to
        // each other, so it goes before that capture's row after.
        if let Some(row) = from.checked_sub(1).filter(|row| all.contains(row)) {
            let at = match checks.last() {
                Some(last) if last.row > row => checks.len() - 1,
                _ => checks.len(),
            };
            checks.insert(at, Check { row, id, is: false });
        }
        let inside = from.max(all.start)..to.min(all.end);
        checks.extend(inside.map(|row| Check { row, id, is: true }));
        if to < file_rows && all.contains(&to) {
            checks.push(Check {
                row: to,
                id,
                is: false,
            });
        }
    }
    // In row order as pushed, `found` being in row order as the URLs' read gives it
    // (and as `partition_point` above needs): a sort of every check was 3.5% of the
    // samples of a crawl in two passes. Checks out of order could only fail, and their
    // row group be read again with the filter.
    checks
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

    /// `a` and `b` hold the same agents and the same facts for `docs`.
    fn assert_same(a: &AgentRows, b: &AgentRows, docs: &[u8]) {
        assert_eq!(a.agents, b.agents);
        for &doc in docs {
            let (x, y) = (a.of([doc; 16]), b.of([doc; 16]));
            for i in 0..a.agents.len() {
                assert_eq!(x.get(i), y.get(i), "doc {doc} agent {i}");
            }
        }
    }

    /// Captures 1 to 6, two agents rows each (capture 4 names Bingbot, no other does),
    /// in row groups of 3 rows, so captures are split across them.
    fn six_captures(path: &Path) {
        let (none, allows) = (Some("none"), Some("allow_all"));
        let rows: Vec<AgentRow> = (1..=6u8)
            .flat_map(|d| {
                let agent = if d == 4 { "Bingbot" } else { "GPTBot" };
                [
                    (d, agent, d % 2 == 0, Some(d % 3 == 0), none, allows),
                    (d, "*", false, Some(true), None, None),
                ]
            })
            .collect();
        write_part(path, &rows);
    }

    /// The checks as the step first made them: each capture's rows and the rows either
    /// side pushed in that order, then sorted.
    fn checks_sorted_after(
        found: &[(u64, DocId)],
        per: u64,
        file_rows: u64,
        all: &std::ops::Range<u64>,
        wanted: &[DocId],
    ) -> Vec<(u64, DocId, bool)> {
        let mut checks = Vec::new();
        for &(r, id) in found.iter().filter(|(_, id)| wanted.contains(id)) {
            let (from, to) = (r * per, (r + 1) * per);
            checks.extend((from..to).map(|row| (row, id, true)));
            checks.extend(from.checked_sub(1).map(|row| (row, id, false)));
            checks.extend((to < file_rows).then_some((to, id, false)));
        }
        checks.retain(|c| all.contains(&c.0));
        checks.sort_by_key(|c| c.0);
        checks
    }

    proptest::proptest! {
        /// Pushed in row order, the checks are the ones a sort of every check gives,
        /// captures next to each other included.
        #[test]
        fn checks_come_in_row_order_without_a_sort(
            rows in proptest::collection::btree_set(0u64..24, 0..24),
            unwanted in proptest::collection::vec(proptest::bool::ANY, 24),
            per in 1u64..4,
            start in 0u64..100,
            len in 0u64..100,
        ) {
            let captures = 24;
            let found: Vec<(u64, DocId)> = rows.iter().map(|&r| (r, [r as u8; 16])).collect();
            let wanted: Vec<DocId> = found
                .iter()
                .filter(|(r, _)| !unwanted[*r as usize])
                .map(|&(_, id)| id)
                .collect();
            let file_rows = captures * per;
            let all = start.min(file_rows)..(start + len).min(file_rows);
            let made: Vec<(u64, DocId, bool)> =
                checks(&found, per, file_rows, &all, |id| wanted.contains(id))
                    .iter()
                    .map(|c| (c.row, c.id, c.is))
                    .collect();
            proptest::prop_assert!(made.is_sorted_by_key(|c| c.0), "{made:?}");
            let mut expected = checks_sorted_after(&found, per, file_rows, &all, &wanted);
            let mut made = made;
            expected.sort();
            made.sort();
            proptest::prop_assert_eq!(made, expected);
        }
    }

    #[test]
    fn agents_rows_found_by_position_are_the_rows_every_row_gives() {
        let dir = tempfile::tempdir().expect("tempdir");
        let c = dir.path().join("c.parquet");
        six_captures(&c);
        let files = [None, Some(c)];
        let wanted: Vec<DocId> = vec![[2; 16], [5; 16]];
        let all = read_agents(&files, wanted.clone(), Find::All).expect("read");
        assert_eq!(all.agents, ["*", "Bingbot", "GPTBot"]);
        let place = |found: Vec<(u64, DocId)>| Places {
            files: vec![FilePlaces::default(), FilePlaces { rows: 6, found }],
        };
        // Where the documents say: no row group read again, and Bingbot (only the
        // unwanted capture 4 names it) is still one of the agents.
        let right = place(vec![(1, [2; 16]), (4, [5; 16])]);
        let placed = read_agents(&files, wanted.clone(), Find::At(&right)).expect("placed");
        assert_same(&all, &placed, &[1, 2, 3, 4, 5, 6]);
        assert_eq!(placed.refiltered, 0);
        // Capture 2 said to be at row 0: its row groups fail their checks and are read
        // with the filter, which finds the same facts.
        let wrong = place(vec![(0, [2; 16]), (4, [5; 16])]);
        let misplaced = read_agents(&files, wanted.clone(), Find::At(&wrong)).expect("misplaced");
        assert_same(&all, &misplaced, &[1, 2, 3, 4, 5, 6]);
        assert!(misplaced.refiltered > 0);
        // Rows that are not a multiple of the documents' count: the filter everywhere.
        let mut uneven = place(vec![(1, [2; 16]), (4, [5; 16])]);
        uneven.files[1].rows = 5;
        let filtered = read_agents(&files, wanted, Find::At(&uneven)).expect("filtered");
        assert_same(&all, &filtered, &[1, 2, 3, 4, 5, 6]);
        assert_eq!(filtered.refiltered, 0);
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
        let files = [Some(a), Some(b)];
        let rows = read_agents(&files, wanted.clone(), Find::All).expect("read");
        // By position: the first file's captures have unlike numbers of rows (read
        // with the filter), the second's are placed (two rows each, rows 0 and 1).
        let places = Places {
            files: vec![
                FilePlaces {
                    rows: 3,
                    found: vec![(0, [1; 16]), (1, [5; 16])],
                },
                FilePlaces {
                    rows: 2,
                    found: vec![(0, [7; 16]), (1, [9; 16])],
                },
            ],
        };
        let placed = read_agents(&files, wanted, Find::At(&places)).expect("read, placed");
        assert_same(&rows, &placed, &[1, 2, 5, 7, 9]);
        assert_eq!(placed.refiltered, 0);
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
