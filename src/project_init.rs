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
/// Where the hooks keep a fitted model's weights (`--data labelled`); git-ignored.
pub(crate) const HOOKS_CACHE_DIR: &str = ".aipc_hooks_cache";

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
    /// The generated inputs (for the hooks the project does not name itself).
    pub data: InitData,
}

/// What the generated example, eval and calibration hooks give.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum InitData {
    /// Labelled samples of the model's modality (scikit-learn's digits for images, synthetic
    /// tasks with labels for text and audio), and a short fit of a random-weight model's
    /// classifier head on a training split so that its classes mean something. timm and transformers sources only.
    Labelled,
    /// Fixed-seed noise of the input shape, no labels, no fit.
    Synthetic,
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
    let labelled = plan.data == InitData::Labelled;
    let inputs_doc = if labelled {
        "labelled samples of the model's modality: images are scikit-learn's bundled digits (real
8x8 scans, resized to the input size, channels repeated); text and audio are fixed-seed synthetic
tasks with labels (a class keyword repeated in random tokens; a tone whose pitch is the class).
The model's random weights get a short fit on a training split (_fit: the classifier head), so
that its classes mean something: random weights give near-tie logits
that any rounding flips. eval_data() is a held-out split with labels, so the gates also measure
task accuracy. For your own data, point aipc.toml eval_data and calibration_data at functions
of your own."
    } else {
        "fixed-seed synthetic tensors (no dataset was given), so eval_data() returns no labels: the
accuracy gates compare the deployed model with the eager one (cosine, top-1 agreement, and the
accuracy drop against the eager model's own classes). To gate task accuracy on real labels, point
aipc.toml eval_data at a function of your own returning (inputs, labels) of real samples, and
calibration_data at real samples prepared the same way."
    };
    let mut text = format!(
        r#""""Hooks written by `aipc init`; aipc.toml [project] names the functions it uses. Edit them freely.

Model: {model}.
Inputs: {inputs_doc}
"""
import torch

SEED = 0
BATCH = 2  # the example batch: export does not specialise a dimension of 2 (it does 0 and 1)
EVAL_SAMPLES = {eval_samples}
CALIBRATION_SAMPLES = 32
INPUT_SHAPE = {shape}  # one sample's input shape; None: from the model's own config
"#,
        model = plan.source.describe(),
        eval_samples = if labelled { 128 } else { 64 },
    );
    let fit = if labelled {
        "_fitted(_net())"
    } else {
        "_net()"
    };
    match &plan.source {
        ModelSource::Entry(_) => text.push_str(
            r#"

def _sample():
    """(shape of one sample, dtype, upper bound of integer values or None, modality)."""
    return INPUT_SHAPE, torch.float32, None, "tensor"
"#,
        ),
        ModelSource::Timm(name) => {
            let _ = write!(
                text,
                r#"NAME = {name:?}
NUM_CLASSES = {classes}


def _net():
    """timm's model with random weights (fixed seed; pretrained=False: nothing is downloaded)."""
    import timm

    torch.manual_seed(SEED)
    return timm.create_model(NAME, pretrained=False, num_classes=NUM_CLASSES).eval()


def model():
    return {fit}


def _sample():
    """(shape of one sample, dtype, upper bound of integer values or None, modality)."""
    if INPUT_SHAPE is not None:
        return INPUT_SHAPE, torch.float32, None, "image"
    cfg = getattr(_net(), "pretrained_cfg", None) or {{}}
    return tuple(cfg.get("input_size", (3, 224, 224))), torch.float32, None, "image"
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


def _net():
    """transformers' model built from its config, random weights (fixed seed; nothing is downloaded)."""
    config = _config()
    auto, _ = _head(config)
    torch.manual_seed(SEED)
    return Logits(auto.from_config(config)).eval()


def model():
    return {fit}


def _sample():
    """(shape of one sample, dtype, upper bound of integer values or None, modality), from the config."""
    config = _config()
    _, kind = _head(config)
    if kind == "text":
        return INPUT_SHAPE or (SEQUENCE,), torch.int64, config.vocab_size, kind
    if INPUT_SHAPE is not None:
        return INPUT_SHAPE, torch.float32, None, kind
    if kind == "audio":
        return (AUDIO_SAMPLES,), torch.float32, None, kind
    size = getattr(config, "image_size", 224)
    size = tuple(size) if isinstance(size, (list, tuple)) else (size, size)
    return (getattr(config, "num_channels", 3), *size), torch.float32, None, kind
"#,
                classes = plan.num_classes,
                overrides = overrides.join(", ")
            );
        }
    }
    text.push_str(if labelled {
        LABELLED_DATA_PY
    } else {
        SYNTHETIC_DATA_PY
    });
    if plan.eval_data.is_none() {
        text.push_str(if labelled {
            r#"

def eval_data():
    """A held-out split with labels."""
    x, y = _labelled(EVAL_SAMPLES, "eval")
    return (x,), y
"#
        } else {
            r#"

def eval_data():
    """Synthetic inputs and no labels: the gates compare with eager (its classes are the labels)."""
    return (_inputs(EVAL_SAMPLES, SEED + 1),), None
"#
        });
    }
    if plan.calibration_data.is_none() {
        text.push_str(if labelled {
            r#"

def calibration_data():
    """Calibration batches from the training split (never the held-out one)."""
    x = _labelled(CALIBRATION_SAMPLES, "train")[0]
    return [(x[i:i + BATCH],) for i in range(0, CALIBRATION_SAMPLES, BATCH)]
"#
        } else {
            r#"

def calibration_data():
    """Synthetic calibration batches from the same distribution as eval_data()."""
    x = _inputs(CALIBRATION_SAMPLES, SEED + 2)
    return [(x[i:i + BATCH],) for i in range(0, CALIBRATION_SAMPLES, BATCH)]
"#
        });
    }
    text
}

/// Fixed-seed noise of the model's input shape, no labels.
const SYNTHETIC_DATA_PY: &str = r#"

def _inputs(n, seed):
    shape, dtype, high, _ = _sample()
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn((n, *shape), generator=g)
    return torch.randint(0, high, (n, *shape), generator=g, dtype=dtype)


def example_inputs():
    return (_inputs(BATCH, SEED),)
"#;

/// Labelled samples per modality and the short fit of a random-weight model on them.
const LABELLED_DATA_PY: &str = r#"

FIT_SAMPLES = 1024  # training samples of the short fit (_fit)
CACHE_DIR = ".aipc_hooks_cache"  # the fitted weights (_fitted); aipc init git-ignores it


def _digits(shape, split):
    """scikit-learn's bundled digits (1797 real 8x8 scans, 10 classes) as images of `shape`
    (C, H, W): resized, channels repeated, standardised; "train" is the first 1297 of a fixed
    shuffle, "eval" the other 500. Labels are taken modulo NUM_CLASSES."""
    from sklearn.datasets import load_digits

    if len(shape) != 3:
        raise ValueError(f"the digits need an image input (channels, height, width); INPUT_SHAPE is {shape}: "
                         "give aipc init --input-shape C,H,W, or --data synthetic, or point aipc.toml eval_data "
                         "and calibration_data at your own data")
    digits = load_digits()
    order = torch.randperm(len(digits.target), generator=torch.Generator().manual_seed(SEED))
    x = torch.tensor(digits.images, dtype=torch.float32)[order][:, None] / 16.0
    y = torch.tensor(digits.target, dtype=torch.int64)[order] % NUM_CLASSES
    x = (x - 0.3) / 0.4  # roughly zero mean, unit spread
    channels, height, width = shape
    x = torch.nn.functional.interpolate(x, size=(height, width), mode="bilinear", align_corners=False)
    x = x.repeat(1, channels, 1, 1).contiguous()
    return (x[:1297], y[:1297]) if split == "train" else (x[1297:], y[1297:])


def _keywords(shape, vocab, n, g):
    """Token sequences of one class each: random tokens, the first position and a quarter of the
    others holding the class's keyword token (the first is where classification heads read)."""
    (length,) = shape
    if vocab < 2 * NUM_CLASSES:
        raise ValueError(f"a vocabulary of {vocab} tokens is too small for {NUM_CLASSES} class keywords among random "
                         "tokens: give aipc init --data synthetic, or point aipc.toml eval_data at your own data")
    low = 1000 if vocab > 2000 + NUM_CLASSES else 1
    keywords = low + torch.arange(NUM_CLASSES) * ((vocab - low) // NUM_CLASSES)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    x = torch.randint(low, vocab, (n, length), generator=g)
    for i in range(n):
        positions = 1 + torch.randperm(max(length - 1, 1), generator=g)[: max(1, length // 4)]
        x[i, positions.clamp(max=length - 1)] = keywords[y[i]]
        x[i, 0] = keywords[y[i]]
    return x, y


def _tones(shape, n, g):
    """Clips of one class each: a waveform (16 kHz) holding a tone whose pitch is the class, or a
    (frames, bins) spectrogram with the class's band lit, over noise."""
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    if len(shape) == 1:
        t = torch.arange(shape[0], dtype=torch.float32) / 16000.0
        pitch = 200.0 * (6000.0 / 200.0) ** (y.float() / max(NUM_CLASSES - 1, 1))
        phase = 6.2832 * torch.rand(n, 1, generator=g)
        amplitude = 0.5 + 0.5 * torch.rand(n, 1, generator=g)
        x = amplitude * torch.sin(6.2832 * pitch[:, None] * t[None] + phase)
        return x + 0.1 * torch.randn((n, *shape), generator=g), y
    x = torch.randn((n, *shape), generator=g) * 0.5
    bins = shape[-1]
    for i in range(n):
        centre = int((int(y[i]) + 0.5) * bins / NUM_CLASSES)
        x[i, ..., max(centre - 1, 0):centre + 2] += 3.0
    return x, y


def _labelled(n, split):
    """(inputs, labels): n samples of the model's modality from the "train" or "eval" split."""
    shape, dtype, high, kind = _sample()
    if kind == "image":
        x, y = _digits(shape, split)
        return x[:n], y[:n]
    g = torch.Generator().manual_seed(SEED + (1 if split == "eval" else 2))
    if kind == "text":
        return _keywords(shape, high, n, g)
    if kind == "audio":
        return _tones(shape, n, g)
    raise ValueError(f"no labelled data for a {kind} input of shape {shape}: point aipc.toml eval_data at your own")


def _fitted(net):
    """net with the weights of the short fit (_fit), computed once and then loaded from
    .aipc_hooks_cache/ next to this file (git-ignored), keyed by this file's text and the library
    versions: every later call, in any process, gives the same model without fitting again."""
    import hashlib
    import os
    from importlib import metadata

    here = os.path.dirname(os.path.abspath(__file__))
    with open(__file__, "rb") as f:
        key = hashlib.sha256(f.read())
    for dist in ("torch", "timm", "transformers", "scikit-learn"):
        try:
            key.update(f"{dist}={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            pass
    path = os.path.join(here, CACHE_DIR, f"fit-{key.hexdigest()[:16]}.pt")
    if os.path.isfile(path):
        try:
            net.load_state_dict(torch.load(path, weights_only=True))
            return net.eval()
        except Exception:  # noqa: BLE001 - a partial or foreign file: fit again
            pass
    _fit(net)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        partial = f"{path}.{os.getpid()}.partial"
        torch.save(net.state_dict(), partial)
        os.replace(partial, path)  # atomic: a concurrent reader sees the whole file or none
    except OSError:
        pass  # a read-only project: the fit runs on every call instead
    return net


def _fit(net):
    """A short fit on the training split, so that the random-weight model's classes mean
    something: every classifier layer (a Linear giving NUM_CLASSES outputs per sample) is solved
    by ridge regression on the features it receives; the rest keeps its random weights. The ridge
    is strong (the features' mean variance), so the classes rest on the features' main directions,
    as a trained model's do, not on faint ones that any rounding moves. Batch-norm statistics are
    left as initialised: re-estimating them on random weights lifts near-dead channels to full
    scale and makes INT8 lose what FP32 keeps. Deterministic: same seed, same data, same model."""
    x, y = _labelled(FIT_SAMPLES, "train")
    batches = [x[i:i + 32] for i in range(0, len(x), 32)]
    with torch.no_grad():
        heads = [m for m in net.modules() if isinstance(m, torch.nn.Linear) and m.out_features == NUM_CLASSES]
        features = {id(m): [] for m in heads}
        hooks = [m.register_forward_hook(lambda m, args, out: features[id(m)].append(args[0])) for m in heads]
        try:
            for b in batches:
                net(b)
        finally:
            for h in hooks:
                h.remove()
        targets = torch.nn.functional.one_hot(y, NUM_CLASSES).double() * 10.0
        fitted = 0
        for m in heads:
            f = torch.cat(features[id(m)]).double() if features[id(m)] else None
            if f is None or f.dim() != 2 or len(f) != len(y):
                continue  # not a per-sample classifier
            fitted += 1
            mean = f.mean(0)
            fc = f - mean
            ridge = float((fc * fc).sum()) / max(fc.shape[1], 1) + 1e-9
            gram = fc @ fc.T + ridge * torch.eye(len(fc), dtype=fc.dtype)
            w = fc.T @ torch.linalg.solve(gram, targets - targets.mean(0))
            m.weight.copy_(w.T.to(m.weight.dtype))
            if m.bias is not None:
                m.bias.copy_((targets.mean(0) - mean @ w).to(m.bias.dtype))
    if not fitted:
        import sys

        print(f"aipc_hooks: no classifier layer (a Linear with {NUM_CLASSES} outputs per sample) was found to fit: "
              "the model keeps its random head, and its near-tie classes may make INT8 agreement fail; load trained "
              "weights in model() instead", file=sys.stderr)
    return net.eval()


def example_inputs():
    return (_labelled(BATCH, "train")[0],)
"#;

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
            data: InitData::Synthetic,
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
        let mut labelled_timm = plan(ModelSource::Timm("resnet18".into()));
        labelled_timm.data = InitData::Labelled;
        let mut labelled_hf = hf.clone();
        labelled_hf.data = InitData::Labelled;
        labelled_hf.calibration_data = Some("data:calibration".into());
        for p in [
            plan(ModelSource::Timm("resnet18".into())),
            hf,
            entry,
            labelled_timm,
            labelled_hf,
        ] {
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
        assert!(!hooks.contains("def _fit"), "synthetic data: no fit");
        let mut labelled = plan(ModelSource::Timm("resnet18".into()));
        labelled.data = InitData::Labelled;
        let hooks = hooks_py(&labelled);
        assert!(hooks.contains("return _fitted(_net())"), "{hooks}");
        assert!(
            hooks.contains(&format!("CACHE_DIR = \"{HOOKS_CACHE_DIR}\"")),
            "the hooks cache where aipc init git-ignores: {hooks}"
        );
        assert!(
            hooks.contains("def eval_data():\n    \"\"\"A held-out split"),
            "{hooks}"
        );
        assert_eq!(python_value("[16, 32]"), "[16, 32]");
        assert_eq!(python_value("false"), "False");
        assert_eq!(python_value("0.5"), "0.5");
        assert_eq!(python_value("gelu"), "\"gelu\"");
        assert_eq!(python_value("a\u{7}b"), "\"a\\u0007b\"");
    }
}
