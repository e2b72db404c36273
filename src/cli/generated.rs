//! `aipc completions <shell>` and `aipc man`: generated from the clap definition
//! ([`super::Cli`]), on stdout.

use super::Cli;
use crate::engine::exit;
use clap::CommandFactory;

/// Print the completion script for `shell`.
pub(crate) fn completions(shell: clap_complete::Shell) -> i32 {
    clap_complete::generate(shell, &mut Cli::command(), "aipc", &mut std::io::stdout());
    0
}

/// Print the man page (roff).
pub(crate) fn man() -> i32 {
    match clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: writing the man page: {e}");
            exit::ENVIRONMENT
        }
    }
}
