//! Taking over: what the engineer gets while the TUI is suspended — `$SHELL` in the session
//! worktree, or `$EDITOR` on one file of it — and the list of files to choose from. The engine
//! does the rest: it waits between `TakeoverBegin` and `TakeoverEnd`, then records what
//! changed as a human action with its diff and shows it to the model.
//!
//! `$EDITOR` is run through `sh -c` the way git runs it, so `EDITOR="code -w"` works; tests set
//! it to a script that edits the file.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

/// At most this many files are offered in the picker.
pub const MAX_FILES: usize = 2_000;

#[derive(Debug, Clone, PartialEq)]
pub enum Program {
    /// `$SHELL` (default `/bin/sh`) with the worktree as its working directory.
    Shell,
    /// `$EDITOR` (default `vi`) on this file of the worktree.
    Editor(PathBuf),
}

impl Program {
    /// How the banner before the program names it.
    pub fn describe(&self) -> String {
        match self {
            Program::Shell => format!("{} in the session worktree", shell()),
            Program::Editor(file) => format!("{} {}", editor(), file.display()),
        }
    }
}

fn shell() -> String {
    std::env::var("SHELL")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "/bin/sh".to_string())
}

fn editor() -> String {
    ["EDITOR", "VISUAL"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|s| !s.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string())
}

/// Run the program in `worktree` with the terminal (the caller has suspended the TUI) and
/// wait for it.
pub fn run(program: &Program, worktree: &Path) -> io::Result<ExitStatus> {
    let mut command = match program {
        Program::Shell => Command::new(shell()),
        Program::Editor(file) => {
            let mut command = Command::new("sh");
            command
                .arg("-c")
                .arg(format!("{} \"$1\"", editor()))
                .arg("aipc-editor")
                .arg(worktree.join(file));
            command
        }
    };
    command
        .current_dir(worktree)
        .env("AIPC_TAKEOVER", "1")
        .status()
}

/// The worktree's files (relative, sorted; `.gitignore` honoured, `.git` and `.aipc` left out),
/// at most [`MAX_FILES`].
pub fn list_files(worktree: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ignore::WalkBuilder::new(worktree)
        .hidden(false)
        .git_ignore(true)
        .require_git(false)
        .filter_entry(|entry| {
            let name = entry.file_name();
            name != ".git" && name != ".aipc"
        })
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|entry| {
            entry
                .path()
                .strip_prefix(worktree)
                .ok()
                .map(Path::to_path_buf)
        })
        .take(MAX_FILES)
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_files_without_git_and_ignored_ones() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "x").unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/b.py"), "").unwrap();
        std::fs::write(dir.path().join("a.py"), "").unwrap();
        std::fs::write(dir.path().join(".gitignore"), "build/\n").unwrap();
        std::fs::create_dir_all(dir.path().join("build")).unwrap();
        std::fs::write(dir.path().join("build/out.json"), "").unwrap();
        let files = list_files(dir.path());
        assert_eq!(
            files,
            vec![
                PathBuf::from(".gitignore"),
                PathBuf::from("a.py"),
                PathBuf::from("src/b.py")
            ]
        );
    }
}
