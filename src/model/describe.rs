//! GGUF metadata rendered for people: `aipc model info` (one fact a line) and `aipc model list`
//! (one model a line), with parameter counts like `268.1 M` and sizes like `253.1 MB`.

use super::gguf::GgufInfo;

/// A parameter count for people: `268.1 M`, `7.2 B`, `950.0 K`, `12`.
pub fn format_parameters(n: u64) -> String {
    let x = n as f64;
    if x >= 1e9 {
        format!("{:.1} B", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.1} M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1} K", x / 1e3)
    } else {
        format!("{n}")
    }
}

/// A file size for people, in decimal units: `253.1 MB`, `4.7 GB`, `812 bytes`.
pub fn format_bytes(n: u64) -> String {
    let x = n as f64;
    if x >= 1e9 {
        format!("{:.1} GB", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.1} MB", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.1} KB", x / 1e3)
    } else {
        format!("{n} bytes")
    }
}

fn or_unknown<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "unknown".to_string(), |v| v.to_string())
}

/// The `aipc model info` text: one `name: value` line per fact, ending with a newline.
pub fn info_text(info: &GgufInfo) -> String {
    let mut lines = vec![("file", info.path.display().to_string())];
    if let Some(name) = &info.name {
        lines.push(("name", name.clone()));
    }
    lines.extend([
        ("architecture", or_unknown(info.architecture.as_deref())),
        (
            "parameters",
            format!(
                "{} ({} in {} tensors)",
                format_parameters(info.parameters),
                info.parameters,
                info.tensor_count
            ),
        ),
        ("quantization", info.quantization.clone()),
        ("context length", or_unknown(info.context_length)),
        (
            "vocabulary",
            info.vocab_size
                .map_or_else(|| "unknown".to_string(), |n| format!("{n} tokens")),
        ),
        (
            "chat template",
            if info.has_chat_template {
                "present".to_string()
            } else {
                "none (a base model; aipc's prompt format carries it)".to_string()
            },
        ),
        (
            "file size",
            format!(
                "{} ({} bytes)",
                format_bytes(info.file_size),
                info.file_size
            ),
        ),
        ("GGUF version", info.version.to_string()),
    ]);
    lines
        .iter()
        .map(|(key, value)| format!("{key}: {value}\n"))
        .collect()
}

/// One `aipc model list` line: file name, size, architecture, parameters, quantization,
/// context length and whether a chat template is present.
pub fn list_line(info: &GgufInfo) -> String {
    let file = info.path.file_name().map_or_else(
        || info.path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    format!(
        "{file}  {}  {}  {} params  {}  ctx {}  {}",
        format_bytes(info.file_size),
        or_unknown(info.architecture.as_deref()),
        format_parameters(info.parameters),
        info.quantization,
        or_unknown(info.context_length),
        if info.has_chat_template {
            "chat template"
        } else {
            "no chat template"
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    fn info() -> GgufInfo {
        GgufInfo {
            path: PathBuf::from("/m/gemma.gguf"),
            file_size: 253_113_024,
            version: 3,
            tensor_count: 236,
            architecture: Some("gemma3".to_string()),
            name: None,
            context_length: Some(32768),
            parameters: 268_098_176,
            quantization: "Q4_K_M".to_string(),
            has_chat_template: false,
            vocab_size: Some(262_144),
            metadata: BTreeMap::new(),
        }
    }

    #[test]
    fn numbers_format_for_people() {
        assert_eq!(format_parameters(268_098_176), "268.1 M");
        assert_eq!(format_parameters(7_241_732_096), "7.2 B");
        assert_eq!(format_parameters(950_000), "950.0 K");
        assert_eq!(format_parameters(12), "12");
        assert_eq!(format_bytes(253_113_024), "253.1 MB");
        assert_eq!(format_bytes(4_700_000_000), "4.7 GB");
        assert_eq!(format_bytes(2_048), "2.0 KB");
        assert_eq!(format_bytes(812), "812 bytes");
    }

    #[test]
    fn info_and_list_lines_say_what_matters() {
        let text = info_text(&info());
        assert!(text.contains("architecture: gemma3\n"), "{text}");
        assert!(
            text.contains("parameters: 268.1 M (268098176 in 236 tensors)\n"),
            "{text}"
        );
        assert!(text.contains("quantization: Q4_K_M\n"), "{text}");
        assert!(text.contains("context length: 32768\n"), "{text}");
        assert!(text.contains("vocabulary: 262144 tokens\n"), "{text}");
        assert!(text.contains("chat template: none"), "{text}");
        assert!(
            text.contains("file size: 253.1 MB (253113024 bytes)\n"),
            "{text}"
        );
        assert_eq!(
            list_line(&info()),
            "gemma.gguf  253.1 MB  gemma3  268.1 M params  Q4_K_M  ctx 32768  no chat template"
        );
        let mut unknown = info();
        unknown.architecture = None;
        unknown.context_length = None;
        unknown.vocab_size = None;
        unknown.has_chat_template = true;
        let text = info_text(&unknown);
        assert!(text.contains("architecture: unknown\n"), "{text}");
        assert!(text.contains("vocabulary: unknown\n"), "{text}");
        assert!(text.contains("chat template: present\n"), "{text}");
    }
}
