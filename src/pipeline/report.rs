//! The totals of a run, for the summary printed at its end and the exit code.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::census::headline::Headline;
use crate::output::dataset::InputReport;

/// The totals of a run: every input's report, in input order.
#[derive(Debug, Default)]
pub struct Summary {
    pub inputs: Vec<InputReport>,
    /// Rows per table over every task.
    pub rows: BTreeMap<String, u64>,
    pub tasks: usize,
    pub tasks_resumed: usize,
    pub elapsed: Duration,
    /// The run's agents, in order (the headline's rows).
    pub agents: Vec<String>,
    /// The run's `--out`, as given (the headline's next command).
    pub out: String,
}

impl Summary {
    fn total(&self, f: impl Fn(&InputReport) -> u64) -> u64 {
        self.inputs.iter().map(f).sum()
    }

    /// Whether any input or record was skipped for a problem.
    pub fn had_problems(&self) -> bool {
        self.inputs.iter().any(|r| r.problems > 0 || r.unreadable)
    }

    /// Whether some input failed for a reason worth retrying (network retries
    /// exhausted): `--resume` runs its task again.
    pub fn had_transient_failures(&self) -> bool {
        self.inputs.iter().any(|r| r.transient)
    }

    pub fn render(&self) -> String {
        let secs = self.elapsed.as_secs_f64().max(1e-6);
        let docs = self.total(|r| r.documents);
        let bytes = self.total(|r| r.bytes);
        let mut skipped: BTreeMap<&str, u64> = BTreeMap::new();
        for r in &self.inputs {
            for (k, v) in &r.skipped {
                *skipped
                    .entry(if k.is_empty() { "(no type)" } else { k })
                    .or_default() += v;
            }
        }
        let mut out = format!(
            "tasks: {} ({} resumed)\ninputs: {} ({} resumed, {} unreadable, {} to retry)\n",
            self.tasks,
            self.tasks_resumed,
            self.inputs.len(),
            self.inputs.iter().filter(|r| r.resumed).count(),
            self.inputs.iter().filter(|r| r.unreadable).count(),
            self.inputs.iter().filter(|r| r.transient).count(),
        );
        out += &format!(
            "records: {} seen, {} documents, {} skipped by type {:?}, {} input errors, {} warnings\n",
            self.total(|r| r.records_seen),
            docs,
            self.total(InputReport::skipped_total),
            skipped,
            self.total(|r| r.problems),
            self.total(|r| r.warnings),
        );
        out += &format!("lint findings: {}\nrows:", self.total(|r| r.findings));
        for (table, rows) in &self.rows {
            out += &format!(" {table}={rows}");
        }
        out += &format!(
            "\nelapsed: {:.2}s, {:.0} documents/s, {:.1} MB/s of input\n",
            secs,
            docs as f64 / secs,
            bytes as f64 / secs / 1e6
        );
        let mut headline = Headline::default();
        for input in &self.inputs {
            headline.merge(&input.headline);
        }
        if headline.parsed > 0 {
            let ai = crate::verdicts::default_ai_agents();
            out += &headline.render(&self.agents, &ai, &self.out);
        }
        out
    }
}
