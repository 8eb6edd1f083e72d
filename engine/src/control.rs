//! What every long run shares, at the bottom of the engine: cancellation (Ctrl-C) and a
//! progress bar. The devices, the ledger of chunks and the search engine all use it; it uses
//! nothing of the crate but its errors.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Installs a handler for Ctrl-C, SIGTERM and SIGHUP (once per process) that sets `flag`, for
/// a [`RunControl::with_cancel`]: the search then stops taking work, saves its checkpoint if it
/// has one, and returns [`crate::error::Error::Interrupted`]. A second signal ends the process at once
/// (exit status 130).
pub fn on_interrupt(flag: Arc<AtomicBool>) -> Result<(), crate::error::Error> {
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        // Not eprintln!: a closed stderr must not panic in a signal handler's thread.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "\nstopping (Ctrl-C again to quit at once)…"
        );
    })
    .map_err(|e| crate::error::Error::InvalidArgument(format!("cannot handle Ctrl-C: {e}")))
}

/// How a running search learns it should stop, and whether it may draw progress.
#[derive(Clone, Debug, Default)]
pub struct RunControl {
    /// The run stops when any of these becomes true (Ctrl-C's, and a failed part's).
    cancel: Vec<Arc<AtomicBool>>,
    /// Draw a progress bar on stderr for runs longer than about a second (only on a terminal).
    pub progress: bool,
}

impl RunControl {
    /// No cancellation, no progress bar: for library callers and tests.
    pub fn quiet() -> RunControl {
        RunControl::default()
    }

    /// Stops the search when `flag` becomes true (the CLI sets it from Ctrl-C).
    pub fn with_cancel(mut self, flag: Arc<AtomicBool>) -> RunControl {
        self.cancel.push(flag);
        self
    }

    /// A control that also stops when the returned flag is set: for stopping the other parts
    /// of a run (the other GPUs) when one part fails.
    pub fn child(&self) -> (RunControl, Arc<AtomicBool>) {
        let flag = Arc::new(AtomicBool::new(false));
        (self.clone().with_cancel(flag.clone()), flag)
    }

    /// Enables or disables the progress bar.
    pub fn with_progress(mut self, progress: bool) -> RunControl {
        self.progress = progress;
        self
    }

    /// True once the run has been asked to stop.
    pub fn cancelled(&self) -> bool {
        self.cancel.iter().any(|flag| flag.load(Ordering::Relaxed))
    }

    /// A progress counter for `total` units of work, labelled `what`.
    pub fn progress_bar(&self, total: u64, what: &str) -> Progress {
        let enabled = self.progress && std::io::stderr().is_terminal();
        let bar = enabled.then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
            let style = ProgressStyle::with_template(
                "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} {msg} ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_prefix(what.to_string());
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            shown: AtomicBool::new(false),
        }
    }
}

/// A progress bar that appears only once a run has lasted a second.
pub struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    shown: AtomicBool,
}

impl Progress {
    /// Records `done` more units of work.
    pub fn advance(&self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(done);
            if !self.shown.load(Ordering::Relaxed)
                && self.started.elapsed() > Duration::from_secs(1)
            {
                self.shown.store(true, Ordering::Relaxed);
                bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
            }
        }
    }

    /// Records that `done` units of work are finished in all (for counters read from a GPU).
    pub fn set(&self, done: u64) {
        if let Some(bar) = &self.bar {
            let already = bar.position();
            if done > already {
                self.advance(done - already);
            }
        }
    }

    /// Prints a line on stderr, above the bar when it is drawn.
    pub fn note(&self, text: &str) {
        use std::io::Write;
        // A closed stderr must not stop the run.
        let print = || {
            let _ = writeln!(std::io::stderr(), "{text}");
        };
        match &self.bar {
            Some(bar) if self.shown.load(Ordering::Relaxed) => bar.suspend(print),
            _ => print(),
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
