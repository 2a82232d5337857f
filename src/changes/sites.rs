//! One crawl's partition of the `sites` table read as a stream of sites in name
//! order (the order `sites` writes them), row groups decoded a few at a time on every
//! thread, so a comparison holds a handful of row groups of each crawl, never a table.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::ChangesError;
use crate::census::site_classes::{Block, StatusClass};
use crate::output::read::{opt, row_groups, Columns, RowGroup};
use crate::output::rows::DocId;

/// One site in one crawl.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteState {
    pub class: StatusClass,
    pub doc_id: Option<DocId>,
    /// By agent, in [`SitesStream::agents`] order; `None` when the table has no row.
    /// A site whose deciding capture is not a robots.txt file blocks no one.
    pub blocks: Vec<Option<Block>>,
}

impl SiteState {
    /// "Present": any class but "No robots.txt capture".
    pub fn present(&self) -> bool {
        self.class != StatusClass::NoCapture
    }

    /// The deciding capture when it is a robots.txt file whose lines count.
    pub fn robots_doc(&self) -> Option<DocId> {
        self.doc_id.filter(|_| self.class.is_robots())
    }
}

/// The columns read.
const COLUMNS: [&str; 7] = [
    "site",
    "agent",
    "status_class",
    "block",
    "doc_id",
    "site_key",
    "status_semantics",
];

/// A crawl's sites, in name order.
pub struct SitesStream {
    path: PathBuf,
    /// The agents, as the first site lists them.
    pub agents: Vec<String>,
    index: HashMap<String, usize>,
    /// `--site-key` and `--status-semantics` the table was made with.
    pub options: Option<(String, String)>,
    /// Row groups not read yet.
    groups: VecDeque<usize>,
    /// Sites decoded and not yet taken; the last may go on in the next row group.
    ready: VecDeque<(Box<str>, SiteState)>,
}

impl SitesStream {
    /// The sites of the sites part file `path` (one crawl's partition).
    pub fn open(path: &Path) -> Result<SitesStream, ChangesError> {
        let files = [path.to_owned()];
        let groups = row_groups(&files)?;
        let mut stream = SitesStream {
            path: path.to_owned(),
            agents: Vec::new(),
            index: HashMap::new(),
            options: None,
            groups: (0..groups.len()).collect(),
            ready: VecDeque::new(),
        };
        // The first site's agents, in its order: what every site lists.
        if let Some(first) = groups.first() {
            'rows: for batch in first.batches(&COLUMNS)? {
                let batch = batch?;
                let c = Columns {
                    batch: &batch,
                    path,
                };
                let (site, agent) = (c.str("site")?, c.str("agent")?);
                for i in 0..batch.num_rows() {
                    if i > 0 && site.value(i) != site.value(0)
                        || stream.index.contains_key(agent.value(i))
                    {
                        break 'rows;
                    }
                    stream
                        .index
                        .insert(agent.value(i).to_owned(), stream.agents.len());
                    stream.agents.push(agent.value(i).to_owned());
                }
            }
        }
        Ok(stream)
    }

    /// The next site, if any.
    pub fn next(&mut self) -> Result<Option<(Box<str>, SiteState)>, ChangesError> {
        // The last site decoded may go on in the next row group: taken only when a
        // later site follows it or nothing is left to read.
        while self.ready.len() < 2 && !self.groups.is_empty() {
            self.decode_some()?;
        }
        Ok(self.ready.pop_front())
    }

    /// Decodes as many row groups as there are threads, in parallel, and appends their
    /// sites in order, joining a site cut between two row groups.
    fn decode_some(&mut self) -> Result<(), ChangesError> {
        let files = [self.path.clone()];
        let all = row_groups(&files)?;
        let n = rayon::current_num_threads().max(1).min(self.groups.len());
        let wave: Vec<&RowGroup<'_>> = self.groups.drain(..n).filter_map(|g| all.get(g)).collect();
        let decoded: Vec<Decoded> = wave
            .par_iter()
            .map(|g| self.decode(g))
            .collect::<Result<_, _>>()?;
        for group in decoded {
            if self.options.is_none() {
                self.options = group.options;
            }
            for (name, state) in group.sites {
                match self.ready.back_mut() {
                    Some((last, kept)) if *last == name => {
                        for (a, block) in state.blocks.into_iter().enumerate() {
                            if block.is_some() {
                                kept.blocks[a] = block;
                            }
                        }
                    }
                    _ => self.ready.push_back((name, state)),
                }
            }
        }
        Ok(())
    }

    /// One row group's sites.
    fn decode(&self, group: &RowGroup<'_>) -> Result<Decoded, ChangesError> {
        let path = group.path;
        let mut out = Decoded::default();
        for batch in group.batches(&COLUMNS)? {
            let batch = batch?;
            let c = Columns {
                batch: &batch,
                path,
            };
            let (site, agent, classes) = (c.str("site")?, c.str("agent")?, c.str("status_class")?);
            let (block, ids) = (c.str("block")?, c.ids("doc_id")?);
            let (key, semantics) = (c.str("site_key")?, c.str("status_semantics")?);
            for i in 0..batch.num_rows() {
                if out.options.is_none() {
                    out.options = Some((key.value(i).to_owned(), semantics.value(i).to_owned()));
                }
                let Some(&a) = self.index.get(agent.value(i)) else {
                    return Err(ChangesError::Table(format!(
                        "{}: site {:?} lists agent {:?}, which the table's first site does not",
                        path.display(),
                        site.value(i),
                        agent.value(i)
                    )));
                };
                let name = site.value(i);
                if out.sites.last().is_none_or(|(last, _)| **last != *name) {
                    let class = StatusClass::parse(classes.value(i))
                        .ok_or_else(|| c.wrong("status_class"))?;
                    let state = SiteState {
                        class,
                        doc_id: ids.is_valid(i).then(|| ids.value(i)),
                        blocks: vec![None; self.agents.len()],
                    };
                    out.sites.push((name.into(), state));
                }
                let cell = match opt(block, i) {
                    Some(value) => Block::parse(value).ok_or_else(|| c.wrong("block"))?,
                    None => Block::None,
                };
                if let Some((_, state)) = out.sites.last_mut() {
                    state.blocks[a] = Some(cell);
                }
            }
        }
        Ok(out)
    }
}

/// The sites of one row group.
#[derive(Default)]
struct Decoded {
    sites: Vec<(Box<str>, SiteState)>,
    options: Option<(String, String)>,
}
