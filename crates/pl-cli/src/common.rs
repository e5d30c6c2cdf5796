//! What every tool shares: common flags, logging to stderr, exit codes.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

/// Flags every tool has.
#[derive(Debug, Clone, Args)]
pub struct Common {
    /// Input file (default: stdin; `-` is stdin too).
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,
    /// Write records to this file instead of stdout; it is replaced atomically on success.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print nothing on stderr but errors.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print counts and timings on stderr.
    #[arg(short, long, conflicts_with = "quiet")]
    pub verbose: bool,
    /// Worker threads (default: all cores, or RAYON_NUM_THREADS).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Skip records that are not valid (counted on stderr) instead of stopping at the first.
    #[arg(long)]
    pub skip_invalid: bool,
}

/// Messages on stderr, prefixed with the tool name.
#[derive(Debug, Clone)]
pub struct Log {
    tool: &'static str,
    quiet: bool,
    verbose: bool,
    start: Instant,
}

impl Log {
    /// A logger for `tool` obeying `-q`/`-v`; also sizes the thread pool.
    pub fn new(tool: &'static str, c: &Common) -> Log {
        if let Some(n) = c.threads {
            // Fails only if a pool exists already, which is then used as it is.
            let _ = rayon::ThreadPoolBuilder::new()
                .num_threads(n.max(1))
                .build_global();
        }
        Log {
            tool,
            quiet: c.quiet,
            verbose: c.verbose,
            start: Instant::now(),
        }
    }

    /// A note printed unless `-q` (skips, counts that matter).
    pub fn note(&self, msg: impl std::fmt::Display) {
        if !self.quiet {
            eprintln!("{}: {msg}", self.tool);
        }
    }

    /// Detail printed only with `-v`, with the elapsed time.
    pub fn info(&self, msg: impl std::fmt::Display) {
        if self.verbose {
            eprintln!("{}: {msg} ({:.2?})", self.tool, self.start.elapsed());
        }
    }

    /// A progress bar when stderr is a terminal and not `-q`; hidden otherwise.
    pub fn progress(&self, what: &'static str) -> indicatif::ProgressBar {
        if self.quiet || !std::io::stderr().is_terminal() {
            return indicatif::ProgressBar::hidden();
        }
        let pb = indicatif::ProgressBar::new_spinner();
        pb.set_style(
            indicatif::ProgressStyle::with_template(&format!(
                "{}: {{spinner}} {{pos}} {what} ({{per_sec}})",
                self.tool
            ))
            .expect("valid template"),
        );
        pb
    }
}

/// A usage error (bad combination of flags): exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// The job ran, but some of it was refused on purpose (pl-apply: documents it would not
/// touch): exit 3, so that a script notices.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// Runs a tool: a closed pipe downstream ends quietly with 0, a usage error exits 2, work
/// partly refused ([`Refused`]) 3, any other error is printed once as `tool: context: cause`
/// and exits 1.
pub fn main_with(tool: &str, run: impl FnOnce() -> anyhow::Result<()>) -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let broken_pipe = err.chain().any(|e| {
                e.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
                    || e.downcast_ref::<pl_core::Error>()
                        .is_some_and(pl_core::Error::is_broken_pipe)
                    || e.downcast_ref::<serde_json::Error>()
                        .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            eprintln!("{tool}: {err:#}");
            if err.chain().any(|e| e.is::<UsageError>()) {
                ExitCode::from(2)
            } else if err.chain().any(|e| e.is::<Refused>()) {
                ExitCode::from(3)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// Value parsers for numeric flags: a value that is not a finite number in range is a usage
/// error at parsing, never a silent empty or wrong result.
pub mod numbers {
    fn finite(s: &str) -> Result<f64, String> {
        match s.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(format!("{s:?} is not a finite number")),
        }
    }

    /// A share or similarity: from 0 to 1.
    pub fn unit(s: &str) -> Result<f64, String> {
        let v = finite(s)?;
        if (0.0..=1.0).contains(&v) {
            Ok(v)
        } else {
            Err(format!("{s} is not from 0 to 1"))
        }
    }

    /// A weight or allowance: 0 or more.
    pub fn non_negative(s: &str) -> Result<f64, String> {
        let v = finite(s)?;
        if v >= 0.0 {
            Ok(v)
        } else {
            Err(format!("{s} is negative"))
        }
    }

    /// Longest timeout a flag takes: one day.
    pub const MAX_SECONDS: f64 = 86_400.0;

    /// A timeout: more than 0 and at most a day.
    pub fn seconds(s: &str) -> Result<f64, String> {
        let v = finite(s)?;
        if v > 0.0 && v <= MAX_SECONDS {
            Ok(v)
        } else {
            Err(format!(
                "{s} is not a number of seconds over 0 and at most {MAX_SECONDS}"
            ))
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn non_numbers_and_out_of_range_values_are_refused() {
            for bad in ["NaN", "nan", "inf", "-inf", "", "x", "1e400"] {
                assert!(unit(bad).is_err(), "{bad}");
                assert!(non_negative(bad).is_err(), "{bad}");
                assert!(seconds(bad).is_err(), "{bad}");
            }
            assert!(unit("1.0001").is_err() && unit("-0.1").is_err());
            assert_eq!((unit("0").unwrap(), unit("1").unwrap()), (0.0, 1.0));
            assert!(non_negative("-1").is_err());
            assert_eq!(non_negative("12.5").unwrap(), 12.5);
            assert!(seconds("0").is_err() && seconds("86401").is_err());
            assert_eq!(seconds("0.5").unwrap(), 0.5);
        }
    }
}
