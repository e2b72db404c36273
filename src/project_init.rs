//! What `aipc init` writes into a project folder: `aipc.toml` (the target and the `[project]`
//! table) and a small hooks module, `aipc_hooks.py`, with the functions the table names and the
//! project does not have — the model built from a third-party definition (a `timm` name or a
//! `transformers` model type, random weights with a fixed seed: nothing is downloaded), and
//! fixed-seed synthetic example, eval and calibration inputs. Pure text generation; the command
//! (`crate::cli::init`) asks, writes and validates.
//!
//! The hooks decide at run time what only the toolchain can know (a timm model's input size, a
//! transformers config's modality and head), so they run unchanged in any target's venv.

use std::fmt::Write as _;

/// The hooks module `aipc init` writes.
pub(crate) const HOOKS_FILE: &str = "aipc_hooks.py";
const HOOKS_MODULE: &str = "aipc_hooks";

/// Where the model comes from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ModelSource {
    /// The project's own `module:function` returning the nn.Module, weights loaded.
    Entry(String),
    /// `timm.create_model(name, pretrained=False)`, fixed seed.
    Timm(String),
    /// A `transformers` model type (`AutoConfig.for_model`), with its classification head for
    /// images, text or audio, fixed seed.
    HuggingFace(String),
}

impl ModelSource {
    /// Parse `--from`: `module:function`, `timm:<name>` or `hf:<model type>`.
    pub(crate) fn parse(spec: &str) -> Result<ModelSource, String> {
        let spec = spec.trim();
        let name_ok = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        };
        if let Some(name) = spec.strip_prefix("timm:") {
            return name_ok(name)
                .then(|| ModelSource::Timm(name.to_string()))
                .ok_or_else(|| {
                    format!("`{spec}`: expected timm:<model name>, e.g. timm:resnet18")
                });
        }
        if let Some(name) = spec.strip_prefix("hf:") {
            return name_ok(name)
                .then(|| ModelSource::HuggingFace(name.to_string()))
                .ok_or_else(|| {
                    format!(
                        "`{spec}`: expected hf:<transformers model type>, e.g. hf:vit or hf:bert"
                    )
                });
        }
        let entry_ok = spec.split_once(':').is_some_and(|(module, function)| {
            !module.is_empty()
                && module
                    .split('.')
                    .all(|part| !part.is_empty() && is_identifier(part))
                && is_identifier(function)
        });
        if entry_ok {
            return Ok(ModelSource::Entry(spec.to_string()));
        }
        Err(format!(
            "`{spec}`: expected module:function (a function of the project returning the \
             nn.Module), timm:<name> or hf:<model type>"
        ))
    }

    fn describe(&self) -> String {
        match self {
            ModelSource::Entry(entry) => format!("the project's {entry}"),
            ModelSource::Timm(name) => {
                format!("timm's {name}, random weights from the fixed SEED below (nothing is downloaded)")
            }
            ModelSource::HuggingFace(kind) => format!(
                "transformers' {kind} config with its classification head, random weights from \
                 the fixed SEED below (nothing is downloaded)"
            ),
        }
    }
}

/// Whether `s` is a Python identifier (ASCII).
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Everything `aipc init` decided.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InitPlan {
    pub source: ModelSource,
    pub target: String,
    /// One sample's input shape, without the batch dim; `None`: from the model's own config
    /// (timm, transformers), required for the project's own model.
    pub input_shape: Option<Vec<usize>>,
    /// Classes of the head (timm, transformers).
    pub num_classes: usize,
    /// `key=value` overrides of the transformers config (small variants).
    pub hf_config: Vec<(String, String)>,
    /// The project's own eval / calibration functions; `None`: synthetic ones are generated.
    pub eval_data: Option<String>,
    pub calibration_data: Option<String>,
    pub int8: bool,
    pub latency_budget_ms: Option<f64>,
}

/// The text of `aipc.toml`.
pub(crate) fn aipc_toml(plan: &InitPlan) -> String {
    let model = match &plan.source {
        ModelSource::Entry(entry) => entry.clone(),
        _ => format!("{HOOKS_MODULE}:model"),
    };
    let hook = |own: &Option<String>, name: &str| {
        own.clone()
            .unwrap_or_else(|| format!("{HOOKS_MODULE}:{name}"))
    };
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# The project's part of the deployment contract, written by `aipc init` (docs/toolbox.md\n\
         # lists every key; docs/getting-started.md walks through a first deployment).\n\
         target = \"{}\"\n\n[project]",
        plan.target
    );
    let _ = writeln!(
        text,
        "model = \"{model}\"                # -> nn.Module in eval mode, weights loaded"
    );
    let _ = writeln!(
        text,
        "example_inputs = \"{HOOKS_MODULE}:example_inputs\"   # -> tuple of input tensors (batch 2)"
    );
    let _ = writeln!(
        text,
        "eval_data = \"{}\"                # -> (inputs, labels or None)",
        hook(&plan.eval_data, "eval_data")
    );
    let _ = writeln!(
        text,
        "calibration_data = \"{}\"  # -> list of input tuples (INT8 calibration)",
        hook(&plan.calibration_data, "calibration_data")
    );
    let _ = writeln!(
        text,
        "input_names = [\"input\"]\noutput_names = [\"logits\"]"
    );
    let _ = writeln!(
        text,
        "quantize = \"{}\"                   # the artifact the project ships: \"int8\" or \"none\" (FP32)",
        if plan.int8 { "int8" } else { "none" }
    );
    match plan.latency_budget_ms {
        Some(ms) => {
            let _ = writeln!(
                text,
                "latency_budget_ms = {ms}            # p50 budget of the performance stage"
            );
        }
        None => {
            let _ = writeln!(
                text,
                "# latency_budget_ms = 5.0           # a p50 budget for the performance stage (none given)"
            );
        }
    }
    text
}

/// Python literal of a `--hf-config` value: numbers, booleans and JSON lists of them as they
/// are (`[16, 32]`), anything else a string.
fn python_value(value: &str) -> String {
    fn literal(v: &serde_json::Value) -> Option<String> {
        match v {
            serde_json::Value::Bool(b) => Some(if *b { "True" } else { "False" }.into()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            // A JSON string literal is a valid Python one (Rust's `{:?}` writes `\u{7}`, which
            // Python does not read).
            serde_json::Value::String(_) => Some(v.to_string()),
            serde_json::Value::Array(items) => items
                .iter()
                .map(literal)
                .collect::<Option<Vec<_>>>()
                .map(|parts| format!("[{}]", parts.join(", "))),
            _ => None,
        }
    }
    match value {
        "True" => "True".into(),
        "False" => "False".into(),
        v => serde_json::from_str::<serde_json::Value>(v)
            .ok()
            .and_then(|parsed| literal(&parsed))
            .unwrap_or_else(|| serde_json::Value::String(v.to_string()).to_string()),
    }
}

/// The text of `aipc_hooks.py`.
pub(crate) fn hooks_py(plan: &InitPlan) -> String {
    let shape = match &plan.input_shape {
        Some(dims) => {
            let dims: Vec<String> = dims.iter().map(usize::to_string).collect();
            format!("({},)", dims.join(", "))
        }
        None => "None".into(),
    };
    let mut text = format!(
        r#""""Hooks written by `aipc init`; aipc.toml [project] names the functions it uses. Edit them freely.

Model: {model}.
Inputs: fixed-seed synthetic tensors (no dataset was given), so eval_data() returns no labels: the
accuracy gates compare the deployed model with the eager one (cosine, top-1 agreement, and the
accuracy drop against the eager model's own classes). To gate task accuracy on real labels, point
aipc.toml eval_data at a function of your own returning (inputs, labels) of real samples, and
calibration_data at real samples prepared the same way.
"""
import torch

SEED = 0
BATCH = 2  # the example batch: export does not specialise a dimension of 2 (it does 0 and 1)
EVAL_SAMPLES = 64
CALIBRATION_SAMPLES = 32
INPUT_SHAPE = {shape}  # one sample's input shape; None: from the model's own config
"#,
        model = plan.source.describe(),
    );
    match &plan.source {
        ModelSource::Entry(_) => text.push_str(
            r#"

def _sample():
    """(shape of one sample, dtype, upper bound of integer values or None)."""
    return INPUT_SHAPE, torch.float32, None
"#,
        ),
        ModelSource::Timm(name) => {
            let _ = write!(
                text,
                r#"NAME = {name:?}
NUM_CLASSES = {classes}


def model():
    """timm's model with random weights (fixed seed; pretrained=False: nothing is downloaded)."""
    import timm

    torch.manual_seed(SEED)
    return timm.create_model(NAME, pretrained=False, num_classes=NUM_CLASSES).eval()


def _sample():
    """(shape of one sample, dtype, upper bound of integer values or None): timm's input size."""
    if INPUT_SHAPE is not None:
        return INPUT_SHAPE, torch.float32, None
    cfg = getattr(model(), "pretrained_cfg", None) or {{}}
    return tuple(cfg.get("input_size", (3, 224, 224))), torch.float32, None
"#,
                classes = plan.num_classes
            );
        }
        ModelSource::HuggingFace(kind) => {
            let overrides: Vec<String> = plan
                .hf_config
                .iter()
                .map(|(k, v)| format!("{k:?}: {}", python_value(v)))
                .collect();
            let _ = write!(
                text,
                r#"MODEL_TYPE = {kind:?}
NUM_CLASSES = {classes}
CONFIG = {{{overrides}}}  # overrides of the config's defaults (aipc init --hf-config key=value)
SEQUENCE = 32  # text: tokens per sample
AUDIO_SAMPLES = 16000  # audio: samples per clip


def _config():
    from transformers import AutoConfig

    return AutoConfig.for_model(MODEL_TYPE, num_labels=NUM_CLASSES, **CONFIG)


def _head(config):
    """(the Auto class of this config's classification head, "image" | "text" | "audio")."""
    import transformers as t

    for auto, kind in ((t.AutoModelForImageClassification, "image"), (t.AutoModelForSequenceClassification, "text"),
                       (t.AutoModelForAudioClassification, "audio")):
        if type(config) in auto._model_mapping:
            return auto, kind
    raise ValueError(f"transformers has no image, text or audio classification head for model type {{MODEL_TYPE!r}}")


class Logits(torch.nn.Module):
    """The model's logits as a plain tensor (a deployed graph returns tensors, not ModelOutput)."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x).logits


def model():
    """transformers' model built from its config, random weights (fixed seed; nothing is downloaded)."""
    config = _config()
    auto, _ = _head(config)
    torch.manual_seed(SEED)
    return Logits(auto.from_config(config)).eval()


def _sample():
    """(shape of one sample, dtype, upper bound of integer values or None), from the config."""
    config = _config()
    _, kind = _head(config)
    if kind == "text":
        return INPUT_SHAPE or (SEQUENCE,), torch.int64, config.vocab_size
    if INPUT_SHAPE is not None:
        return INPUT_SHAPE, torch.float32, None
    if kind == "audio":
        return (AUDIO_SAMPLES,), torch.float32, None
    size = getattr(config, "image_size", 224)
    size = tuple(size) if isinstance(size, (list, tuple)) else (size, size)
    return (getattr(config, "num_channels", 3), *size), torch.float32, None
"#,
                classes = plan.num_classes,
                overrides = overrides.join(", ")
            );
        }
    }
    text.push_str(
        r#"

def _inputs(n, seed):
    shape, dtype, high = _sample()
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn((n, *shape), generator=g)
    return torch.randint(0, high, (n, *shape), generator=g, dtype=dtype)


def example_inputs():
    return (_inputs(BATCH, SEED),)
"#,
    );
    if plan.eval_data.is_none() {
        text.push_str(
            r#"

def eval_data():
    """Synthetic inputs and no labels: the gates compare with eager (its classes are the labels)."""
    return (_inputs(EVAL_SAMPLES, SEED + 1),), None
"#,
        );
    }
    if plan.calibration_data.is_none() {
        text.push_str(
            r#"

def calibration_data():
    """Synthetic calibration batches from the same distribution as eval_data()."""
    x = _inputs(CALIBRATION_SAMPLES, SEED + 2)
    return [(x[i:i + BATCH],) for i in range(0, CALIBRATION_SAMPLES, BATCH)]
"#,
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(source: ModelSource) -> InitPlan {
        InitPlan {
            source,
            target: "onnxruntime-cpu".into(),
            input_shape: None,
            num_classes: 10,
            hf_config: Vec::new(),
            eval_data: None,
            calibration_data: None,
            int8: true,
            latency_budget_ms: None,
        }
    }

    #[test]
    fn from_specs_parse_or_say_what_is_expected() {
        assert_eq!(
            ModelSource::parse("nets.zoo:build").unwrap(),
            ModelSource::Entry("nets.zoo:build".into())
        );
        assert_eq!(
            ModelSource::parse("timm:mobilenetv3_small_050").unwrap(),
            ModelSource::Timm("mobilenetv3_small_050".into())
        );
        assert_eq!(
            ModelSource::parse("hf:vit").unwrap(),
            ModelSource::HuggingFace("vit".into())
        );
        for bad in ["model", "model:", ":f", "a-b:f", "timm:", "hf:x y", "m:1f"] {
            let e = ModelSource::parse(bad).unwrap_err();
            assert!(e.contains("expected"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_table_names_the_hooks_and_validates() {
        let mut p = plan(ModelSource::Entry("net:build".into()));
        p.input_shape = Some(vec![1, 28, 28]);
        p.eval_data = Some("data:held_out".into());
        p.latency_budget_ms = Some(2.5);
        let toml = aipc_toml(&p);
        assert!(toml.contains("model = \"net:build\""), "{toml}");
        assert!(toml.contains("eval_data = \"data:held_out\""), "{toml}");
        assert!(
            toml.contains("calibration_data = \"aipc_hooks:calibration_data\""),
            "{toml}"
        );
        assert!(toml.contains("latency_budget_ms = 2.5"), "{toml}");
        let dir = tempfile::tempdir().unwrap();
        for file in ["net.py", "data.py", HOOKS_FILE] {
            std::fs::write(dir.path().join(file), "").unwrap();
        }
        let problems = crate::project_table::validate(&toml, dir.path());
        assert!(problems.is_empty(), "{problems:?}");
        let hooks = hooks_py(&p);
        assert!(hooks.contains("INPUT_SHAPE = (1, 28, 28,)"), "{hooks}");
        assert!(
            !hooks.contains("def eval_data"),
            "the project's own is named"
        );
        assert!(hooks.contains("def calibration_data"));
    }

    #[test]
    fn hooks_of_every_source_parse_as_python() {
        let mut hf = plan(ModelSource::HuggingFace("bert".into()));
        hf.hf_config = vec![
            ("hidden_size".into(), "64".into()),
            ("hidden_act".into(), "gelu".into()),
            ("use_cache".into(), "false".into()),
            ("depths".into(), "[1, 2]".into()),
        ];
        let mut entry = plan(ModelSource::Entry("net:build".into()));
        entry.input_shape = Some(vec![16]);
        for p in [plan(ModelSource::Timm("resnet18".into())), hf, entry] {
            let hooks = hooks_py(&p);
            let out = std::process::Command::new("python3")
                .args(["-c", "import ast, sys; ast.parse(sys.stdin.read())"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut child| {
                    use std::io::Write;
                    child.stdin.take().unwrap().write_all(hooks.as_bytes())?;
                    child.wait_with_output()
                })
                .unwrap();
            assert!(
                out.status.success(),
                "{:?}: {}\n{hooks}",
                p.source,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let hooks = hooks_py(&plan(ModelSource::HuggingFace("bert".into())));
        assert!(hooks.contains("CONFIG = {}"), "{hooks}");
        assert_eq!(python_value("[16, 32]"), "[16, 32]");
        assert_eq!(python_value("false"), "False");
        assert_eq!(python_value("0.5"), "0.5");
        assert_eq!(python_value("gelu"), "\"gelu\"");
        assert_eq!(python_value("a\u{7}b"), "\"a\\u0007b\"");
    }
}
