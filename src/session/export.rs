//! `aipc sessions export <id> --format md|json`: the Markdown transcript (the same renderer as
//! `aipc replay --batch`, with diffs), or one JSON document `{"meta": …, "events": […]}` with
//! every event as it is in the log (discarded work included; `session_resumed` events say which).

use super::markdown::{render_markdown, TranscriptOptions};
use super::recording::Recording;
use std::io::Write;

/// What `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Md,
    Json,
}

/// Write `recording` to `out` in `format`.
pub fn export(
    recording: &Recording,
    format: ExportFormat,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match format {
        ExportFormat::Md => {
            let options = TranscriptOptions {
                diff_lines: usize::MAX,
                ..TranscriptOptions::default()
            };
            out.write_all(render_markdown(recording, &options).as_bytes())
        }
        ExportFormat::Json => {
            out.write_all(b"{\"meta\":")?;
            serde_json::to_writer(&mut *out, &recording.meta()).map_err(std::io::Error::from)?;
            out.write_all(b",\"events\":[")?;
            for (i, env) in recording.events().iter().enumerate() {
                if i > 0 {
                    out.write_all(b",\n")?;
                }
                serde_json::to_writer(&mut *out, env).map_err(std::io::Error::from)?;
            }
            out.write_all(b"]}\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Event, EventEnvelope};

    #[test]
    fn json_holds_meta_and_every_event() {
        let events = (0..3)
            .map(|seq| EventEnvelope {
                seq,
                ts_ms: seq,
                event: Event::Resumed,
            })
            .collect();
        let recording = Recording::from_events(events, None);
        let mut out = Vec::new();
        export(&recording, ExportFormat::Json, &mut out).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert!(value["meta"].is_null());
        assert_eq!(value["events"].as_array().unwrap().len(), 3);
        assert_eq!(value["events"][2]["type"], "resumed");
    }
}
