//! A line console for interactive runs until the TUI lands: each line typed on stdin becomes a
//! [`Command`]. It is only a producer of commands; it knows nothing of the engine.
//!
//! ```text
//! pause | resume | step on | step off | approve <call> | reject <call> <reason>
//! edit <call> <json args> | hint <text> | takeover | handback [note] | retry [n] | skip
//! rollback <tag> | abort
//! ```

use crate::protocol::Command;

/// Parse one console line. `Ok(None)` for a blank line.
pub fn parse_line(line: &str) -> Result<Option<Command>, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(None);
    }
    let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
    let rest = rest.trim();
    let need = |what: &str| -> Result<String, String> {
        if rest.is_empty() {
            Err(format!("`{word}` needs {what}"))
        } else {
            Ok(rest.to_string())
        }
    };
    let command = match word {
        "pause" | "p" => Command::Pause,
        "resume" | "c" => Command::Resume,
        "step" => match rest {
            "on" => Command::StepMode { on: true },
            "off" => Command::StepMode { on: false },
            _ => return Err("`step` takes on or off".to_string()),
        },
        "approve" | "y" => Command::Approve {
            call_id: need("a call id")?,
        },
        "reject" | "n" => {
            let text = need("a call id and a reason")?;
            let (call_id, reason) = text.split_once(' ').unwrap_or((&text, "rejected"));
            Command::Reject {
                call_id: call_id.to_string(),
                reason: reason.trim().to_string(),
            }
        }
        "edit" => {
            let text = need("a call id and the new JSON arguments")?;
            let (call_id, json) = text
                .split_once(' ')
                .ok_or("`edit` needs a call id and the new JSON arguments")?;
            let args: serde_json::Value =
                serde_json::from_str(json).map_err(|e| format!("arguments are not JSON: {e}"))?;
            Command::EditCall {
                call_id: call_id.to_string(),
                args,
            }
        }
        "hint" | "h" => Command::Hint {
            text: need("the hint text")?,
        },
        "takeover" | "t" => Command::TakeoverBegin,
        "handback" => Command::TakeoverEnd {
            note: (!rest.is_empty()).then(|| rest.to_string()),
        },
        "retry" | "r" => Command::RetryStage {
            extra_attempts: if rest.is_empty() {
                None
            } else {
                Some(
                    rest.parse()
                        .map_err(|_| format!("`retry` takes a number of attempts, not `{rest}`"))?,
                )
            },
        },
        "skip" => Command::SkipStage,
        "rollback" | "b" => Command::RollbackTo {
            tag: need("a checkpoint tag or stage name")?,
        },
        "abort" | "q" => Command::Abort,
        other => return Err(format!("unknown command `{other}`; try: pause, resume, step on|off, approve <call>, reject <call> <reason>, edit <call> <json>, hint <text>, takeover, handback [note], retry [n], skip, rollback <tag>, abort")),
    };
    Ok(Some(command))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_command_form() {
        assert_eq!(parse_line("  ").unwrap(), None);
        assert_eq!(parse_line("pause").unwrap(), Some(Command::Pause));
        assert_eq!(
            parse_line("reject export.a1.t2 do not delete that").unwrap(),
            Some(Command::Reject {
                call_id: "export.a1.t2".into(),
                reason: "do not delete that".into()
            })
        );
        assert_eq!(
            parse_line("edit c1 {\"command\":\"ls\"}").unwrap(),
            Some(Command::EditCall {
                call_id: "c1".into(),
                args: serde_json::json!({"command":"ls"})
            })
        );
        assert_eq!(
            parse_line("retry 3").unwrap(),
            Some(Command::RetryStage {
                extra_attempts: Some(3)
            })
        );
        assert!(parse_line("retry lots").is_err());
        assert!(parse_line("hint")
            .unwrap_err()
            .contains("needs the hint text"));
        assert!(parse_line("dance").unwrap_err().contains("unknown command"));
    }
}
