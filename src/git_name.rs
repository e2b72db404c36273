//! Which file names git can store, and which are `.git` in disguise.
//!
//! A session commits its worktree after every attempt; one file whose name git refuses as a
//! tree entry ("invalid name for a tree entry") makes every later commit fail, and the session
//! can then neither go on nor be resumed. The tools refuse such names before writing
//! ([`path_problem`]); the checkpoint scan leaves such files out of commits
//! ([`component_problem`]).
//!
//! libgit2 does not export its check (`git_path_is_valid` is internal; `git2` 0.20 and
//! `libgit2-sys` 0.18 bind only `git_path_is_gitfile`, which knows `.gitmodules` and friends,
//! not `.git`), so the rules are restated here from libgit2 1.9:
//! - `valid_entry_name` (src/libgit2/tree.c) refuses a tree entry when `git_path_is_valid`
//!   with `GIT_FS_PATH_REJECT_TRAVERSAL | GIT_PATH_REJECT_DOT_GIT | GIT_FS_PATH_REJECT_SLASH`
//!   fails, and an empty name;
//! - `GIT_PATH_REJECT_DOT_GIT` becomes `GIT_PATH_REJECT_DOT_GIT_LITERAL` (`.git` in any case),
//!   plus `GIT_PATH_REJECT_DOT_GIT_NTFS` (`core.protectNTFS`, on by default everywhere) and
//!   `GIT_PATH_REJECT_DOT_GIT_HFS` (`core.protectHFS`, on by default on macOS) in
//!   `dotgit_flags` (src/libgit2/path.c);
//! - NTFS (`validate_dotgit_ntfs`): a name starting, without case, with `.git` or `git~1` (the
//!   8.3 short name of `.git`) followed by `\` or `:` (an alternate data stream such as
//!   `.git::$INDEX_ALLOCATION`), or by nothing but dots and spaces (`.git.`, `.git `), which
//!   Windows drops;
//! - HFS (`validate_dotgit_hfs`): `.git` once the code points HFS+ ignores (U+200C–U+200F,
//!   U+202A–U+202E, U+206A–U+206F, U+FEFF) are removed and ASCII is lowercased.
//!
//! Both platform checks apply here on every platform: a name that is `.git` on a Mac or on
//! Windows is refused everywhere, so a session's branch can be checked out anywhere. The tools
//! also refuse what git on Windows (`GIT_FS_PATH_REJECT_BACKSLASH`) and `git fsck` object to:
//! backslashes, NUL and other control characters.

/// Why a path (or one of its components) is not a name git can store.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameProblem {
    #[error("it has an empty component (`//`, or a trailing `/`)")]
    Empty,
    #[error("it has a `{0}` component")]
    Traversal(String),
    #[error("`{0}` is git's own metadata directory `.git` (git compares this name without case)")]
    DotGit(String),
    #[error(
        "`{0}` is `.git` on Windows, which drops trailing dots and spaces, reads `:` as a data \
         stream and `git~1` as the short name of `.git`"
    )]
    DotGitNtfs(String),
    #[error("`{0}` is `.git` on macOS, which ignores the invisible Unicode characters in it")]
    DotGitHfs(String),
    #[error("`{0}` contains a backslash, which git on Windows reads as a folder separator")]
    Backslash(String),
    #[error("{0:?} contains a control character (code {1:#04x})")]
    Control(String, u32),
}

/// The code points HFS+ ignores in file names (libgit2 `next_hfs_char`).
const HFS_IGNORED: [char; 16] = [
    '\u{200c}', '\u{200d}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
    '\u{202e}', '\u{206a}', '\u{206b}', '\u{206c}', '\u{206d}', '\u{206e}', '\u{206f}', '\u{feff}',
];

/// Why git refuses `name` as one tree entry (one path component), `None` if it stores it.
/// This is the set the checkpoint scan leaves out of commits: what libgit2 refuses, with the
/// NTFS and HFS aliases of `.git` on every platform.
pub(crate) fn component_problem(name: &str) -> Option<NameProblem> {
    if name.is_empty() {
        return Some(NameProblem::Empty);
    }
    if name == "." || name == ".." {
        return Some(NameProblem::Traversal(name.to_string()));
    }
    if name.eq_ignore_ascii_case(".git") {
        return Some(NameProblem::DotGit(name.to_string()));
    }
    if is_ntfs_dotgit(name) {
        return Some(NameProblem::DotGitNtfs(name.to_string()));
    }
    if is_hfs_dotgit(name) {
        return Some(NameProblem::DotGitHfs(name.to_string()));
    }
    None
}

/// Why a tool may not create the workspace-relative, `/`-separated path `rel`, `None` if it
/// may: every component must pass [`component_problem`] and hold no backslash, NUL or other
/// control character.
pub(crate) fn path_problem(rel: &str) -> Option<NameProblem> {
    for component in rel.split('/') {
        if let Some(problem) = component_problem(component) {
            return Some(problem);
        }
        if let Some(c) = component.chars().find(|c| c.is_control()) {
            return Some(NameProblem::Control(component.to_string(), u32::from(c)));
        }
        if component.contains('\\') {
            return Some(NameProblem::Backslash(component.to_string()));
        }
    }
    None
}

/// libgit2 `validate_dotgit_ntfs` with the reserved names `.git` and `GIT~1`.
fn is_ntfs_dotgit(name: &str) -> bool {
    let bytes = name.as_bytes();
    let rest = [b".git".as_slice(), b"git~1"].iter().find_map(|reserved| {
        (bytes.len() >= reserved.len() && bytes[..reserved.len()].eq_ignore_ascii_case(reserved))
            .then(|| &bytes[reserved.len()..])
    });
    let Some(rest) = rest else {
        return false;
    };
    matches!(rest.first(), Some(b'\\' | b':')) || rest.iter().all(|b| matches!(b, b' ' | b'.'))
}

/// libgit2 `validate_dotgit_hfs`: `.git` once HFS+'s ignored code points are dropped.
fn is_hfs_dotgit(name: &str) -> bool {
    let mut folded = name
        .chars()
        .filter(|c| !HFS_IGNORED.contains(c))
        .map(|c| c.to_ascii_lowercase());
    folded.by_ref().take(4).eq(".git".chars()) && folded.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Aliases of `.git` (and the other names git refuses) that must never reach a tree.
    const REFUSED: &[&str] = &[
        ".git",
        ".GIT",
        ".Git",
        ".gIT",
        ".git.",
        ".git..",
        ".git ",
        ".GIT .",
        ".git:",
        ".git::$INDEX_ALLOCATION",
        ".git:stream",
        ".git\\",
        ".git\\config",
        "git~1",
        "GIT~1",
        "git~1.",
        "Git~1 ",
        "git~1:x",
        ".g\u{200c}it",
        "\u{200c}.git",
        ".git\u{feff}",
        ".G\u{202e}IT",
        ".",
        "..",
        "",
    ];

    /// Names that look close but are ordinary files git stores.
    const STORED: &[&str] = &[
        ".gitignore",
        ".github",
        ".gitattributes",
        ".git-blame-ignore-revs",
        "git",
        ".git2",
        "git~2",
        "gitx1",
        "..git",
        "a.git",
        "x.",
        "notes ",
        "a:b",
        "\u{200c}x",
        "...",
    ];

    #[test]
    fn every_alias_of_dot_git_is_refused() {
        for name in REFUSED {
            assert!(component_problem(name).is_some(), "{name:?} accepted");
        }
        for name in STORED {
            assert_eq!(component_problem(name), None, "{name:?} refused");
        }
    }

    #[test]
    fn paths_are_checked_component_by_component() {
        for bad in [
            ".GIT/config",
            "sub/.GiT/x",
            ".git /x",
            ".git./x",
            "a//b",
            "a/",
            "a/./b",
            "a/../b",
            "a\\b",
            "dir/x\u{0}y",
            "x\ny",
            "tab\there",
            "del\u{7f}",
            "sub/git~1/hooks/pre-commit",
        ] {
            assert!(path_problem(bad).is_some(), "{bad:?} accepted");
        }
        for good in [
            "src/model.py",
            ".github/workflows/ci.yml",
            "a b/c.d",
            "ünï/cødé",
        ] {
            assert_eq!(path_problem(good), None, "{good:?}");
        }
    }

    #[test]
    fn messages_say_what_the_name_is() {
        let s = path_problem("sub/.GiT/x").unwrap().to_string();
        assert!(s.contains("`.GiT` is git's own metadata directory"), "{s}");
        let s = path_problem(".git /x").unwrap().to_string();
        assert!(s.contains("`.git ` is `.git` on Windows"), "{s}");
        let s = path_problem(".g\u{200c}it").unwrap().to_string();
        assert!(s.contains("on macOS"), "{s}");
        let s = path_problem("x\ny").unwrap().to_string();
        assert!(
            s.contains("\"x\\ny\" contains a control character (code 0x0a)"),
            "{s}"
        );
    }

    /// The checks agree with libgit2's own where libgit2 applies them on this platform: every
    /// name libgit2 refuses is refused here, and every name stored here is stored by libgit2.
    #[test]
    fn agrees_with_libgit2s_tree_builder() {
        let d = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init_bare(d.path()).unwrap();
        let blob = repo.blob(b"x").unwrap();
        let inserts = |name: &str| {
            let mut builder = repo.treebuilder(None).unwrap();
            let stored = builder.insert(name, blob, 0o100644).is_ok();
            stored
        };
        for name in REFUSED.iter().chain(STORED) {
            if !inserts(name) {
                assert!(
                    component_problem(name).is_some(),
                    "libgit2 refuses {name:?}"
                );
            }
        }
        for name in STORED {
            assert!(inserts(name), "libgit2 refuses {name:?}");
        }
        // The ones libgit2 refuses on every platform.
        for name in [
            ".GIT",
            ".git.",
            ".git ",
            ".git::$INDEX_ALLOCATION",
            "git~1",
            "..",
        ] {
            assert!(!inserts(name), "libgit2 stores {name:?}");
        }
    }
}
