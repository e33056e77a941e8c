//! `hookrig completions SHELL`: the shell completion script, generated from the clap
//! definition of the command line, so that it never drifts from the flags.

use clap::CommandFactory as _;
use clap_complete::Shell;

use crate::cli::Cli;
use crate::errors::ExpectedError;
use crate::exit_codes;
use crate::output::print;

pub(crate) fn run(shell: Shell) -> Result<u8, ExpectedError> {
    print(&script(shell))?;
    Ok(exit_codes::PROCEED)
}

/// The completion script for `shell`.
pub(crate) fn script(shell: Shell) -> String {
    let mut command = Cli::command();
    let mut bytes = Vec::new();
    clap_complete::generate(shell, &mut command, "hookrig", &mut bytes);
    String::from_utf8(bytes).expect("clap_complete writes UTF-8")
}
