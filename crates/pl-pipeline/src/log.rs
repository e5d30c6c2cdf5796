//! Messages on stderr, prefixed with the tool name, and the words they use for counts.

use std::io::IsTerminal;
use std::time::Instant;

/// Messages on stderr, prefixed with the tool name.
#[derive(Debug, Clone)]
pub struct Log {
    tool: &'static str,
    quiet: bool,
    verbose: bool,
    start: Instant,
}

impl Log {
    /// A logger for `tool`: notes unless `quiet`, details only when `verbose`.
    pub fn new(tool: &'static str, quiet: bool, verbose: bool) -> Log {
        Log {
            tool,
            quiet,
            verbose,
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
        let noun = what.strip_suffix('s').unwrap_or(what);
        pb.set_style(
            indicatif::ProgressStyle::with_template(&format!(
                "{}: {{spinner}} {{count}} ({{rate}})",
                self.tool
            ))
            .expect("valid template")
            .with_key(
                "count",
                move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&count(s.pos(), noun));
                },
            )
            .with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&rate(s.per_sec()));
                },
            ),
        );
        pb
    }
}

impl Log {
    /// A bar over a known total (`what` done of `total`, rate and time left) when stderr is a
    /// terminal and not `-q`; hidden otherwise.
    pub fn bar(&self, what: &'static str, total: u64) -> indicatif::ProgressBar {
        if self.quiet || !std::io::stderr().is_terminal() {
            return indicatif::ProgressBar::hidden();
        }
        let pb = indicatif::ProgressBar::new(total);
        pb.set_style(
            indicatif::ProgressStyle::with_template(&format!(
                "{}: {{bar:30}} {{pos}}/{{len}} {what} ({{rate}}, {{eta}} left)",
                self.tool
            ))
            .expect("valid template")
            .with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&rate(s.per_sec()));
                },
            ),
        );
        pb
    }

    /// The one line a stage ends with unless `-q`, whether or not stderr is a terminal: what
    /// it did, and in how long.
    pub fn summary(&self, msg: impl std::fmt::Display) {
        self.note(format_args!(
            "{msg} ({:.1} s)",
            self.start.elapsed().as_secs_f64()
        ));
    }
}

/// `n` and a noun, plural unless `n` is one: "1 document", "2 documents".
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A rate for people: whole units a second, one decimal under ten ("55/s", "2.5/s").
pub fn rate(per_sec: f64) -> String {
    if per_sec < 10.0 {
        format!("{per_sec:.1}/s")
    } else {
        format!("{per_sec:.0}/s")
    }
}

#[cfg(test)]
mod tests {
    use super::{count, rate};

    #[test]
    fn counts_and_rates_read_as_people_write_them() {
        assert_eq!(count(1, "document"), "1 document");
        assert_eq!(count(0, "document"), "0 documents");
        assert_eq!(count(55, "pair"), "55 pairs");
        assert_eq!(rate(55.1447), "55/s");
        assert_eq!(rate(2.54), "2.5/s");
        assert_eq!(rate(0.0), "0.0/s");
    }
}
