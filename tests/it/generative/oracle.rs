//! Google's parser as a long-running process: tests/oracle/serve.py, fed one
//! body and its questions per line, answering in answers.py's record format.
//! One process for a whole campaign, so Python starts once.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use crate::support::{hex, oracle_answers, python, repo};

/// robots.cc's answer to one question: (allowed, `matching_line()`).
pub type Answer = (bool, u32);

pub struct Oracle {
    child: Child,
    input: Option<BufWriter<ChildStdin>>,
    output: BufReader<ChildStdout>,
    line: String,
    /// Questions asked so far.
    pub questions: u64,
}

impl Oracle {
    pub fn start() -> Oracle {
        let mut child = Command::new(python())
            .arg(repo().join("tests/oracle/serve.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start tests/oracle/serve.py");
        let input = child.stdin.take().map(BufWriter::new);
        let output = BufReader::new(child.stdout.take().expect("oracle stdout"));
        Oracle {
            child,
            input,
            output,
            line: String::new(),
            questions: 0,
        }
    }

    /// robots.cc's answers about `body` (cut at 512,000 bytes by the oracle) for
    /// every agent and URL, agent-major.
    pub fn ask(&mut self, body: &[u8], agents: &[Vec<u8>], urls: &[Vec<u8>]) -> Vec<Answer> {
        let request = serde_json::json!({
            "body": hex(body),
            "agents": agents.iter().map(|a| hex(a)).collect::<Vec<_>>(),
            "urls": urls.iter().map(|u| hex(u)).collect::<Vec<_>>(),
        });
        let input = self.input.as_mut().expect("oracle input open");
        writeln!(input, "{request}")
            .and_then(|()| input.flush())
            .expect("write to the oracle (did serve.py die? see its stderr above)");
        self.line.clear();
        let n = self
            .output
            .read_line(&mut self.line)
            .expect("read the oracle's answer");
        assert!(n > 0, "the oracle ended early: see serve.py's stderr above");
        let record: serde_json::Value =
            serde_json::from_str(&self.line).expect("oracle answer is JSON");
        let answers = oracle_answers(&record);
        assert_eq!(
            answers.len(),
            agents.len() * urls.len(),
            "oracle answer count"
        );
        self.questions += answers.len() as u64;
        answers
    }

    /// One question.
    pub fn ask_one(&mut self, body: &[u8], agent: &[u8], url: &[u8]) -> Answer {
        self.ask(body, &[agent.to_vec()], &[url.to_vec()])[0]
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        // Closing stdin ends serve.py's loop.
        drop(self.input.take());
        let _ = self.child.wait();
    }
}
