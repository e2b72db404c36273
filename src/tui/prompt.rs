//! The small interactive widgets' state: a one-line text prompt (hints, reasons, edited
//! arguments, search, attempt counts, hand-back notes) and a filterable picker (checkpoints to
//! roll back to, what to open on takeover). Pure editing logic; drawing is in `views/overlay.rs`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::PathBuf;

/// What a text prompt is for (and what Enter does with the text).
#[derive(Debug, Clone, PartialEq)]
pub enum InputPurpose {
    Hint,
    RejectReason { call_id: String },
    EditArgs { call_id: String },
    RetryAttempts,
    Search,
    HandbackNote,
}

impl InputPurpose {
    pub fn title(&self) -> String {
        match self {
            InputPurpose::Hint => "Hint for the model's next turn".to_string(),
            InputPurpose::RejectReason { call_id } => format!("Reject {call_id}: why?"),
            InputPurpose::EditArgs { call_id } => format!("Arguments of {call_id} (JSON)"),
            InputPurpose::RetryAttempts => "Retry the stage with how many attempts?".to_string(),
            InputPurpose::Search => "Search the log".to_string(),
            InputPurpose::HandbackNote => "Hand back: a note for the model (optional)".to_string(),
        }
    }
}

/// What a key did to a prompt.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    Changed,
    Submit,
    Cancel,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    pub purpose: InputPurpose,
    pub text: String,
    /// Cursor position in characters.
    pub cursor: usize,
    pub error: Option<String>,
}

impl Input {
    pub fn new(purpose: InputPurpose, text: &str) -> Self {
        Input {
            purpose,
            text: text.to_string(),
            cursor: text.chars().count(),
            error: None,
        }
    }

    pub fn key(&mut self, key: &KeyEvent) -> Edit {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Enter => return Edit::Submit,
            KeyCode::Esc => return Edit::Cancel,
            KeyCode::Char('c') if ctrl => return Edit::Cancel,
            KeyCode::Char('u') if ctrl => {
                self.text.clear();
                self.cursor = 0;
            }
            KeyCode::Char('a') if ctrl => self.cursor = 0,
            KeyCode::Char('e') if ctrl => self.cursor = self.text.chars().count(),
            KeyCode::Char(c) if !ctrl => {
                let at = self.byte_at(self.cursor);
                self.text.insert(at, c);
                self.cursor += 1;
            }
            KeyCode::Backspace if self.cursor > 0 => {
                let at = self.byte_at(self.cursor - 1);
                self.text.remove(at);
                self.cursor -= 1;
            }
            KeyCode::Delete if self.cursor < self.text.chars().count() => {
                let at = self.byte_at(self.cursor);
                self.text.remove(at);
            }
            KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right => self.cursor = (self.cursor + 1).min(self.text.chars().count()),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = self.text.chars().count(),
            _ => {}
        }
        self.error = None;
        Edit::Changed
    }

    fn byte_at(&self, chars: usize) -> usize {
        self.text
            .char_indices()
            .nth(chars)
            .map(|(i, _)| i)
            .unwrap_or(self.text.len())
    }
}

/// What a picker is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerPurpose {
    Rollback,
    Takeover,
}

impl PickerPurpose {
    pub fn title(self) -> &'static str {
        match self {
            PickerPurpose::Rollback => "Roll back to which checkpoint?",
            PickerPurpose::Takeover => "Take over: a shell, or a file to open in $EDITOR",
        }
    }
}

/// What choosing an item means.
#[derive(Debug, Clone, PartialEq)]
pub enum Pick {
    Tag(String),
    Shell,
    File(PathBuf),
}

#[derive(Debug, Clone, PartialEq)]
pub struct PickItem {
    pub label: String,
    pub value: Pick,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Picker {
    pub purpose: PickerPurpose,
    pub items: Vec<PickItem>,
    pub filter: String,
    /// Index into [`Picker::visible`].
    pub selected: usize,
}

impl Picker {
    pub fn new(purpose: PickerPurpose, items: Vec<PickItem>) -> Self {
        Picker {
            purpose,
            items,
            filter: String::new(),
            selected: 0,
        }
    }

    /// The items whose label contains the filter (any case); the first item of a takeover
    /// picker (the shell) always stays.
    pub fn visible(&self) -> Vec<&PickItem> {
        let filter = self.filter.to_lowercase();
        self.items
            .iter()
            .filter(|item| {
                filter.is_empty()
                    || item.value == Pick::Shell
                    || item.label.to_lowercase().contains(&filter)
            })
            .collect()
    }

    /// The item Enter would choose: with a filter, the first match that is not the shell.
    pub fn chosen(&self) -> Option<&PickItem> {
        self.visible().get(self.selected).copied()
    }

    pub fn key(&mut self, key: &KeyEvent) -> Edit {
        let count = self.visible().len();
        match key.code {
            KeyCode::Enter => return Edit::Submit,
            KeyCode::Esc => return Edit::Cancel,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return Edit::Cancel
            }
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(count.saturating_sub(1)),
            KeyCode::Backspace => {
                self.filter.pop();
                self.reselect();
            }
            KeyCode::Char(c) => {
                self.filter.push(c);
                self.reselect();
            }
            _ => {}
        }
        Edit::Changed
    }

    /// After the filter changed: select the first match that is not the shell.
    fn reselect(&mut self) {
        let visible = self.visible();
        self.selected = if self.filter.is_empty() {
            0
        } else {
            visible
                .iter()
                .position(|item| item.value != Pick::Shell)
                .unwrap_or(0)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn input_edits_at_the_cursor_with_multibyte_text() {
        let mut input = Input::new(InputPurpose::Hint, "héllo");
        input.key(&press(KeyCode::Left));
        input.key(&press(KeyCode::Backspace));
        input.key(&press(KeyCode::Char('L')));
        assert_eq!(input.text, "hélLo");
        input.key(&press(KeyCode::Home));
        input.key(&press(KeyCode::Delete));
        assert_eq!(input.text, "élLo");
        assert_eq!(input.key(&press(KeyCode::Enter)), Edit::Submit);
    }

    #[test]
    fn picker_filter_selects_the_first_file_match() {
        let mut picker = Picker::new(
            PickerPurpose::Takeover,
            vec![
                PickItem {
                    label: "shell".into(),
                    value: Pick::Shell,
                },
                PickItem {
                    label: "data.py".into(),
                    value: Pick::File("data.py".into()),
                },
                PickItem {
                    label: "export.py".into(),
                    value: Pick::File("export.py".into()),
                },
            ],
        );
        assert_eq!(picker.chosen().unwrap().value, Pick::Shell);
        for c in "expo".chars() {
            picker.key(&press(KeyCode::Char(c)));
        }
        assert_eq!(picker.visible().len(), 2);
        assert_eq!(
            picker.chosen().unwrap().value,
            Pick::File("export.py".into())
        );
        picker.key(&press(KeyCode::Up));
        assert_eq!(picker.chosen().unwrap().value, Pick::Shell);
    }
}
