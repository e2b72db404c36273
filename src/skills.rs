//! Agent Skills the model can load: `skills/<name>/SKILL.md` files with YAML front matter,
//! checked strictly on load so that a bad skill is an error naming its file and line.
//!
//! Format (the Agent Skills format):
//! - `SKILL.md` starts with front matter between `---` lines.
//! - Required: `name` (equal to the folder name; lowercase letters, digits and hyphens, no
//!   leading, trailing or doubled hyphen, at most 64 characters) and `description` (non-empty,
//!   at most 1024 characters).
//! - Optional: `license`, `compatibility` (at most 500 characters), `metadata` (a map of
//!   strings) and `allowed-tools` (space-separated string, or a list). Any other key is an error.
//! - The body (after the front matter) has at most [`MAX_BODY_LINES`] lines.
//! - Files under `scripts/` and `references/` are listed as the skill's bundled files.
//!
//! Every folder of a skills directory is a skill (except hidden ones, `.name`): a folder whose
//! `SKILL.md` is missing, unreadable (not a regular file, over [`safe_read::SKILL`]) or broken
//! is an error naming the file, never a skill silently left out.

use crate::safe_read::{self, SafeReadError};
use serde_norway::{Mapping, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Longest allowed `name`.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest allowed `description`.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Longest allowed `compatibility`.
pub const MAX_COMPATIBILITY_CHARS: usize = 500;
/// Most lines allowed in a skill's body.
pub const MAX_BODY_LINES: usize = 500;
/// Front-matter keys the format knows.
pub const KNOWN_KEYS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];
/// Folders of a skill whose files are listed as bundled files.
pub const BUNDLED_DIRS: [&str; 2] = ["scripts", "references"];

/// Why skills could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    #[error("cannot read {path}: {source}; check that it exists and is readable")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A skill folder without its `SKILL.md`.
    #[error(
        "{path}: missing; every folder in a skills directory is a skill and needs a SKILL.md \
         (add it, or move the folder out)"
    )]
    Missing { path: PathBuf },
    /// A `SKILL.md` that is not a regular file or is too large.
    #[error("{0}")]
    Unreadable(#[from] SafeReadError),
    /// A `SKILL.md` breaks the format; `message` says what is wrong and how to fix it.
    #[error("{path}:{line}: {message}")]
    Invalid {
        path: PathBuf,
        /// 1-based line number in `SKILL.md`.
        line: usize,
        message: String,
    },
}

/// One loaded skill.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// The Markdown after the front matter, without leading blank lines or trailing whitespace.
    pub body: String,
    /// The skill's folder.
    pub dir: PathBuf,
    /// Relative paths (with `/`) of the files under `scripts/` and `references/`, sorted.
    pub files: Vec<String>,
    pub license: Option<String>,
    pub compatibility: Option<String>,
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`, split on whitespace when given as one string.
    pub allowed_tools: Vec<String>,
}

/// A set of skills by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillSet {
    skills: BTreeMap<String, Skill>,
}

impl SkillSet {
    /// Load every subfolder of `dir` (following symlinks; hidden `.name` folders and plain files
    /// are not skills). A missing `dir` gives an empty set; any bad skill, including a folder
    /// without a readable `SKILL.md`, is an error naming `<dir>/<name>/SKILL.md[:<line>]`.
    pub fn load_dir(dir: &Path) -> Result<SkillSet, SkillError> {
        let io = |path: &Path, source| SkillError::Io {
            path: path.to_path_buf(),
            source,
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(SkillSet::default()),
            Err(e) => return Err(io(dir, e)),
        };
        let mut folders = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| io(dir, e))?;
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            // Followed: a symlinked skill folder is a skill; a broken symlink an error.
            let meta = std::fs::metadata(&path).map_err(|e| io(&path, e))?;
            if meta.is_dir() {
                folders.push(path);
            }
        }
        folders.sort();
        let mut set = SkillSet::default();
        for folder in folders {
            let skill = load_skill(&folder)?;
            set.skills.insert(skill.name.clone(), skill);
        }
        Ok(set)
    }

    /// Add `other`'s skills; a skill of the same name in `other` replaces this set's (so merge
    /// project skills into built-in ones).
    pub fn merge(&mut self, other: SkillSet) {
        self.skills.extend(other.skills);
    }

    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.get(name)
    }

    /// Skill names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.skills.keys().map(String::as_str).collect()
    }

    pub fn len(&self) -> usize {
        self.skills.len()
    }

    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The text `load_skill` returns to the model: the skill's body and a list of its bundled
    /// files (the list is left out when there are none). An unknown name is an `Err` listing
    /// the known names.
    pub fn render_for_model(&self, name: &str) -> Result<String, String> {
        let Some(skill) = self.skills.get(name) else {
            return Err(if self.skills.is_empty() {
                format!("unknown skill `{name}`: no skills are available")
            } else {
                format!(
                    "unknown skill `{name}`; known skills: {}",
                    self.names().join(", ")
                )
            });
        };
        let mut out = format!("# Skill: {}\n\n{}\n", skill.name, skill.body);
        if !skill.files.is_empty() {
            out.push_str(&format!(
                "\n## Bundled files (under {})\n\n",
                skill.dir.display()
            ));
            for file in &skill.files {
                out.push_str(&format!("- {file}\n"));
            }
        }
        Ok(out)
    }
}

/// Load and check the skill in `folder` (which holds `SKILL.md`).
pub fn load_skill(folder: &Path) -> Result<Skill, SkillError> {
    let path = folder.join("SKILL.md");
    let text = safe_read::read_to_string(&path, safe_read::SKILL).map_err(|e| {
        if e.is_not_found() {
            SkillError::Missing { path: path.clone() }
        } else {
            SkillError::Unreadable(e)
        }
    })?;
    let folder_name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parsed =
        parse_skill_md(&text, &folder_name).map_err(|(line, message)| SkillError::Invalid {
            path: path.clone(),
            line,
            message,
        })?;
    let mut files = Vec::new();
    for sub in BUNDLED_DIRS {
        list_files(&folder.join(sub), sub, &mut files)?;
    }
    files.sort();
    Ok(Skill {
        dir: folder.to_path_buf(),
        files,
        ..parsed
    })
}

/// List the files under `dir` (recursively) as `prefix/…` paths. A missing `dir` adds nothing.
fn list_files(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<(), SkillError> {
    let io = |source| SkillError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(e)),
    };
    for entry in entries {
        let entry = entry.map_err(io)?;
        let rel = format!("{prefix}/{}", entry.file_name().to_string_lossy());
        // Do not follow symlinked folders: a loop would never end.
        if entry.file_type().map_err(io)?.is_dir() {
            list_files(&entry.path(), &rel, out)?;
        } else {
            out.push(rel);
        }
    }
    Ok(())
}

/// An error at a 1-based line of `SKILL.md`.
type LineError = (usize, String);

/// Parse and check the text of a `SKILL.md` whose folder is `folder_name`. `dir` and `files`
/// are left empty.
fn parse_skill_md(text: &str, folder_name: &str) -> Result<Skill, LineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return Err((
            1,
            "no front matter: SKILL.md must start with a `---` line, then `name: …` and \
             `description: …` in YAML, then a closing `---` line"
                .into(),
        ));
    }
    let Some(close) = lines
        .iter()
        .skip(1)
        .position(|l| l.trim_end() == "---")
        .map(|i| i + 1)
    else {
        return Err((
            1,
            "the front matter opened here is never closed; add a `---` line after the YAML".into(),
        ));
    };
    let front = &lines[1..close];
    let yaml = front.join("\n");
    let value: Value = serde_norway::from_str(&yaml).map_err(|e| {
        // serde_norway lines are 1-based within the YAML, which starts at file line 2.
        let line = e.location().map_or(1, |l| l.line() + 1);
        (
            line,
            format!(
                "the front matter is not valid YAML: {e} (YAML lines count from the line after \
                 the opening `---`); fix the YAML syntax"
            ),
        )
    })?;
    let map = match value {
        Value::Mapping(map) => map,
        Value::Null => Mapping::new(),
        _ => {
            return Err((
                2,
                "the front matter must be YAML `key: value` lines (a mapping)".into(),
            ))
        }
    };
    let key_line = |key: &str| key_line(front, key);
    for key in map.keys() {
        let Some(key) = key.as_str() else {
            return Err((2, format!("front-matter key {key:?} is not a string")));
        };
        if !KNOWN_KEYS.contains(&key) {
            return Err((
                key_line(key),
                format!(
                    "unknown front-matter key `{key}`; allowed keys are {}; \
                     put custom fields under `metadata:`",
                    KNOWN_KEYS.join(", ")
                ),
            ));
        }
    }
    let string = |key: &str| -> Result<Option<String>, LineError> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err((
                key_line(key),
                format!("`{key}` must be a string, found {}", yaml_kind(other)),
            )),
        }
    };

    let name = string("name")?.ok_or_else(|| {
        (
            close + 1,
            format!("missing required `name`; add `name: {folder_name}` to the front matter"),
        )
    })?;
    check_name(&name).map_err(|msg| (key_line("name"), msg))?;
    if name != folder_name {
        return Err((
            key_line("name"),
            format!(
                "name `{name}` does not match its folder `{folder_name}`; \
                 set `name: {folder_name}` or rename the folder to `{name}`"
            ),
        ));
    }

    let description = string("description")?.unwrap_or_default();
    if description.trim().is_empty() {
        return Err((
            if map.contains_key("description") {
                key_line("description")
            } else {
                close + 1
            },
            "missing or empty `description`; add `description: …` saying what the skill does \
             and when to use it"
                .into(),
        ));
    }
    let n = description.chars().count();
    if n > MAX_DESCRIPTION_CHARS {
        return Err((
            key_line("description"),
            format!(
                "`description` is {n} characters, the limit is {MAX_DESCRIPTION_CHARS}; \
                 shorten it and move detail into the body"
            ),
        ));
    }

    let license = string("license")?;
    let compatibility = string("compatibility")?;
    if let Some(c) = &compatibility {
        let n = c.chars().count();
        if n > MAX_COMPATIBILITY_CHARS {
            return Err((
                key_line("compatibility"),
                format!(
                    "`compatibility` is {n} characters, the limit is {MAX_COMPATIBILITY_CHARS}; \
                     shorten it"
                ),
            ));
        }
    }
    let metadata = match map.get("metadata") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(v) => {
            serde_norway::from_value::<BTreeMap<String, String>>(v.clone()).map_err(|e| {
                (
                    key_line("metadata"),
                    format!(
                        "`metadata` must map strings to strings ({e}); quote numbers and \
                         booleans, e.g. `version: \"1.0\"`"
                    ),
                )
            })?
        }
    };
    let allowed_tools = match map.get("allowed-tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => s.split_whitespace().map(String::from).collect(),
        Some(v) => serde_norway::from_value::<Vec<String>>(v.clone()).map_err(|e| {
            (
                key_line("allowed-tools"),
                format!(
                    "`allowed-tools` must be a space-separated string or a list of \
                     strings ({e})"
                ),
            )
        })?,
    };

    let body_lines = &lines[close + 1..];
    let lead = body_lines
        .iter()
        .take_while(|l| l.trim().is_empty())
        .count();
    let body = body_lines[lead..].join("\n").trim_end().to_string();
    let count = if body.is_empty() {
        0
    } else {
        body.lines().count()
    };
    if count > MAX_BODY_LINES {
        // File line of the first body line past the limit.
        let line = close + 1 + lead + MAX_BODY_LINES + 1;
        return Err((
            line,
            format!(
                "the body has {count} lines, the limit is {MAX_BODY_LINES}; move detail into \
                 files under references/ and point to them from the body"
            ),
        ));
    }

    Ok(Skill {
        name,
        description,
        body,
        dir: PathBuf::new(),
        files: Vec::new(),
        license,
        compatibility,
        metadata,
        allowed_tools,
    })
}

/// Check a skill name's characters and length.
fn check_name(name: &str) -> Result<(), String> {
    let fix = "use lowercase letters, digits and single hyphens, e.g. `onnx-export`";
    if name.is_empty() {
        return Err(format!("`name` is empty; {fix}"));
    }
    let n = name.chars().count();
    if n > MAX_NAME_CHARS {
        return Err(format!(
            "`name` is {n} characters, the limit is {MAX_NAME_CHARS}; shorten it (and the folder)"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Err(format!("`name` `{name}` contains {c:?}; {fix}"));
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Err(format!(
            "`name` `{name}` starts or ends with a hyphen or has two in a row; {fix}"
        ));
    }
    Ok(())
}

/// The file line (1-based) of a top-level `key:` in the front matter; the opening `---` line
/// when it cannot be found.
fn key_line(front: &[&str], key: &str) -> usize {
    front
        .iter()
        .position(|l| {
            let l = l
                .strip_prefix(key)
                .or_else(|| l.strip_prefix(&format!("\"{key}\"")))
                .or_else(|| l.strip_prefix(&format!("'{key}'")));
            l.is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map_or(1, |i| i + 2)
}

/// A short name for a YAML value's type, for error messages.
fn yaml_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a map",
        Value::Tagged(_) => "a tagged value",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Skill, LineError> {
        parse_skill_md(text, "demo")
    }

    #[test]
    fn full_front_matter() {
        let s = parse(
            "---\nname: demo\ndescription: Does a demo.\nlicense: MIT\ncompatibility: rk3588\n\
             metadata:\n  author: me\n  version: \"1.0\"\nallowed-tools: Bash(git:*) Read\n---\n\n\
             # Demo\n\nStep one.\n\n",
        )
        .unwrap();
        assert_eq!(s.name, "demo");
        assert_eq!(s.description, "Does a demo.");
        assert_eq!(s.body, "# Demo\n\nStep one.");
        assert_eq!(s.license.as_deref(), Some("MIT"));
        assert_eq!(s.compatibility.as_deref(), Some("rk3588"));
        assert_eq!(s.metadata.get("version").map(String::as_str), Some("1.0"));
        assert_eq!(s.allowed_tools, vec!["Bash(git:*)", "Read"]);
    }

    #[test]
    fn allowed_tools_as_list_and_crlf() {
        let s = parse(
            "---\r\nname: demo\r\ndescription: d\r\nallowed-tools: [a, b]\r\n---\r\nbody\r\n",
        )
        .unwrap();
        assert_eq!(s.allowed_tools, vec!["a", "b"]);
        assert_eq!(s.body, "body");
    }

    #[test]
    fn yaml_syntax_error_line_is_a_file_line() {
        let (line, msg) = parse("---\nname: demo\nbad: x: y\ndescription: d\n---\n").unwrap_err();
        assert!(msg.contains("not valid YAML"), "{msg}");
        assert_eq!(line, 3, "{msg}");
        // An unclosed flow list is reported at the end of the YAML: the closing `---`.
        let (line, _) = parse("---\nname: demo\nbad: [unclosed\n---\n").unwrap_err();
        assert_eq!(line, 4);
    }

    #[test]
    fn bad_names() {
        for bad in ["Demo", "de_mo", "-demo", "demo-", "de--mo", &"a".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_name("onnx-export2").is_ok());
        assert!(check_name(&"a".repeat(64)).is_ok());
    }

    #[test]
    fn metadata_must_be_strings() {
        let (line, msg) =
            parse("---\nname: demo\ndescription: d\nmetadata:\n  n: [1]\n---\n").unwrap_err();
        assert_eq!(line, 4, "{msg}");
        assert!(msg.contains("metadata"), "{msg}");
    }

    #[test]
    fn unclosed_front_matter() {
        let (line, msg) = parse("---\nname: demo\ndescription: d\n").unwrap_err();
        assert_eq!(line, 1);
        assert!(msg.contains("never closed"), "{msg}");
    }

    #[test]
    fn body_of_exactly_the_limit_is_fine() {
        let body = "x\n".repeat(MAX_BODY_LINES);
        assert!(parse(&format!("---\nname: demo\ndescription: d\n---\n{body}")).is_ok());
        let body = "x\n".repeat(MAX_BODY_LINES + 1);
        let (line, _) =
            parse(&format!("---\nname: demo\ndescription: d\n---\n{body}")).unwrap_err();
        assert_eq!(line, 4 + MAX_BODY_LINES + 1);
    }
}
