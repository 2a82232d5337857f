//! The command layer, the last stage of the data flow: command-line structs
//! ([`args`]), their conversion into the plain options each step takes
//! (`options.rs`), one function per command (`commands.rs`) and the exit codes
//! ([`Exit`]). Steps never import from here; `main.rs` only calls [`dispatch`].

pub mod args;
mod commands;
mod exit;
mod options;

pub use args::{Args, Command};
pub use exit::Exit;

/// Runs the command the user asked for.
pub fn dispatch(args: &Args) -> Exit {
    match &args.command {
        Command::Run(a) => commands::run(a),
        Command::Check(a) => commands::check(a),
        Command::Lint(a) => commands::lint(a),
        Command::Status(a) => commands::status(a),
        Command::Sites(a) => commands::sites(a),
        Command::Changes(a) => commands::changes(a),
        Command::Audit(a) => commands::audit(a),
        Command::Report(a) => commands::report(a),
        Command::Query(a) => commands::query(a),
        Command::Agents(a) => commands::agents(a),
    }
}
