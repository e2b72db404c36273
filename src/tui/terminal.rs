//! The terminal's lifecycle: raw mode, the alternate screen and mouse capture on entry; all
//! three undone on exit, on drop, on panic (a hook restores the terminal before the panic
//! message prints) and around a takeover, when the engineer's shell or editor gets the real
//! terminal and the screen is rebuilt afterwards.

use anyhow::Context as _;
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, execute};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

/// Whether the terminal is in the TUI's modes now (the panic hook restores only then).
static ACTIVE: AtomicBool = AtomicBool::new(false);

pub type Backend = CrosstermBackend<Stdout>;

/// The terminal while the TUI owns it.
pub struct Term {
    terminal: Terminal<Backend>,
    active: bool,
}

impl Term {
    /// Take over the terminal.
    pub fn enter() -> anyhow::Result<Term> {
        install_panic_hook();
        setup().context("cannot put the terminal into raw mode")?;
        let terminal = match Terminal::new(CrosstermBackend::new(io::stdout())) {
            Ok(terminal) => terminal,
            Err(e) => {
                let _ = restore();
                return Err(e).context("cannot draw on the terminal");
            }
        };
        Ok(Term {
            terminal,
            active: true,
        })
    }

    pub fn terminal(&mut self) -> &mut Terminal<Backend> {
        &mut self.terminal
    }

    /// Give the terminal back to the shell (for a takeover).
    pub fn suspend(&mut self) -> io::Result<()> {
        if self.active {
            self.active = false;
            restore()?;
        }
        Ok(())
    }

    /// Take it again and redraw everything on the next frame.
    pub fn resume(&mut self) -> io::Result<()> {
        if !self.active {
            setup()?;
            self.active = true;
            self.terminal.clear()?;
        }
        Ok(())
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        if self.active {
            let _ = restore();
        }
    }
}

fn setup() -> io::Result<()> {
    ACTIVE.store(true, Ordering::SeqCst);
    enable_raw_mode()?;
    execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        cursor::Hide
    )
}

/// Undo [`setup`]; safe to call when it was not done.
pub fn restore() -> io::Result<()> {
    ACTIVE.store(false, Ordering::SeqCst);
    let raw = disable_raw_mode();
    execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        cursor::Show
    )?;
    raw
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if ACTIVE.load(Ordering::SeqCst) {
                let _ = restore();
            }
            previous(info);
        }));
    });
}
