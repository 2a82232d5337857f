//! Capture ids in the tables read back: a `doc_id` column as ids (`Ids`), maps keyed by
//! id ([`IdMap`]), and the sorted sets of ids a step wants with their look-ups
//! ([`SortedIds`], and `Wanted`: a table is asked about every one of its rows).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use arrow_array::cast::AsArray;
use arrow_array::Array;

use crate::output::rows::DocId;

/// A `doc_id` column read as [`DocId`]s.
pub(crate) enum Ids<'a> {
    Fixed(&'a arrow_array::FixedSizeBinaryArray),
    Binary(&'a arrow_array::BinaryArray),
}

impl<'a> Ids<'a> {
    /// 16-byte ids, as robots-census writes them (a Parquet UUID, fixed-size binary) or
    /// as Spark does (binary: the Spark SQL sites step), every value 16 bytes long;
    /// `None` for any other column.
    pub(crate) fn of(column: &'a dyn Array) -> Option<Ids<'a>> {
        if let Some(fixed) = column.as_fixed_size_binary_opt() {
            return (fixed.value_length() == 16).then_some(Ids::Fixed(fixed));
        }
        let binary = column.as_binary_opt::<i32>()?;
        let all_16 = (0..binary.len()).all(|i| binary.is_null(i) || binary.value(i).len() == 16);
        all_16.then_some(Ids::Binary(binary))
    }

    pub(crate) fn is_valid(&self, i: usize) -> bool {
        match self {
            Ids::Fixed(a) => a.is_valid(i),
            Ids::Binary(a) => a.is_valid(i),
        }
    }

    pub(crate) fn null_count(&self) -> usize {
        match self {
            Ids::Fixed(a) => a.null_count(),
            Ids::Binary(a) => a.null_count(),
        }
    }

    pub(crate) fn value(&self, i: usize) -> DocId {
        let bytes = match self {
            Ids::Fixed(a) => a.value(i),
            Ids::Binary(a) => a.value(i),
        };
        // 16 bytes (checked by `Ids::of`) but for a null slot's empty value.
        let mut id = [0u8; 16];
        let n = bytes.len().min(16);
        id[..n].copy_from_slice(&bytes[..n]);
        id
    }
}

/// A map keyed by capture id. A `doc_id` is SHA-1 bits, already evenly spread, so the
/// map takes its first eight bytes as the hash instead of hashing the sixteen again
/// (SipHash was about 3% of the sites step). A table written to collide only slows the
/// step down; the answers do not change.
pub type IdMap<V> = HashMap<DocId, V, BuildHasherDefault<IdHasher>>;

/// The hasher of [`IdMap`]: the first eight bytes of the id, as they are.
#[derive(Debug, Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        // A `[u8; 16]` is hashed as its length, then its bytes in one `write`.
        let mut first = [0u8; 8];
        let n = bytes.len().min(8);
        first[..n].copy_from_slice(&bytes[..n]);
        self.0 ^= u64::from_le_bytes(first);
    }

    fn write_usize(&mut self, _length: usize) {}

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Capture ids, sorted, with an index on their leading bits: about one id per
/// bucket, so a look-up reads two adjacent bucket bounds and then one or two ids.
/// Doc ids are SHA-1 bits, so the buckets are even; ids that are not only make the
/// search in a bucket longer, never wrong. The look-ups a pass makes for every row of
/// a table were a binary search in 65,536 slices before, 6% of the 1M bench crawl's
/// `sites` samples (BENCHMARKS.md).
#[derive(Debug)]
pub struct SortedIds {
    ids: Vec<DocId>,
    /// `starts[b]..starts[b + 1]`: the ids whose leading `bits` bits are `b`.
    starts: Vec<u32>,
    bits: u32,
}

impl Default for SortedIds {
    fn default() -> Self {
        SortedIds::new(Vec::new())
    }
}

impl SortedIds {
    pub fn new(mut ids: Vec<DocId>) -> SortedIds {
        ids.sort_unstable();
        ids.dedup();
        // Callers pass ids with repeats (a site's start and end are often one capture):
        // the room of the repeats is given back, not held to the end of the pass.
        ids.shrink_to_fit();
        // A power of two at least the number of ids, within [2^8, 2^24]: u32 bounds
        // (a pass holds far fewer than 2^32 ids) cost 4 bytes an id at most.
        let bits = ids.len().next_power_of_two().trailing_zeros().clamp(8, 24);
        let buckets = 1usize << bits;
        let mut starts = Vec::with_capacity(buckets + 1);
        let mut at = 0;
        for b in 0..=buckets {
            while at < ids.len() && bucket(&ids[at], bits) < b {
                at += 1;
            }
            starts.push(u32::try_from(at).unwrap_or(u32::MAX));
        }
        SortedIds { ids, starts, bits }
    }

    /// The position of `id` among the ids, if it is one.
    pub fn position(&self, id: &DocId) -> Option<usize> {
        let b = bucket(id, self.bits);
        let (from, to) = (
            *self.starts.get(b)? as usize,
            *self.starts.get(b + 1)? as usize,
        );
        let slice = self.ids.get(from..to)?;
        // A binary search, so ids that crowd one bucket cost a log, not a scan.
        slice.binary_search(id).ok().map(|i| from + i)
    }

    pub fn contains(&self, id: &DocId) -> bool {
        self.position(id).is_some()
    }

    /// [`SortedIds::position`] of each of `ids`, appended to `out` in order. The
    /// look-ups of a batch do not depend on each other: made in phases over chunks
    /// (every bucket's bounds loaded, then the searches), their cache misses overlap,
    /// where one look-up after the other waits for each miss in turn. A pass's ids are
    /// megabytes, outside the caches, and a table is asked about each of its rows.
    pub fn positions(&self, ids: &[DocId], out: &mut Vec<Option<usize>>) {
        const CHUNK: usize = 32;
        out.reserve(ids.len());
        for chunk in ids.chunks(CHUNK) {
            let mut bounds = [(0usize, 0usize); CHUNK];
            for (b, id) in bounds.iter_mut().zip(chunk) {
                let k = bucket(id, self.bits);
                *b = match (self.starts.get(k), self.starts.get(k + 1)) {
                    (Some(&from), Some(&to)) => (from as usize, to as usize),
                    _ => (0, 0),
                };
            }
            for (&(from, to), id) in bounds.iter().zip(chunk) {
                let found = self.ids.get(from..to).and_then(|slice| {
                    // Most buckets hold one id or none: the search is one comparison.
                    slice.binary_search(id).ok().map(|i| from + i)
                });
                out.push(found);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

impl AsRef<SortedIds> for SortedIds {
    fn as_ref(&self) -> &SortedIds {
        self
    }
}

/// The leading `bits` bits of an id (bits <= 24).
fn bucket(id: &DocId, bits: u32) -> usize {
    let lead = u32::from_be_bytes([id[0], id[1], id[2], id[3]]);
    (lead >> (32 - bits)) as usize
}

/// Ids asked about rows that come grouped by capture (every table of a run writes a
/// capture's rows together): the answer for the row before is reused. `S` is the
/// [`SortedIds`], borrowed or shared.
pub(crate) struct Wanted<S> {
    ids: S,
    /// The last run's id and its position among the wanted.
    last: Option<(DocId, Option<usize>)>,
}

impl<S: AsRef<SortedIds>> Wanted<S> {
    pub(crate) fn new(ids: S) -> Self {
        Wanted { ids, last: None }
    }

    /// Whether each row of a batch's `doc_id` column is wanted (a null id never is).
    pub(crate) fn rows(&mut self, ids: &Ids<'_>, rows: usize) -> Vec<bool> {
        let mut keep = vec![false; rows];
        self.each_run(ids, rows, |from, to, _| keep[from..to].fill(true));
        keep
    }

    /// The position among the wanted of each row's id ([`SortedIds::position`]; None
    /// for an id not wanted and for a null one).
    pub(crate) fn positions(&mut self, ids: &Ids<'_>, rows: usize) -> Vec<Option<usize>> {
        let mut found = vec![None; rows];
        self.each_run(ids, rows, |from, to, at| found[from..to].fill(Some(at)));
        found
    }

    /// Calls `answer(from, to, position)` for each span of rows whose id is wanted
    /// (a null id never is): one look-up per run of equal ids, the answer of the batch
    /// before's last run carried over, the batch's look-ups made together
    /// ([`SortedIds::positions`]). Made row by row, they were a third of what a second
    /// pass of the sites step added (BENCHMARKS.md).
    fn each_run(
        &mut self,
        ids: &Ids<'_>,
        rows: usize,
        mut answer: impl FnMut(usize, usize, usize),
    ) {
        let all_valid = ids.null_count() == 0;
        let valid = |i: usize| all_valid || ids.is_valid(i);
        // A run's answer holds up to the next run's first row, null rows excepted.
        let mut fill = |from: usize, to: usize, at: Option<usize>| {
            let Some(at) = at else { return };
            if all_valid {
                return answer(from, to, at);
            }
            let mut start = from;
            for i in from..to {
                if !valid(i) {
                    if start < i {
                        answer(start, i, at);
                    }
                    start = i + 1;
                }
            }
            if start < to {
                answer(start, to, at);
            }
        };
        let mut current = self.last.and_then(|(_, at)| at);
        let mut last = self.last.map(|(id, _)| id);
        // The first rows of the next runs and their ids, AHEAD at a time: enough for
        // the look-ups to overlap, few enough to hold nothing per row.
        const AHEAD: usize = 256;
        let (mut runs, mut asked) = (Vec::with_capacity(AHEAD), Vec::with_capacity(AHEAD));
        let mut found = Vec::with_capacity(AHEAD);
        let (mut from, mut i) = (0, 0);
        while i < rows {
            runs.clear();
            asked.clear();
            found.clear();
            while i < rows && runs.len() < AHEAD {
                if valid(i) {
                    let id = ids.value(i);
                    if last != Some(id) {
                        runs.push(i);
                        asked.push(id);
                        last = Some(id);
                    }
                }
                i += 1;
            }
            self.ids.as_ref().positions(&asked, &mut found);
            for (&run, &at) in runs.iter().zip(&found) {
                fill(from, run, current);
                (from, current) = (run, at);
            }
        }
        fill(from, rows, current);
        if let Some(id) = last {
            self.last = Some((id, current));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `doc_id` column of `ids` (`None`: a null row), as `Ids` reads it.
    fn id_column(ids: &[Option<DocId>]) -> arrow_array::FixedSizeBinaryArray {
        arrow_array::FixedSizeBinaryArray::try_from_sparse_iter_with_size(
            ids.iter().map(|id| id.as_ref().map(|id| id.as_slice())),
            16,
        )
        .expect("16-byte ids")
    }

    /// What `Wanted::positions` must answer: each row's id searched in the sorted list
    /// (`Wanted::rows`: whether it was found).
    fn searched(list: &[DocId], ids: &[Option<DocId>]) -> Vec<Option<usize>> {
        let mut sorted = list.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        ids.iter()
            .map(|id| id.and_then(|id| sorted.binary_search(&id).ok()))
            .collect()
    }

    fn found(positions: &[Option<usize>]) -> Vec<bool> {
        positions.iter().map(Option::is_some).collect()
    }

    #[test]
    fn wanted_answers_repeated_ids_as_a_binary_search_would() {
        let ids: Vec<DocId> = vec![[1; 16], [4; 16], [9; 16]];
        let sorted = SortedIds::new(ids.clone());
        let rows: Vec<Option<DocId>> = [1u8, 1, 0, 1, 2, 2, 4, 9, 9, 3, 1, 10, 0]
            .iter()
            .map(|&d| (d != 0).then_some([d; 16]))
            .collect();
        let (mut wanted, mut at) = (Wanted::new(&sorted), Wanted::new(&sorted));
        // Two batches, a run of 9s across them: the second starts from the first's answer.
        let (first, second) = rows.split_at(8);
        let mut answers = wanted.rows(&Ids::Fixed(&id_column(first)), first.len());
        answers.extend(wanted.rows(&Ids::Fixed(&id_column(second)), second.len()));
        let mut positions = at.positions(&Ids::Fixed(&id_column(first)), first.len());
        positions.extend(at.positions(&Ids::Fixed(&id_column(second)), second.len()));
        assert_eq!(positions, searched(&ids, &rows));
        assert_eq!(answers, found(&positions));
        let (n, a, b, c) = (None, Some(0), Some(1), Some(2));
        assert_eq!(positions, [a, a, n, a, n, n, b, c, c, n, a, n, n]);
    }

    #[test]
    fn sorted_ids_find_every_id_and_nothing_else() {
        // Ids crowded on a few prefixes, on the first and last, and spread.
        let mut ids: Vec<[u8; 16]> = (0u32..3000)
            .map(|n| {
                let mut id = [0u8; 16];
                id[..4].copy_from_slice(&(n.wrapping_mul(2_654_435_761)).to_be_bytes());
                id[15] = (n % 7) as u8;
                id
            })
            .collect();
        ids.extend([[0u8; 16], [0xff; 16], [0xff; 16]]);
        let sorted = SortedIds::new(ids.clone());
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(sorted.len(), ids.len());
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(sorted.position(id), Some(i));
            let mut other = *id;
            other[15] ^= 0x80;
            assert!(!sorted.contains(&other));
        }
        assert!(SortedIds::new(Vec::new()).position(&[7; 16]).is_none());
    }

    proptest::proptest! {
        /// The bucket index finds exactly the ids a search of the whole sorted list
        /// finds: for SHA-1-like ids, and for ids crowded into a few buckets (leading
        /// bytes drawn from two values), at sizes on both sides of the bucket bounds.
        #[test]
        fn sorted_ids_find_what_a_search_of_the_list_finds(
            ids in proptest::collection::vec(proptest::array::uniform16(0u8..), 0..600),
            crowded in proptest::collection::vec(proptest::array::uniform16(0u8..2), 0..300),
            probes in proptest::collection::vec(proptest::array::uniform16(0u8..), 0..50),
        ) {
            for list in [&ids, &crowded] {
                let index = SortedIds::new(list.clone());
                let mut sorted = list.clone();
                sorted.sort_unstable();
                sorted.dedup();
                proptest::prop_assert_eq!(index.len(), sorted.len());
                let asked: Vec<DocId> = list.iter().chain(&probes).chain(&crowded).copied().collect();
                let mut batched = Vec::new();
                index.positions(&asked, &mut batched);
                proptest::prop_assert_eq!(batched.len(), asked.len());
                for (id, batched) in asked.iter().zip(batched) {
                    let expected = sorted.binary_search(id).ok();
                    proptest::prop_assert_eq!(index.position(id), expected);
                    proptest::prop_assert_eq!(batched, expected);
                }
            }
        }

        /// `Wanted::rows` and `positions` over batches of runs of equal ids, nulls among
        /// them, a run continuing from one batch into the next: each row's position is
        /// what a search of the sorted list finds for its id, and it is wanted exactly
        /// when one is found.
        #[test]
        fn wanted_rows_answer_each_row_as_a_search_would(
            list in proptest::collection::vec(proptest::array::uniform16(0u8..4), 0..40),
            runs in proptest::collection::vec(
                (proptest::option::weighted(0.9, 0usize..60), 1usize..5),
                0..120,
            ),
            cuts in proptest::collection::vec(0usize..400, 0..4),
        ) {
            // A run's id: one of the list's when `pick` falls in it (wanted), else
            // one made from `pick` (wanted only if it happens to be listed too).
            let id_of = |pick: usize| list.get(pick).copied().unwrap_or([pick as u8 % 4; 16]);
            let rows: Vec<Option<DocId>> = runs
                .iter()
                .flat_map(|&(pick, n)| std::iter::repeat_n(pick.map(id_of), n))
                .collect();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(rows.len())).collect();
            cuts.push(0);
            cuts.push(rows.len());
            cuts.sort_unstable();
            let sorted = SortedIds::new(list.clone());
            let (mut wanted, mut at) = (Wanted::new(&sorted), Wanted::new(&sorted));
            let (mut answers, mut positions) = (Vec::new(), Vec::new());
            for pair in cuts.windows(2) {
                let batch = &rows[pair[0]..pair[1]];
                let column = id_column(batch);
                answers.extend(wanted.rows(&Ids::Fixed(&column), batch.len()));
                positions.extend(at.positions(&Ids::Fixed(&column), batch.len()));
            }
            let expected = searched(&list, &rows);
            proptest::prop_assert_eq!(&answers, &found(&expected));
            proptest::prop_assert_eq!(positions, expected);
        }
    }
}
