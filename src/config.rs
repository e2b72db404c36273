//! Settings that `aipc run` would otherwise need as flags every time: the model, threads,
//! context size, default target and HTTP timeout. Read from the user's
//! `$XDG_CONFIG_HOME/aipc/config.toml` (`~/.config/aipc/config.toml`), then the project's
//! `.aipc/config.toml`, then `AIPC_*` environment variables; a command-line flag wins over all
//! of them. `aipc config show` prints the effective values and where each came from.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One config file's content (every key optional; unknown keys are an error).
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// `scripted:<file>`, `<file.gguf>` or `http://host:port/v1`.
    pub model: Option<String>,
    pub threads: Option<u32>,
    pub ctx: Option<u32>,
    pub target: Option<String>,
    pub request_timeout_s: Option<u64>,
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    Default,
    User(PathBuf),
    Project(PathBuf),
    Environment(String),
}

impl Source {
    fn describe(&self) -> String {
        match self {
            Source::Default => "default".to_string(),
            Source::User(path) | Source::Project(path) => path.display().to_string(),
            Source::Environment(var) => format!("${var}"),
        }
    }
}

/// A value and its source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting<T> {
    pub value: T,
    pub source: Source,
}

/// The effective settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    pub model: Setting<Option<String>>,
    pub threads: Setting<Option<u32>>,
    pub ctx: Setting<u32>,
    pub target: Setting<Option<String>>,
    pub request_timeout_s: Setting<u64>,
}

/// Default context size of the in-process model, in tokens.
pub const DEFAULT_CTX: u32 = 8192;
/// Default seconds an HTTP model request may take.
pub const DEFAULT_REQUEST_TIMEOUT_S: u64 = 300;

/// A config file or variable that cannot be used: what and where.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },
    #[error("${var}={value}: {message}")]
    Environment {
        var: String,
        value: String,
        message: String,
    },
}

/// `$XDG_CONFIG_HOME/aipc/config.toml`, else `~/.config/aipc/config.toml`.
pub fn user_config_path() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("XDG_CONFIG_HOME").map(PathBuf::from) {
        if dir.is_absolute() {
            return Some(dir.join("aipc/config.toml"));
        }
    }
    var("HOME").map(|home| PathBuf::from(home).join(".config/aipc/config.toml"))
}

/// `<project>/.aipc/config.toml`.
pub fn project_config_path(project: &Path) -> PathBuf {
    project.join(".aipc/config.toml")
}

/// Read one config file; a missing file is an empty one.
pub fn read_file(path: &Path) -> Result<ConfigFile, ConfigError> {
    let text = match crate::safe_read::read_to_string(path, crate::safe_read::CONTRACT) {
        Ok(text) => text,
        Err(e) if e.is_not_found() => return Ok(ConfigFile::default()),
        Err(e) => {
            return Err(ConfigError::File {
                path: path.to_path_buf(),
                message: e.problem.to_string(),
            })
        }
    };
    toml::from_str(&text).map_err(|e| ConfigError::File {
        path: path.to_path_buf(),
        // toml's message names the line and column and shows the offending line.
        message: format!(
            "{}\nfix the file; its keys are model, threads, ctx, target, request_timeout_s",
            e.to_string().trim_end()
        ),
    })
}

/// The effective settings for `project` (none: only the user file and the environment).
pub fn load(project: Option<&Path>) -> Result<Config, ConfigError> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let user = user_config_path();
    let user_file = match &user {
        Some(path) => read_file(path)?,
        None => ConfigFile::default(),
    };
    let project_path = project.map(project_config_path);
    let project_file = match &project_path {
        Some(path) => read_file(path)?,
        None => ConfigFile::default(),
    };
    resolve(
        (user.as_deref(), &user_file),
        (project_path.as_deref(), &project_file),
        &env,
    )
}

/// Layer defaults, the user file, the project file and the environment (`env` looks one up).
pub fn resolve(
    user: (Option<&Path>, &ConfigFile),
    project: (Option<&Path>, &ConfigFile),
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Config, ConfigError> {
    fn layer<T: Clone>(
        setting: &mut Setting<T>,
        value: Option<T>,
        source: impl FnOnce() -> Source,
    ) {
        if let Some(value) = value {
            *setting = Setting {
                value,
                source: source(),
            };
        }
    }
    fn parsed<T: std::str::FromStr>(
        env: &dyn Fn(&str) -> Option<String>,
        var: &str,
    ) -> Result<Option<T>, ConfigError>
    where
        T::Err: std::fmt::Display,
    {
        match env(var) {
            None => Ok(None),
            Some(value) => {
                value
                    .trim()
                    .parse()
                    .map(Some)
                    .map_err(|e: T::Err| ConfigError::Environment {
                        var: var.to_string(),
                        value,
                        message: e.to_string(),
                    })
            }
        }
    }
    let mut config = Config {
        model: Setting {
            value: None,
            source: Source::Default,
        },
        threads: Setting {
            value: None,
            source: Source::Default,
        },
        ctx: Setting {
            value: DEFAULT_CTX,
            source: Source::Default,
        },
        target: Setting {
            value: None,
            source: Source::Default,
        },
        request_timeout_s: Setting {
            value: DEFAULT_REQUEST_TIMEOUT_S,
            source: Source::Default,
        },
    };
    for (path, file, project) in [(user.0, user.1, false), (project.0, project.1, true)] {
        let source = || match (path, project) {
            (Some(p), true) => Source::Project(p.to_path_buf()),
            (Some(p), false) => Source::User(p.to_path_buf()),
            (None, _) => Source::Default,
        };
        layer(&mut config.model, file.model.clone().map(Some), source);
        layer(&mut config.threads, file.threads.map(Some), source);
        layer(&mut config.ctx, file.ctx, source);
        layer(&mut config.target, file.target.clone().map(Some), source);
        layer(
            &mut config.request_timeout_s,
            file.request_timeout_s,
            source,
        );
    }
    fn from_env(var: &'static str) -> impl FnOnce() -> Source {
        move || Source::Environment(var.to_string())
    }
    layer(
        &mut config.model,
        env("AIPC_MODEL").map(Some),
        from_env("AIPC_MODEL"),
    );
    layer(
        &mut config.threads,
        parsed::<u32>(env, "AIPC_THREADS")?.map(Some),
        from_env("AIPC_THREADS"),
    );
    layer(
        &mut config.ctx,
        parsed(env, "AIPC_CTX")?,
        from_env("AIPC_CTX"),
    );
    layer(
        &mut config.target,
        env("AIPC_TARGET").map(Some),
        from_env("AIPC_TARGET"),
    );
    layer(
        &mut config.request_timeout_s,
        parsed(env, "AIPC_REQUEST_TIMEOUT_S")?,
        from_env("AIPC_REQUEST_TIMEOUT_S"),
    );
    Ok(config)
}

impl Config {
    /// `aipc config show`: one line per key, value and source.
    pub fn to_text(&self) -> String {
        fn line<T: std::fmt::Debug>(name: &str, value: String, setting: &Setting<T>) -> String {
            format!("{name:<18} {value:<40} ({})\n", setting.source.describe())
        }
        let unset = |v: &Option<String>| v.clone().unwrap_or_else(|| "(unset)".to_string());
        let mut out = String::new();
        out.push_str(&line("model", unset(&self.model.value), &self.model));
        out.push_str(&line(
            "threads",
            self.threads
                .value
                .map(|t| t.to_string())
                .unwrap_or_else(|| "(the cores available)".to_string()),
            &self.threads,
        ));
        out.push_str(&line("ctx", self.ctx.value.to_string(), &self.ctx));
        out.push_str(&line("target", unset(&self.target.value), &self.target));
        out.push_str(&line(
            "request_timeout_s",
            self.request_timeout_s.value.to_string(),
            &self.request_timeout_s,
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> ConfigFile {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn project_over_user_over_default_and_the_environment_over_both() {
        let user = file("model = \"/m/user.gguf\"\nthreads = 1\nctx = 4096\n");
        let project = file("threads = 2\ntarget = \"onnxruntime-cpu\"\n");
        let env = |name: &str| (name == "AIPC_CTX").then(|| "2048".to_string());
        let config = resolve(
            (Some(Path::new("/u/config.toml")), &user),
            (Some(Path::new("/p/.aipc/config.toml")), &project),
            &env,
        )
        .unwrap();
        assert_eq!(config.model.value.as_deref(), Some("/m/user.gguf"));
        assert_eq!(config.model.source, Source::User("/u/config.toml".into()));
        assert_eq!(config.threads.value, Some(2));
        assert_eq!(
            config.threads.source,
            Source::Project("/p/.aipc/config.toml".into())
        );
        assert_eq!(config.ctx.value, 2048);
        assert_eq!(config.ctx.source, Source::Environment("AIPC_CTX".into()));
        assert_eq!(config.request_timeout_s.value, DEFAULT_REQUEST_TIMEOUT_S);
        assert_eq!(config.request_timeout_s.source, Source::Default);
        let text = config.to_text();
        assert!(text.contains("$AIPC_CTX"), "{text}");
        assert!(text.contains("onnxruntime-cpu"), "{text}");
    }

    #[test]
    fn a_bad_file_or_variable_says_where() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "model = \"x\"\nthread = 2\n").unwrap();
        let error = read_file(&path).unwrap_err().to_string();
        assert!(error.contains("config.toml"), "{error}");
        assert!(error.contains("line 2"), "{error}");
        assert!(error.contains("thread"), "{error}");
        let env = |name: &str| (name == "AIPC_THREADS").then(|| "two".to_string());
        let empty = ConfigFile::default();
        let error = resolve((None, &empty), (None, &empty), &env)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("$AIPC_THREADS=two"), "{error}");
        assert!(read_file(&dir.path().join("missing.toml")).is_ok());
    }
}
