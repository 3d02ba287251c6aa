//! `mcp`: the command line of the MCP client stack. See `mcp --help`.
//!
//! Exit codes: 0 success, 1 the tool reported an error (`isError`), 2
//! failure (usage, configuration, connection, protocol), 3 a remote server
//! needs a login (`mcp login …`), 130 / 143 / 129 interrupted by SIGINT /
//! SIGTERM / SIGHUP, 141 stdout closed by the reader.

mod arguments;
mod auth;
mod cli;
mod commands;
mod demo;
mod doctor;
mod exit;
mod explorer;
mod follow;
mod form;
mod handler;
mod output;
mod render;
mod servers;
mod stderr_tail;
mod targets;
mod ui;
mod wiretap;

use std::fmt;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use mcp_client::CancellationToken;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::field::MakeExt;

use crate::cli::{Cli, Command};

/// How long the runtime waits for blocking tasks (a pending terminal read)
/// at exit: 500 ms.
const SHUTDOWN_WAIT: Duration = Duration::from_millis(500);

/// Where the byte-order-mark warning comes from (`mcp_transport::bom`).
const BOM_TARGET: &str = "mcp_transport::bom";

/// Logging: `MCP_LOG` (an `EnvFilter`), else `default`. The one warning
/// about a forgiven byte order mark ([`BOM_TARGET`]) is not a log line but
/// something the user should fix, like a config warning: it is always
/// printed, as `mcp: warning: …` ([`WarningLine`]), and left out of the log
/// so it shows once.
fn init_tracing(default: &str) {
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;

    let mut filter = EnvFilter::try_from_env("MCP_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    if let Ok(off) = format!("{BOM_TARGET}=off").parse() {
        filter = filter.add_directive(off);
    }
    // Field values carry server text (a server's name, its stderr tail, a
    // skipped stdout line): each goes through `visible`, like everything
    // else a server wrote that reaches the terminal.
    let fields = tracing_subscriber::fmt::format::debug_fn(|w, field, value| {
        let text = format!("{value:?}");
        if field.name() == "message" {
            write!(w, "{}", output::visible(&text))
        } else {
            write!(w, "{}={}", field.name(), output::visible(&text))
        }
    })
    .delimited(" ");
    let log = tracing_subscriber::fmt::layer()
        .fmt_fields(fields)
        // `mcp ui` shows its log lines in its log pane while it owns the terminal.
        .with_writer(explorer::LogWriter)
        .with_target(true)
        .with_ansi(std::io::stderr().is_terminal() && !explorer::log_captured())
        .with_filter(filter);
    let warnings = WarningLine.with_filter(
        tracing_subscriber::filter::Targets::new().with_target(BOM_TARGET, tracing::Level::WARN),
    );
    tracing_subscriber::registry()
        .with(log)
        .with(warnings)
        .init();
}

/// Prints a warning event as `mcp: warning: <source>: <message>` on
/// stderr, the way the CLI prints its own warnings.
struct WarningLine;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for WarningLine {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        /// The event's `message` and `source` fields, as text.
        #[derive(Default)]
        struct Fields {
            message: String,
            source: String,
        }
        impl tracing::field::Visit for Fields {
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                match field.name() {
                    "message" => self.message = value.to_owned(),
                    "source" => self.source = value.to_owned(),
                    _ => {}
                }
            }
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn fmt::Debug) {
                match field.name() {
                    "message" => self.message = format!("{value:?}"),
                    "source" => self.source = format!("{value:?}"),
                    _ => {}
                }
            }
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        let line = if fields.source.is_empty() {
            format!("mcp: warning: {}", fields.message)
        } else {
            format!("mcp: warning: {}: {}", fields.source, fields.message)
        };
        output::err_line(&line);
    }
}

/// SIGINT (Ctrl-C), SIGTERM and SIGHUP (terminal closed) all cancel the
/// command: in-flight requests are cancelled (`notifications/cancelled`),
/// the manager shuts every server down (a stdio server runs in its own
/// process group, so the signal never reaches it), and `mcp` exits with
/// 128 + the signal (130, 143, 129). A second signal ([`exit::insist`])
/// ends the servers still stopping at once (SIGKILL) instead of waiting
/// out their grace.
///
/// Errors: a handler cannot be installed.
fn watch_signals(cancel: CancellationToken) -> std::io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    let mut hup = signal(SignalKind::hangup())?;
    tokio::spawn(async move {
        let mut first = true;
        loop {
            let which = tokio::select! {
                Some(()) = int.recv() => exit::SIGINT,
                Some(()) = term.recv() => exit::SIGTERM,
                Some(()) = hup.recv() => exit::SIGHUP,
                else => return,
            };
            if first {
                first = false;
                exit::record_signal(which);
                cancel.cancel();
            } else {
                exit::insist();
            }
        }
    });
    Ok(())
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::FAILURE
            } else {
                exit::SUCCESS
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            output::err_line(&format!("mcp: cannot start the async runtime: {e}"));
            return ExitCode::from(exit::FAILURE);
        }
    };
    let code = if matches!(cli.command, Command::ServeDemo) {
        init_tracing("info");
        match runtime.block_on(demo::serve(cli.listen.as_deref())) {
            Ok(()) => exit::SUCCESS,
            Err(e) => {
                tracing::error!(error = %e, "demo server stopped");
                exit::FAILURE
            }
        }
    } else {
        if matches!(cli.command, Command::Ui) {
            explorer::capture_log();
        }
        init_tracing(if cli.verbose {
            "warn,mcp::wire=debug,mcp_client=debug,mcp_transport=debug,mcp_transport_stdio=debug,mcp_transport_http=debug,mcp_stdio::stderr=info"
        } else {
            "error"
        });
        runtime.block_on(async {
            let cancel = CancellationToken::new();
            let ui = Arc::new(ui::Ui::new(cancel.clone()));
            ui::clear_on_interrupt(Arc::clone(&ui));
            if let Err(e) = watch_signals(cancel.clone()) {
                output::err_line(&format!("mcp: cannot install signal handlers: {e}"));
                return exit::FAILURE;
            }
            match auth::run_offering_login(cli, Arc::clone(&ui), cancel).await {
                Ok(code) => {
                    let last = exit::final_code(code);
                    if last != code {
                        ui.finish();
                        output::err_line(if last == exit::INTERRUPTED {
                            "mcp: interrupted"
                        } else {
                            "mcp: stopped by a signal"
                        });
                    }
                    last
                }
                Err(failure) => {
                    ui.finish();
                    if !failure.message.is_empty() {
                        output::err_line(&format!("mcp: {}", exit::tidy(&failure.message)));
                    }
                    failure.code
                }
            }
        })
    };
    runtime.shutdown_timeout(SHUTDOWN_WAIT);
    ExitCode::from(code)
}
