//! [`ContractError`]: a contract problem located by file, line and key, with a hint.
//!
//! Display reads
//! `aipc.toml:14: stage "export" check "export runs": key "gates": bad gate "…": expected …`
//! followed by `\n  hint: …` when there is a hint.

use std::fmt;

/// A contract that cannot be loaded: where (file, line, stage/check, key), what, and what to do.
///
/// Boxed, so that `Result<_, ContractError>` stays small; read it with the accessors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ContractError(Box<ErrorInfo>);

/// The parts of a [`ContractError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorInfo {
    /// The file as named in messages (a path, or the name given to `from_strs`).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// The stage / check the problem is in, e.g. `stage "export" check "export runs"`.
    pub context: Option<String>,
    /// The key, relative to `context` (or dotted from the top, e.g. `defaults.tools.run`).
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

impl ContractError {
    /// An error in `file` with nothing else known yet.
    pub fn new(file: impl Into<String>, message: impl Into<String>) -> ContractError {
        ContractError(Box::new(ErrorInfo {
            file: file.into(),
            line: None,
            context: None,
            key: None,
            message: message.into(),
            hint: None,
        }))
    }

    /// Set the 1-based line.
    pub fn with_line(mut self, line: usize) -> Self {
        self.0.line = Some(line);
        self
    }

    /// Set the stage / check context.
    pub fn with_context(mut self, context: impl Into<String>) -> Self {
        self.0.context = Some(context.into());
        self
    }

    /// Set the key.
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.0.key = Some(key.into());
        self
    }

    /// Set the hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.0.hint = Some(hint.into());
        self
    }

    /// Replace the message.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.0.message = message.into();
        self
    }

    /// All parts.
    pub fn info(&self) -> &ErrorInfo {
        &self.0
    }

    /// The file as named in messages.
    pub fn file(&self) -> &str {
        &self.0.file
    }

    /// 1-based line, when known.
    pub fn line(&self) -> Option<usize> {
        self.0.line
    }

    /// The stage / check, e.g. `stage "export" check "export runs"`.
    pub fn context(&self) -> Option<&str> {
        self.0.context.as_deref()
    }

    /// The key, relative to the context.
    pub fn key(&self) -> Option<&str> {
        self.0.key.as_deref()
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// What to do about it.
    pub fn hint(&self) -> Option<&str> {
        self.0.hint.as_deref()
    }
}

impl fmt::Display for ContractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.0;
        f.write_str(&e.file)?;
        if let Some(line) = e.line {
            write!(f, ":{line}")?;
        }
        if let Some(ctx) = &e.context {
            write!(f, ": {ctx}")?;
        }
        if let Some(key) = &e.key {
            write!(f, ": key \"{key}\"")?;
        }
        write!(f, ": {}", e.message)?;
        if let Some(hint) = &e.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

/// `stage "<name>"`.
pub(crate) fn stage_ctx(stage: &str) -> String {
    format!("stage \"{stage}\"")
}

/// `stage "<name>" check "<check>"`.
pub(crate) fn check_ctx(stage: &str, check: &str) -> String {
    format!("stage \"{stage}\" check \"{check}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_full_and_minimal() {
        let e = ContractError::new("aipc.toml", "bad gate")
            .with_line(14)
            .with_context(check_ctx("export", "export runs"))
            .with_key("gates")
            .with_hint("fix it");
        assert_eq!(
            e.to_string(),
            "aipc.toml:14: stage \"export\" check \"export runs\": key \"gates\": bad gate\n  hint: fix it"
        );
        assert_eq!(ContractError::new("f", "m").to_string(), "f: m");
    }
}
