//! How the in-process backend turns the engine's messages into prompt text: the GGUF's own chat
//! template when it has one (llama.cpp's built-in template engine), otherwise the built-in
//! document format for base models (`prompts/base_model.j2` with `prompts/few_shot.md`).
//!
//! Both renderings are append-only across turns (turn N+1's text starts with turn N's text plus
//! the model's reply), which is what KV-cache reuse relies on.

use crate::model::{Message, ModelError, Role};
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use minijinja::Environment;
use std::path::Path;

/// The prompt format of one loaded model.
pub enum PromptFormat {
    /// The model's chat template.
    Chat(LlamaChatTemplate),
    /// The base-model document format.
    Base {
        env: Box<Environment<'static>>,
        few_shot: String,
    },
}

impl PromptFormat {
    /// The model's template if it has one, else the base format from `prompts_dir`.
    pub fn for_model(model: &LlamaModel, prompts_dir: &Path) -> Result<Self, ModelError> {
        if let Ok(template) = model.chat_template(None) {
            return Ok(PromptFormat::Chat(template));
        }
        Self::base(prompts_dir)
    }

    /// The base-model document format.
    pub fn base(prompts_dir: &Path) -> Result<Self, ModelError> {
        let read = |name: &str| {
            let path = prompts_dir.join(name);
            crate::safe_read::read_to_string(&path, crate::safe_read::PROMPT).map_err(|e| {
                ModelError::Setup(format!("{e}; is the aipc data directory complete?"))
            })
        };
        let source = read("base_model.j2")?;
        let few_shot = read("few_shot.md")?;
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.add_template_owned("base_model.j2".to_string(), source)
            .map_err(|e| ModelError::Setup(format!("prompts/base_model.j2 does not parse: {e}")))?;
        Ok(PromptFormat::Base {
            env: Box::new(env),
            few_shot: few_shot.trim_end().to_string(),
        })
    }

    /// `true` for the model's own chat template.
    pub fn is_chat_template(&self) -> bool {
        matches!(self, PromptFormat::Chat(_))
    }

    /// Render `messages` as the prompt whose continuation is the model's next reply.
    pub fn render(&self, model: &LlamaModel, messages: &[Message]) -> Result<String, ModelError> {
        match self {
            PromptFormat::Chat(template) => {
                let chat: Vec<LlamaChatMessage> = messages
                    .iter()
                    .map(|m| {
                        let (role, content) = match m.role {
                            Role::System => ("system", m.content.clone()),
                            Role::User => ("user", m.content.clone()),
                            Role::Assistant => ("assistant", m.content.clone()),
                            Role::Tool => ("user", format!("Observation:\n{}", m.content)),
                        };
                        LlamaChatMessage::new(role.to_string(), content).map_err(|e| {
                            ModelError::Backend(format!(
                                "message cannot be passed to llama.cpp: {e}"
                            ))
                        })
                    })
                    .collect::<Result<_, _>>()?;
                model
                    .apply_chat_template(template, &chat, true)
                    .map_err(|e| ModelError::Backend(format!("chat template failed: {e}")))
            }
            PromptFormat::Base { env, few_shot } => {
                let system = messages
                    .iter()
                    .filter(|m| m.role == Role::System)
                    .map(|m| m.content.as_str())
                    .collect::<Vec<_>>()
                    .join("\n\n");
                let rest: Vec<minijinja::Value> = messages
                    .iter()
                    .filter(|m| m.role != Role::System)
                    .map(|m| {
                        minijinja::context! { role => m.role.as_str(), content => m.content }
                    })
                    .collect();
                let template = env
                    .get_template("base_model.j2")
                    .map_err(|e| ModelError::Setup(e.to_string()))?;
                let text = template
                    .render(minijinja::context! {
                        system => system, few_shot => few_shot, messages => rest
                    })
                    .map_err(|e| ModelError::Setup(format!("prompts/base_model.j2: {e}")))?;
                Ok(text.trim_end().to_string())
            }
        }
    }
}
