//! How a command prints its result: one JSON line or the text ([`print_json_or_text`]), text
//! that may go to a closed pipe ([`write_stdout`]), a usage error ([`usage_error`]).

use crate::engine::exit;
use std::io::Write;

/// Print `value` as one JSON line when `json`, else `text()`: the two output forms of a command.
/// `Err` is the exit code when the JSON cannot be made.
pub(crate) fn print_json_or_text<T: serde::Serialize>(
    value: &T,
    json: bool,
    text: impl FnOnce(&T) -> String,
) -> Result<(), i32> {
    if !json {
        print!("{}", text(value));
        return Ok(());
    }
    match serde_json::to_string(value) {
        Ok(line) => {
            println!("{line}");
            Ok(())
        }
        Err(e) => {
            eprintln!("error: {e}");
            Err(exit::ENVIRONMENT)
        }
    }
}

/// Write `text` to stdout; the exit code (a closed pipe, `| head`, is no error worth a
/// message).
pub(crate) fn write_stdout(text: &str) -> i32 {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("error: cannot write to stdout: {e}");
            exit::ENVIRONMENT
        }
    }
}

/// Say `message` and exit 2.
pub(crate) fn usage_error(message: String) -> i32 {
    eprintln!("error: {message}");
    exit::USAGE
}
