//! Prompt templates: the texts the model reads live in `prompts/*.j2` (minijinja), not in Rust
//! string literals. This module loads them once and renders them by name.

use minijinja::Environment;
use serde::Serialize;
use std::path::Path;

/// The templates the engine needs; loading fails early if one is missing.
pub const REQUIRED: &[&str] = &[
    "system.md.j2",
    "stage.md.j2",
    "repair.md.j2",
    "observation.md.j2",
    "hint.md.j2",
    "human_action.md.j2",
];

#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("prompt template: {source}; is the aipc data directory complete (set AIPC_DATA_DIR)?")]
    Read {
        #[source]
        source: crate::safe_read::SafeReadError,
    },
    #[error("prompt template {name} does not parse: {source}")]
    Parse {
        name: String,
        source: minijinja::Error,
    },
    #[error("prompt template {name} failed to render: {source}")]
    Render {
        name: String,
        source: minijinja::Error,
    },
}

/// The loaded templates.
pub struct Prompts {
    env: Environment<'static>,
}

impl std::fmt::Debug for Prompts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prompts").finish_non_exhaustive()
    }
}

impl Prompts {
    /// Load every `*.j2` in `dir`; all of [`REQUIRED`] must be there.
    pub fn load(dir: &Path) -> Result<Self, PromptError> {
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_keep_trailing_newline(true);
        for name in REQUIRED {
            let path = dir.join(name);
            let source = crate::safe_read::read_to_string(&path, crate::safe_read::PROMPT)
                .map_err(|source| PromptError::Read { source })?;
            env.add_template_owned(name.to_string(), source)
                .map_err(|source| PromptError::Parse {
                    name: name.to_string(),
                    source,
                })?;
        }
        Ok(Prompts { env })
    }

    /// Render template `name` with `context`.
    pub fn render<S: Serialize>(&self, name: &str, context: S) -> Result<String, PromptError> {
        let render_error = |source| PromptError::Render {
            name: name.to_string(),
            source,
        };
        let template = self.env.get_template(name).map_err(render_error)?;
        let text = template.render(context).map_err(render_error)?;
        Ok(text.trim_end().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped() -> Prompts {
        Prompts::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("prompts")).unwrap()
    }

    #[test]
    fn shipped_templates_load_and_render_repair_evidence() {
        let prompts = shipped();
        let text = prompts
            .render(
                "repair.md.j2",
                minijinja::context! {
                    attempt => 2, max_attempts => 3,
                    evidence => crate::protocol::Evidence {
                        signature: "s".into(),
                        failed_check: "export runs: exit code 1, expected 0".into(),
                        exit_code: Some(1),
                        excerpt: "Traceback".into(),
                        facts: [("op".to_string(), "aten::foo".to_string())].into(),
                        candidate_fixes: vec!["load_skill export-op-rewrite".into()],
                        class: Some("unsupported-operator".into()),
                    }
                },
            )
            .unwrap();
        assert!(text.contains("Attempt 2 of 3"), "{text}");
        assert!(text.contains("op: aten::foo"), "{text}");
        assert!(text.contains("- load_skill export-op-rewrite"), "{text}");
    }

    #[test]
    fn missing_template_dir_says_where() {
        let err = Prompts::load(Path::new("/nonexistent")).unwrap_err();
        assert!(
            err.to_string().contains("/nonexistent/system.md.j2"),
            "{err}"
        );
    }
}
