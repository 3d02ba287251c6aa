//! What the user sees on stderr while a command runs: progress from
//! `notifications/progress` (an indicatif bar on a terminal, plain lines
//! otherwise) and server log lines, which never tear the bar.

use std::future::Future;
use std::io::IsTerminal;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcp_client::{CancellationToken, Progress};

/// Shared stderr output.
#[derive(Debug)]
pub(crate) struct Ui {
    bar: Mutex<Option<ProgressBar>>,
    tty: bool,
    /// While a form is on the terminal: no bar, and lines wait in here.
    paused: Mutex<Option<Vec<String>>>,
    /// The command's cancellation (what Ctrl-C, SIGTERM and SIGHUP cancel).
    interrupt: CancellationToken,
}

/// How long servers may take to start before a spinner names them: 400 ms
/// (a quick start shows nothing; a cold `npx -y …` does not sit silent).
pub(crate) const START_SPINNER_DELAY: Duration = Duration::from_millis(400);

/// What the start spinner says: `starting a, b, c and 2 more`.
pub(crate) fn starting_text(names: &[String]) -> String {
    const SHOWN: usize = 3;
    let shown: Vec<String> = names
        .iter()
        .take(SHOWN)
        .map(|n| crate::output::visible(n).into_owned())
        .collect();
    let mut text = format!("starting {}", shown.join(", "));
    if names.len() > SHOWN {
        text.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    text.push('…');
    text
}

/// Clears the bar (or spinner) when dropped: a start cut short by Ctrl-C
/// leaves nothing on the terminal.
struct FinishOnDrop<'a>(&'a Ui);

impl Drop for FinishOnDrop<'_> {
    fn drop(&mut self) {
        self.0.finish();
    }
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

/// The bar's text after the percentage: the step's message, else the count
/// (`7/20`, or `7` without a total).
pub(crate) fn bar_text(p: &Progress) -> String {
    match (&p.message, p.total) {
        (Some(m), _) => crate::output::visible(m).into_owned(),
        (None, Some(total)) => format!("{}/{}", p.progress, total),
        (None, None) => format!("{}", p.progress),
    }
}

/// Clears the bar the moment the command is interrupted, not when it has
/// finished shutting down (a server that ignores the cancellation can take
/// seconds to be stopped).
pub(crate) fn clear_on_interrupt(ui: std::sync::Arc<Ui>) {
    tokio::spawn(async move {
        ui.interrupt.cancelled().await;
        ui.finish();
    });
}

impl Ui {
    /// Output to this process's stderr; a bar only when stderr is a terminal.
    /// `interrupt` is the command's cancellation: [`Ui::interrupt`] cancels it.
    pub(crate) fn new(interrupt: CancellationToken) -> Self {
        Ui {
            bar: Mutex::new(None),
            tty: std::io::stderr().is_terminal(),
            paused: Mutex::new(None),
            interrupt,
        }
    }

    /// The command's cancellation token (cancelled by a signal or by
    /// [`Ui::interrupt`]).
    pub(crate) fn interrupted(&self) -> &CancellationToken {
        &self.interrupt
    }

    /// Ctrl-C read as a key (a prompt in raw mode gets no SIGINT): the command
    /// stops as it would on the signal, and exits 130.
    pub(crate) fn interrupt(&self) {
        crate::exit::record_signal(crate::exit::SIGINT);
        self.interrupt.cancel();
    }

    /// Hands the terminal to a form: the bar is cleared and not drawn, lines are
    /// held back until [`Ui::resume`]. Nothing is locked meanwhile, so the rest
    /// of the command (and its interruption) never waits for the form.
    pub(crate) fn pause(&self) {
        // Under the bar's lock, as `progress` checks it: no update draws
        // a bar once this returns.
        let mut bar = lock(&self.bar);
        *lock(&self.paused) = Some(Vec::new());
        if let Some(bar) = bar.take() {
            bar.finish_and_clear();
        }
    }

    /// Ends [`Ui::pause`]: prints the lines held back. The bar comes back with
    /// the next progress update.
    pub(crate) fn resume(&self) {
        let held = lock(&self.paused).take().unwrap_or_default();
        for line in held {
            self.line(&line);
        }
    }

    /// Shows one progress update.
    pub(crate) fn progress(&self, p: &Progress) {
        // After Ctrl-C the bar is gone for good (see `clear_on_interrupt`); a
        // late notification must not draw it again.
        if self.interrupt.is_cancelled() {
            return;
        }
        if !self.tty {
            crate::output::err_line(&progress_line(p));
            return;
        }
        let mut slot = lock(&self.bar);
        if lock(&self.paused).is_some() {
            return;
        }
        let bar = slot.get_or_insert_with(|| {
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
        });
        let text = bar_text(p);
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

    /// Runs `start` (the servers starting); on a terminal, once it has taken
    /// [`START_SPINNER_DELAY`], a spinner naming `names` turns until it ends.
    /// Server log lines print above it, as above a progress bar.
    pub(crate) async fn while_starting<T>(
        &self,
        names: &[String],
        start: impl Future<Output = T>,
    ) -> T {
        if !self.tty {
            return start.await;
        }
        tokio::pin!(start);
        tokio::select! {
            value = &mut start => return value,
            () = tokio::time::sleep(START_SPINNER_DELAY) => {}
        }
        let _clear = FinishOnDrop(self);
        {
            let mut slot = lock(&self.bar);
            if slot.is_none() && lock(&self.paused).is_none() && !self.interrupt.is_cancelled() {
                let spinner = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                spinner.set_style(
                    ProgressStyle::with_template("{spinner} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                spinner.set_message(starting_text(names));
                spinner.enable_steady_tick(Duration::from_millis(120));
                *slot = Some(spinner);
            }
        }
        start.await
    }

    /// Removes the bar, if any.
    pub(crate) fn finish(&self) {
        if let Some(bar) = lock(&self.bar).take() {
            bar.finish_and_clear();
        }
    }

    /// Prints a line on stderr (above the bar, when one is shown; after the
    /// form, when one is on the terminal).
    pub(crate) fn line(&self, text: &str) {
        if let Some(held) = lock(&self.paused).as_mut() {
            held.push(text.to_owned());
            return;
        }
        let slot = lock(&self.bar);
        match slot.as_ref() {
            Some(bar) => bar.suspend(|| crate::output::err_line(text)),
            None => crate::output::err_line(text),
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

    #[test]
    fn bar_text_shows_the_count_without_a_message() {
        let p = |progress, total, message: Option<&str>| Progress {
            progress,
            total,
            message: message.map(Into::into),
        };
        assert_eq!(bar_text(&p(7.0, Some(20.0), None)), "7/20");
        assert_eq!(bar_text(&p(7.0, None, None)), "7");
        assert_eq!(bar_text(&p(2.5, Some(5.0), None)), "2.5/5");
        assert_eq!(
            bar_text(&p(7.0, Some(20.0), Some("step \u{1b}[2J"))),
            "step \\u{1b}[2J"
        );
    }

    #[test]
    fn the_start_spinner_names_the_servers() {
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            starting_text(&names(&["server-everything"])),
            "starting server-everything…"
        );
        assert_eq!(starting_text(&names(&["a", "b"])), "starting a, b…");
        assert_eq!(
            starting_text(&names(&["a", "b", "c", "d", "e"])),
            "starting a, b, c and 2 more…"
        );
        assert_eq!(
            starting_text(&names(&["x\u{1b}[2J"])),
            "starting x\\u{1b}[2J…"
        );
    }

    #[tokio::test]
    async fn the_bar_goes_at_ctrl_c_and_stays_gone() {
        let token = CancellationToken::new();
        let ui = std::sync::Arc::new(Ui::new(token.clone()));
        let step = Progress {
            progress: 1.0,
            total: Some(2.0),
            message: None,
        };
        // A terminal is not needed to hold a bar: force one.
        *lock(&ui.bar) = Some(ProgressBar::hidden());
        clear_on_interrupt(std::sync::Arc::clone(&ui));
        token.cancel();
        for _ in 0..100 {
            if lock(&ui.bar).is_none() {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert!(lock(&ui.bar).is_none(), "the bar outlived Ctrl-C");
        ui.progress(&step);
        assert!(lock(&ui.bar).is_none(), "a late update drew the bar again");
    }
}
