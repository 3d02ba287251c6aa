//! What the user sees on stderr while a command runs: progress from
//! `notifications/progress` (an indicatif bar on a terminal, plain lines
//! otherwise) and server log lines, which never tear the bar.

use std::io::IsTerminal;
use std::sync::{Mutex, MutexGuard};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcp_client::Progress;

/// Shared stderr output.
#[derive(Debug)]
pub(crate) struct Ui {
    bar: Mutex<Option<ProgressBar>>,
    tty: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A plain progress line: `progress: 2/5 (40%) step 2 of 5`.
pub(crate) fn progress_line(p: &Progress) -> String {
    let mut line = match p.total {
        Some(total) if total > 0.0 => format!(
            "progress: {}/{} ({:.0}%)",
            p.progress,
            total,
            (p.progress / total * 100.0).clamp(0.0, 100.0)
        ),
        Some(total) => format!("progress: {}/{}", p.progress, total),
        None => format!("progress: {}", p.progress),
    };
    if let Some(message) = &p.message {
        line.push(' ');
        line.push_str(message);
    }
    line
}

impl Ui {
    /// Output to this process's stderr; a bar only when stderr is a terminal.
    pub(crate) fn new() -> Self {
        Ui {
            bar: Mutex::new(None),
            tty: std::io::stderr().is_terminal(),
        }
    }

    /// Shows one progress update.
    pub(crate) fn progress(&self, p: &Progress) {
        if !self.tty {
            crate::output::err_line(&progress_line(p));
            return;
        }
        let mut slot = lock(&self.bar);
        let bar = slot.get_or_insert_with(|| {
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
        });
        let text = p.message.as_deref().map_or_else(
            || format!("{}", p.progress),
            |m| crate::output::visible(m).into_owned(),
        );
        match p.total {
            Some(total) if total > 0.0 => {
                // The percentage is part of the message, so that it and the
                // step's text change in one update (each setter may draw:
                // with `{percent}` in the template a frame could show the new
                // percentage next to the previous step's text).
                let percent = (p.progress / total * 100.0).clamp(0.0, 100.0);
                bar.set_style(
                    ProgressStyle::with_template("{spinner} [{bar:30}] {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                bar.set_message(format!("{percent:>3.0}% {text}"));
                // Scale to 1/1000 units so fractional progress still moves the bar.
                bar.set_length((total * 1000.0) as u64);
                bar.set_position((p.progress.min(total) * 1000.0) as u64);
            }
            _ => {
                bar.set_style(
                    ProgressStyle::with_template("{spinner} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.set_message(text);
                bar.tick();
            }
        }
    }

    /// Removes the bar, if any.
    pub(crate) fn finish(&self) {
        if let Some(bar) = lock(&self.bar).take() {
            bar.finish_and_clear();
        }
    }

    /// Prints a line on stderr (above the bar, when one is shown).
    pub(crate) fn line(&self, text: &str) {
        let slot = lock(&self.bar);
        match slot.as_ref() {
            Some(bar) => bar.suspend(|| crate::output::err_line(text)),
            None => crate::output::err_line(text),
        }
    }

    /// Runs `f` with the bar hidden (for an interactive prompt).
    pub(crate) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        let slot = lock(&self.bar);
        match slot.as_ref() {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_progress_lines() {
        let p = Progress {
            progress: 2.0,
            total: Some(5.0),
            message: Some("step 2 of 5".into()),
        };
        assert_eq!(progress_line(&p), "progress: 2/5 (40%) step 2 of 5");
        let p = Progress {
            progress: 3.0,
            total: None,
            message: None,
        };
        assert_eq!(progress_line(&p), "progress: 3");
    }
}
