//! The exit codes of every command, in one place (each command's `--help` says
//! which of them it uses and when).

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: done, nothing to report.
    Success = 0,
    /// 1: done, with something the caller should look at: skipped inputs or records,
    /// skipped `--ranks` lines, a disallowed URL (`check`), a lint finding, a dataset
    /// not yet complete (`status`).
    Findings = 1,
    /// 2: usage error, unreadable input tables, output not writable, or (`run
    /// --strict`) anything skipped. Do not retry.
    Usage = 2,
    /// 75 (EX_TEMPFAIL): a failure worth retrying; engines retry on it.
    TempFail = 75,
    /// 130: interrupted (Ctrl-C, SIGTERM); completed work is kept.
    Interrupted = 130,
}

impl Exit {
    /// [`Exit::Success`] when `ok`, else [`Exit::Findings`].
    pub fn findings_unless(ok: bool) -> Self {
        if ok {
            Exit::Success
        } else {
            Exit::Findings
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(exit as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_the_documented_numbers() {
        let codes = [
            Exit::Success,
            Exit::Findings,
            Exit::Usage,
            Exit::TempFail,
            Exit::Interrupted,
        ]
        .map(|e| e as u8);
        assert_eq!(codes, [0, 1, 2, 75, 130]);
        assert_eq!(Exit::findings_unless(true), Exit::Success);
        assert_eq!(Exit::findings_unless(false), Exit::Findings);
    }
}
