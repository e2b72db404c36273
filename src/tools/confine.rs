//! Workspace confinement: every path a tool touches is resolved here, and nothing outside the
//! workspace root (by `..`, an absolute path, or a symlink anywhere on the way) gets through.
//!
//! Resolution is component by component: `..` is applied lexically (and may not climb above the
//! root), every existing component that is a symlink is canonicalised and must land inside the
//! canonical root, and the first missing component ends the walk (what follows does not exist,
//! so it cannot be a symlink). The returned path is the one the tool must use for I/O, so what
//! was checked is what gets touched. A path to write must also be a name git can store
//! ([`crate::git_name`]): no alias of `.git`, no backslash or control character.

use super::error::ToolError;
use crate::git_name;
use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

/// How many entries of the nearest existing folder a not-found message names.
const NEARBY_SHOWN: usize = 20;

/// The directory tools are confined to (a git worktree, in the engine).
#[derive(Debug, Clone)]
pub struct Workspace {
    /// Canonical root.
    root: PathBuf,
    /// The root as given (accepted as a prefix of absolute arguments too).
    given_root: PathBuf,
}

impl Workspace {
    /// A workspace rooted at `root`, which must be an existing directory.
    pub fn new(root: &Path) -> Result<Self, ToolError> {
        let canonical = root.canonicalize().map_err(|e| ToolError::BadRoot {
            path: root.to_path_buf(),
            reason: e.to_string(),
        })?;
        if !canonical.is_dir() {
            return Err(ToolError::BadRoot {
                path: root.to_path_buf(),
                reason: "not a directory".into(),
            });
        }
        Ok(Workspace {
            root: canonical,
            given_root: root.to_path_buf(),
        })
    }

    /// The canonical workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolve a path argument that must already exist (for reading or listing).
    pub fn resolve(&self, rel: &str) -> Result<PathBuf, ToolError> {
        let path = self.confine(rel)?;
        match std::fs::symlink_metadata(&path) {
            Ok(_) => Ok(path),
            Err(e) if e.kind() == ErrorKind::NotFound => Err(ToolError::NotFound {
                path: rel.trim().to_string(),
                nearby: self.nearby_entries(&path),
            }),
            Err(e) => Err(ToolError::io(rel.trim(), e)),
        }
    }

    /// What the nearest existing folder of a missing `path` (inside the root) holds, as the tail
    /// of a not-found message: "; the workspace root holds: a.py, data/, ..." (hidden entries
    /// left out, at most [`NEARBY_SHOWN`] names), or "" when that cannot be read.
    fn nearby_entries(&self, path: &Path) -> String {
        let mut dir = path.parent();
        while let Some(d) = dir {
            if !d.starts_with(&self.root) {
                return String::new();
            }
            if d.is_dir() {
                break;
            }
            dir = d.parent();
        }
        let Some(dir) = dir else {
            return String::new();
        };
        let Ok(read) = std::fs::read_dir(dir) else {
            return String::new();
        };
        let mut names: Vec<String> = read
            .filter_map(|entry| entry.ok())
            .filter_map(|entry| {
                let name = entry.file_name().to_str()?.to_string();
                if name.starts_with('.') {
                    return None;
                }
                let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
                Some(if is_dir { format!("{name}/") } else { name })
            })
            .collect();
        names.sort();
        let place = match dir.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => "the workspace root".to_string(),
            Ok(rel) => format!("`{}/`", rel.display()),
            Err(_) => return String::new(),
        };
        if names.is_empty() {
            return format!("; {place} is empty");
        }
        let more = names.len().saturating_sub(NEARBY_SHOWN);
        names.truncate(NEARBY_SHOWN);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        format!("; {place} holds: {}{tail}", names.join(", "))
    }

    /// Resolve a path argument for writing: the file may not exist yet, but it must not be the
    /// root itself nor anything inside `.git`, and git must be able to store its name (checked
    /// on the path as resolved, relative to the root: what would be committed).
    pub fn resolve_for_write(&self, rel: &str) -> Result<PathBuf, ToolError> {
        let path = self.confine(rel)?;
        if path == self.root {
            return Err(ToolError::InvalidPath {
                path: rel.to_string(),
                reason: "that is the workspace root, not a file".into(),
            });
        }
        if self.is_in_git_dir(&path) {
            return Err(ToolError::GitDir {
                path: rel.to_string(),
            });
        }
        if let Some(problem) = git_name::path_problem(&self.relative(&path)) {
            return Err(ToolError::GitName {
                path: rel.to_string(),
                problem,
            });
        }
        Ok(path)
    }

    /// `path` (as returned by `resolve*`) relative to the root, with `/` separators; `.` for
    /// the root itself.
    pub fn relative(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/"),
            Err(_) => path.display().to_string(),
        }
    }

    fn is_in_git_dir(&self, path: &Path) -> bool {
        path.strip_prefix(&self.root)
            .ok()
            .and_then(|rel| rel.components().next())
            .is_some_and(|c| c.as_os_str() == ".git")
    }

    /// Turn an argument into a confined absolute path (which may not exist).
    fn confine(&self, rel: &str) -> Result<PathBuf, ToolError> {
        let arg = rel.trim();
        if arg.contains('\0') {
            return Err(ToolError::InvalidPath {
                path: arg.to_string(),
                reason: "contains a NUL byte".into(),
            });
        }
        let parts = self.relative_parts(arg)?;
        let mut current = self.root.clone();
        for (index, part) in parts.iter().enumerate() {
            let next = current.join(part);
            match std::fs::symlink_metadata(&next) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    let shown = shown_prefix(&parts[..=index]);
                    let target = next.canonicalize().map_err(|_| ToolError::InvalidPath {
                        path: arg.to_string(),
                        reason: format!("`{shown}` is a broken symlink"),
                    })?;
                    if !target.starts_with(&self.root) {
                        return Err(ToolError::OutsideWorkspace {
                            path: arg.to_string(),
                            reason: format!("`{shown}` is a symlink to {}", target.display()),
                        });
                    }
                    current = target;
                }
                Ok(_) => current = next,
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    // Nothing from here on exists, so nothing from here on is a symlink.
                    for rest in &parts[index..] {
                        current.push(rest);
                    }
                    return Ok(current);
                }
                Err(e) if e.kind() == ErrorKind::NotADirectory => {
                    return Err(ToolError::InvalidPath {
                        path: arg.to_string(),
                        reason: format!("`{}` is not a directory", shown_prefix(&parts[..index])),
                    })
                }
                Err(e) => return Err(ToolError::io(arg, e)),
            }
        }
        Ok(current)
    }

    /// The argument as normal components relative to the root (`..` applied lexically).
    fn relative_parts(&self, arg: &str) -> Result<Vec<OsString>, ToolError> {
        let path = Path::new(if arg.is_empty() { "." } else { arg });
        let outside = |reason: &str| ToolError::OutsideWorkspace {
            path: arg.to_string(),
            reason: reason.to_string(),
        };
        if path.is_absolute() {
            let normal = lexical_normal(path).ok_or_else(|| outside("it climbs above /"))?;
            let absolute: PathBuf = std::iter::once(OsString::from("/")).chain(normal).collect();
            let rel = absolute
                .strip_prefix(&self.root)
                .or_else(|_| absolute.strip_prefix(&self.given_root))
                .map_err(|_| outside("absolute paths must lie under the workspace root"))?;
            return Ok(rel.iter().map(|c| c.to_os_string()).collect());
        }
        lexical_normal(path).ok_or_else(|| outside("`..` climbs above the workspace root"))
    }
}

/// Normal components of `path` with `.` dropped and `..` applied; `None` if `..` climbs above
/// the start.
fn lexical_normal(path: &Path) -> Option<Vec<OsString>> {
    let mut parts: Vec<OsString> = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(c) => parts.push(c.to_os_string()),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    Some(parts)
}

fn shown_prefix(parts: &[OsString]) -> String {
    if parts.is_empty() {
        return ".".into();
    }
    parts
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, Workspace) {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("src/sub")).unwrap();
        std::fs::write(root.path().join("src/a.py"), "x\n").unwrap();
        std::fs::write(outside.path().join("secret"), "s\n").unwrap();
        std::fs::create_dir(root.path().join(".git")).unwrap();
        let ws = Workspace::new(root.path()).unwrap();
        (root, outside, ws)
    }

    #[test]
    fn plain_relative_paths_resolve_under_root() {
        let (_r, _o, ws) = setup();
        assert_eq!(ws.resolve("src/a.py").unwrap(), ws.root().join("src/a.py"));
        assert_eq!(
            ws.resolve("./src/sub/../a.py").unwrap(),
            ws.root().join("src/a.py")
        );
        assert_eq!(ws.resolve("").unwrap(), ws.root());
        assert_eq!(ws.resolve(".").unwrap(), ws.root());
        assert_eq!(
            ws.resolve_for_write("new/dir/f.txt").unwrap(),
            ws.root().join("new/dir/f.txt")
        );
        assert_eq!(ws.relative(&ws.root().join("src/a.py")), "src/a.py");
    }

    #[test]
    fn parent_dirs_that_leave_the_root_are_rejected() {
        let (_r, _o, ws) = setup();
        for bad in ["../x", "src/../../x", "..", "a/../../b"] {
            let err = ws.resolve_for_write(bad).unwrap_err();
            assert!(
                matches!(err, ToolError::OutsideWorkspace { .. }),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn absolute_paths_only_inside_root() {
        let (_r, _o, ws) = setup();
        assert!(matches!(
            ws.resolve("/etc/passwd").unwrap_err(),
            ToolError::OutsideWorkspace { .. }
        ));
        let inside = ws.root().join("src/a.py");
        assert_eq!(ws.resolve(&inside.to_string_lossy()).unwrap(), inside);
        let sneaky = format!("{}/../x", ws.root().display());
        assert!(ws.resolve_for_write(&sneaky).is_err());
    }

    #[test]
    fn symlinks_leading_outside_are_rejected_anywhere_on_the_path() {
        let (root, outside, ws) = setup();
        symlink(outside.path(), root.path().join("out")).unwrap();
        symlink(outside.path().join("secret"), root.path().join("src/leak")).unwrap();
        for bad in ["out", "out/secret", "out/new.txt", "out/x/y/z", "src/leak"] {
            let err = ws.resolve_for_write(bad).unwrap_err();
            assert!(
                matches!(err, ToolError::OutsideWorkspace { .. }),
                "{bad}: {err}"
            );
        }
        assert!(ws.resolve("src/leak").is_err());
    }

    #[test]
    fn symlinks_inside_the_root_are_followed() {
        let (root, _o, ws) = setup();
        symlink(root.path().join("src"), root.path().join("lnk")).unwrap();
        assert_eq!(ws.resolve("lnk/a.py").unwrap(), ws.root().join("src/a.py"));
    }

    #[test]
    fn broken_symlinks_and_non_dirs_are_rejected() {
        let (root, outside, ws) = setup();
        symlink(outside.path().join("nope"), root.path().join("dangling")).unwrap();
        assert!(ws.resolve_for_write("dangling").is_err());
        assert!(matches!(
            ws.resolve_for_write("src/a.py/x").unwrap_err(),
            ToolError::InvalidPath { .. }
        ));
    }

    #[test]
    fn git_dir_and_root_are_not_writable() {
        let (root, _o, ws) = setup();
        assert!(matches!(
            ws.resolve_for_write(".git/config").unwrap_err(),
            ToolError::GitDir { .. }
        ));
        symlink(root.path().join(".git"), root.path().join("g")).unwrap();
        assert!(matches!(
            ws.resolve_for_write("g/hooks/pre-commit").unwrap_err(),
            ToolError::GitDir { .. }
        ));
        assert!(ws.resolve_for_write(".").is_err());
        assert!(ws.resolve(".git").is_ok());
    }

    #[test]
    fn names_git_cannot_store_are_not_writable() {
        let (root, _o, ws) = setup();
        std::fs::create_dir(root.path().join("sub")).unwrap();
        for bad in [
            ".GIT/config",
            ".Git/hooks/pre-commit",
            ".git./x",
            ".git /x",
            "sub/.GiT",
            "sub/.git/config",
            "git~1/config",
            ".git::$INDEX_ALLOCATION/x",
            ".git:stream",
            ".g\u{200c}it/config",
            "a\\b.txt",
            "x\u{1}y",
            "new\nline",
        ] {
            let err = ws.resolve_for_write(bad).unwrap_err();
            assert!(
                matches!(err, ToolError::GitName { .. } | ToolError::GitDir { .. }),
                "{bad:?}: {err}"
            );
        }
        let msg = ws.resolve_for_write(".GIT/config").unwrap_err().to_string();
        assert!(
            msg.contains("`.GIT` is git's own metadata directory"),
            "{msg}"
        );
        assert!(msg.contains("nothing was written"), "{msg}");
        assert!(msg.contains("Choose another name"), "{msg}");
        // Through a symlink: the name checked is the one on disk.
        symlink(root.path().join("sub"), root.path().join("s")).unwrap();
        assert!(matches!(
            ws.resolve_for_write("s/.GIT/x").unwrap_err(),
            ToolError::GitName { .. }
        ));
        // Lookalikes are ordinary files, and `..` that stays inside is applied first.
        for good in [
            ".gitignore",
            ".github/ci.yml",
            "git",
            "sub/../.gitattributes",
            "x.",
        ] {
            assert!(ws.resolve_for_write(good).is_ok(), "{good}");
        }
        // Reading is not affected.
        std::fs::write(root.path().join("sub/f"), "x").unwrap();
        assert!(ws.resolve("sub/f").is_ok());
    }

    #[test]
    fn missing_paths_are_not_found() {
        let (_r, _o, ws) = setup();
        assert!(matches!(
            ws.resolve("nope.txt").unwrap_err(),
            ToolError::NotFound { .. }
        ));
    }

    #[test]
    fn a_missing_path_names_what_its_nearest_folder_holds() {
        let (r, _o, ws) = setup();
        std::fs::write(r.path().join(".hidden"), "x").unwrap();
        let root_listing = ws.resolve("net.py").unwrap_err().to_string();
        assert_eq!(
            root_listing,
            "`net.py` does not exist; the workspace root holds: src/"
        );
        let sub_listing = ws.resolve("src/deeper/net.py").unwrap_err().to_string();
        assert!(
            sub_listing.ends_with("; `src/` holds: a.py, sub/"),
            "{sub_listing}"
        );
        for i in 0..30 {
            std::fs::write(r.path().join(format!("many{i:02}.py")), "").unwrap();
        }
        let long = ws.resolve("net.py").unwrap_err().to_string();
        assert!(long.contains(" more"), "{long}");
    }
}
