//! What every tool shares: common flags, logging to stderr, exit codes.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use pl_paperless::{Client, Options, Retry, Token};
pub use pl_pipeline::error::{Refused, UsageError};
pub use pl_pipeline::log::{count, rate, Log};

/// The heading of the flags most tools share, listed after a tool's own options.
pub const COMMON_HEADING: &str = "Common options";

/// `-o`, `-q` and `-v`, which every tool has: [`Common`] flattens them, and so do pl-fetch and
/// pl-apply, which read no record stream and word `-o` and `-v` for themselves
/// ([`OutputFlags::reword`]).
#[derive(Debug, Clone, Args)]
pub struct OutputFlags {
    /// Write records to this file instead of stdout; it is replaced atomically on success.
    #[arg(short, long, value_name = "FILE", help_heading = COMMON_HEADING)]
    pub output: Option<PathBuf>,
    /// Print nothing on stderr but errors.
    #[arg(short, long, help_heading = COMMON_HEADING)]
    pub quiet: bool,
    /// Print counts and timings on stderr.
    #[arg(short, long, conflicts_with = "quiet", help_heading = COMMON_HEADING)]
    pub verbose: bool,
}

impl OutputFlags {
    /// `arg` with a tool's own help for `-o` or `-v` (for `#[command(mut_args(..))]`, which
    /// keeps the flags in their place); any other flag as it is.
    pub fn reword(arg: clap::Arg, output: &'static str, verbose: &'static str) -> clap::Arg {
        match arg.get_id().as_str() {
            "output" => arg.help(output),
            "verbose" => arg.help(verbose),
            _ => arg,
        }
    }
}

/// Flags every tool that reads records has (help lists them under [`COMMON_HEADING`]); its
/// [`OutputFlags`] read through it (`common.output`).
#[derive(Debug, Clone, Args)]
pub struct Common {
    /// Input file (default: stdin; `-` is stdin too).
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputFlags,
    /// Skip records that are not valid (counted on stderr) instead of stopping at the first.
    #[arg(long, help_heading = COMMON_HEADING)]
    pub skip_invalid: bool,
    /// Largest record read, in MiB: a longer line (one huge document) is refused with its
    /// line and id, so that one document's memory is bounded. A norm record holds the text
    /// twice (content and norm): documents of up to half of it pass every stage.
    #[arg(long, value_name = "MB", default_value_t = pl_pipeline::ndjson::DEFAULT_MAX_DOC_MB,
          value_parser = clap::value_parser!(u64).range(1..=4096), help_heading = COMMON_HEADING)]
    pub max_doc_mb: u64,
}

impl std::ops::Deref for Common {
    type Target = OutputFlags;
    fn deref(&self) -> &OutputFlags {
        &self.out
    }
}

/// The common flags of a tool that works on several threads: [`Common`] and `--threads`
/// (read through it like a [`Common`]).
#[derive(Debug, Clone, Args)]
pub struct Threaded {
    #[command(flatten)]
    pub common: Common,
    /// Worker threads (default: all cores, or RAYON_NUM_THREADS).
    #[arg(long, value_name = "N", help_heading = COMMON_HEADING)]
    pub threads: Option<usize>,
}

impl std::ops::Deref for Threaded {
    type Target = Common;
    fn deref(&self) -> &Common {
        &self.common
    }
}

/// What [`log`] reads: the common flags, and the thread count where a tool has one.
pub trait Flags {
    /// -q, -v and the rest.
    fn common(&self) -> &Common;
    /// `--threads`, for the tools that have it.
    fn threads(&self) -> Option<usize> {
        None
    }
}

impl Flags for Common {
    fn common(&self) -> &Common {
        self
    }
}

impl Flags for Threaded {
    fn common(&self) -> &Common {
        &self.common
    }
    fn threads(&self) -> Option<usize> {
        self.threads
    }
}

/// The variables that may hold the API token: the first is ours, the second the name other
/// Paperless tools use (paperless-ngx-dedupe's, some compose files'), accepted as an alias.
pub const TOKEN_VARS: [&str; 2] = ["PAPERLESS_TOKEN", "PAPERLESS_API_TOKEN"];

/// The token from the environment (`get` reads a variable): PAPERLESS_TOKEN, else
/// PAPERLESS_API_TOKEN; an empty one counts as unset (a compose file's `${VAR:-}`); both set
/// to different tokens is refused (which one was meant?).
pub fn token_from_env(get: impl Fn(&str) -> Option<String>) -> anyhow::Result<Token> {
    let [ours, alias] = TOKEN_VARS;
    let get = |k| get(k).filter(|v| !v.trim().is_empty());
    match (get(ours), get(alias)) {
        (Some(a), Some(b)) if a.trim() != b.trim() => Err(UsageError(format!(
            "{ours} and {alias} are both set, to different tokens: unset one"
        ))
        .into()),
        (Some(t), _) => Ok(Token::new(&t).context(ours)?),
        (None, Some(t)) => Ok(Token::new(&t).context(alias)?),
        (None, None) => Err(UsageError(format!(
            "no API token: set {ours} (or {alias}) or pass --token-file (a token is never \
             accepted as an argument)"
        ))
        .into()),
    }
}

/// The heading of [`ServerFlags`] in help.
pub const SERVER_HEADING: &str = "Server options";

/// The Paperless-NGX server flags pl-fetch and pl-apply share: one declaration, one meaning.
#[derive(Debug, Clone, Args)]
pub struct ServerFlags {
    /// Paperless-NGX address, e.g. https://paperless.example.org (a trailing /api is dropped).
    // --help prints the line as it is, where an angle-bracketed link would show its brackets.
    #[allow(rustdoc::bare_urls)]
    #[arg(long, env = "PAPERLESS_URL", value_name = "URL", help_heading = SERVER_HEADING)]
    pub url: Option<String>,
    /// Read the API token from the first line of this file instead of PAPERLESS_TOKEN (or
    /// its alias PAPERLESS_API_TOKEN).
    #[arg(long, value_name = "FILE", help_heading = SERVER_HEADING)]
    pub token_file: Option<PathBuf>,
    /// Seconds to wait for a connection (TCP and TLS).
    #[arg(long, default_value_t = 10.0, value_name = "SECS", value_parser = numbers::seconds, help_heading = SERVER_HEADING)]
    pub connect_timeout: f64,
    /// Seconds of silence from the server before a request counts as failed (and is retried).
    #[arg(long, default_value_t = 60.0, value_name = "SECS", value_parser = numbers::seconds, help_heading = SERVER_HEADING)]
    pub timeout: f64,
    /// Seconds one request may take from start to its answer's last byte, however steadily
    /// the server sends it (a request over it fails, and is retried).
    #[arg(long, value_name = "SECS", value_parser = numbers::seconds,
          default_value_t = pl_paperless::client::DEFAULT_DEADLINE_SECS as f64, help_heading = SERVER_HEADING)]
    pub deadline: f64,
    /// Largest answer read, in MiB: a bigger one stops the run with an error instead of
    /// filling memory.
    #[arg(long, value_name = "MB", default_value_t = pl_paperless::client::DEFAULT_MAX_ANSWER_MB,
          value_parser = clap::value_parser!(u64).range(1..=65_536), help_heading = SERVER_HEADING)]
    pub max_answer_mb: u64,
    /// Retries of a request after connection errors, timeouts, cut-short answers, HTTP 429
    /// and 5xx; the delay doubles from --backoff, with jitter, up to 30 s.
    #[arg(long, default_value_t = 5, value_name = "N", help_heading = SERVER_HEADING)]
    pub retries: u32,
    /// Milliseconds before the first retry.
    #[arg(long, default_value_t = 500, value_name = "MS", help_heading = SERVER_HEADING)]
    pub backoff: u64,
    /// Longest wait honoured from a server's Retry-After header, in seconds.
    #[arg(long, default_value_t = 60, value_name = "SECS", help_heading = SERVER_HEADING)]
    pub max_retry_after: u64,
    /// Trust the CA certificate(s) in this PEM file (for a server with a self-signed
    /// certificate) instead of the built-in roots.
    #[arg(long, value_name = "FILE", help_heading = SERVER_HEADING)]
    pub ca_cert: Option<PathBuf>,
}

impl ServerFlags {
    /// The token from --token-file or PAPERLESS_TOKEN (PAPERLESS_API_TOKEN, its alias);
    /// never from argv.
    pub fn token(&self) -> anyhow::Result<Token> {
        if let Some(p) = &self.token_file {
            return Ok(Token::from_file(p)?);
        }
        token_from_env(|k| std::env::var(k).ok())
    }

    /// A client for the server, asking for `api_version`; retries are reported on stderr as
    /// `tool: ...` unless `quiet`.
    pub fn client(
        &self,
        tool: &'static str,
        api_version: u32,
        quiet: bool,
    ) -> anyhow::Result<Client> {
        let Some(url) = self.url.as_deref() else {
            return Err(UsageError("no server: set PAPERLESS_URL (or --url)".into()).into());
        };
        let opts = Options {
            connect_timeout: Duration::from_secs_f64(self.connect_timeout),
            read_timeout: Duration::from_secs_f64(self.timeout),
            deadline: Duration::from_secs_f64(self.deadline),
            max_answer: self.max_answer_mb << 20,
            api_version,
            retry: Retry {
                retries: self.retries,
                base: Duration::from_millis(self.backoff),
                max_retry_after: Duration::from_secs(self.max_retry_after),
                ..Retry::default()
            },
            ca_cert: self.ca_cert.clone(),
        };
        Ok(
            Client::new(url, self.token()?, &opts)?.on_retry(move |msg| {
                if !quiet {
                    eprintln!("{tool}: {msg}");
                }
            }),
        )
    }
}

/// A logger for `tool` obeying `-q`/`-v`; also sizes the thread pool (`--threads`) and sets
/// the largest record every reader takes (`--max-doc-mb`).
pub fn log(tool: &'static str, flags: &impl Flags) -> Log {
    pl_pipeline::ndjson::set_max_record((flags.common().max_doc_mb as usize) << 20);
    if let Some(n) = flags.threads() {
        // Fails only if a pool exists already, which is then used as it is.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global();
    }
    plain_log(tool, &flags.common().out)
}

/// A logger for a tool without the [`Common`] flags (pl-fetch, pl-apply).
pub fn plain_log(tool: &'static str, flags: &OutputFlags) -> Log {
    Log::new(tool, flags.quiet, flags.verbose)
}

/// The version `-V` prints: the package version and the git commit of the build.
pub fn short_version() -> &'static str {
    static V: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        format!(
            "{} (commit {})",
            env!("CARGO_PKG_VERSION"),
            env!("PL_GIT_COMMIT")
        )
    })
}

/// The version `--version` prints: [`short_version`], the target and its compile-time CPU
/// features, and the MinHash kernel this CPU runs.
pub fn long_version() -> &'static str {
    static V: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        format!(
            "{}\nbuilt for {}\nminhash kernel: {} (chosen at run time for this CPU)",
            short_version(),
            env!("PL_TARGET"),
            pl_core::minhash::kernel()
        )
    })
}

/// What the exit status means, for `--help` and the man pages.
pub fn exit_status(tool: &str) -> String {
    if tool == "pl-dedupe" {
        return "Exit status: 0 success, 1 bad input (a --docs or --truth file it cannot use, \
                no decisions to apply), 2 bad usage (flags, words, values), or a stage that failed \
                (make's status: the stage says why above it); apply exits with pl-apply's status."
            .to_owned();
    }
    let mut s = "Exit status: 0 success (also when a reader such as `head` closes the pipe \
                 early), 1 bad input (a file, record or answer the tool cannot use), 2 bad usage \
                 (flags, or a binary stream asked for on a terminal)"
        .to_owned();
    if tool == "pl-apply" {
        s += ", 3 done, but some documents were refused (see the records with \"status\":\"refused\")";
    }
    if tool == "pl-watch" {
        s += "; it runs until SIGTERM or SIGINT, then exits 0 (the inbox keeps what is left)";
    }
    if tool == "pl-check" {
        s += ", 3 some document has a near-duplicate in the index (0: none has)";
    }
    s + "."
}

/// The shells `--generate` writes completions for.
const SHELLS: [(&str, clap_complete::Shell); 3] = [
    ("bash", clap_complete::Shell::Bash),
    ("zsh", clap_complete::Shell::Zsh),
    ("fish", clap_complete::Shell::Fish),
];

/// A tool's clap command as the binary runs it: its flags, the versions with commit and CPU
/// kernel, the exit status after the long help, and `--generate`. The man pages, the
/// completions and `--help` all come from here.
pub fn command<A: clap::CommandFactory>() -> clap::Command {
    let cmd = A::command();
    let tool = cmd.get_name().to_owned();
    cmd.version(short_version())
        .long_version(long_version())
        .after_long_help(exit_status(&tool))
        .arg(
            clap::Arg::new("generate")
                .long("generate")
                .value_name("KIND")
                .value_parser(["man", "bash", "zsh", "fish"])
                .exclusive(true)
                .help_heading(COMMON_HEADING)
                .help(
                    "Print this tool's man page (man) or its completion script for bash, zsh or \
                     fish, and exit (make install installs them all)",
                ),
        )
}

/// Writes what `--generate KIND` prints for `cmd`: a man page, or a completion script.
pub fn generate(
    mut cmd: clap::Command,
    kind: &str,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let name = cmd.get_name().to_owned();
    if kind == "man" {
        return man_page(cmd, out);
    }
    let shell = SHELLS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, s)| *s)
        .expect("clap checked the value");
    clap_complete::generate(shell, &mut cmd, name, out);
    Ok(())
}

/// The man page: clap's sections, then the exit status and the other tools.
fn man_page(cmd: clap::Command, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let name = cmd.get_name().to_owned();
    let man =
        clap_mangen::Man::new(cmd.clone().after_long_help(None::<&str>)).manual("paperless-dedupe");
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    let roff = |s: &str| s.replace('\\', "\\e").replace('-', "\\-");
    // pl-dedupe's commands, each with its words (clap_mangen's section would point to a page
    // per command).
    if cmd.has_subcommands() {
        writeln!(out, ".SH COMMANDS")?;
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let value = |a: &clap::Arg| {
                let names = a.get_value_names().unwrap_or_default();
                names
                    .iter()
                    .map(|n| n.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let words: Vec<String> = sub
                .get_arguments()
                .filter(|a| !a.is_global_set() && a.get_id() != "help")
                .map(|a| match a.get_long() {
                    Some(l) => format!("[--{l} {}]", value(a)),
                    None => value(a),
                })
                .collect();
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            let name = sub.get_name();
            let words = roff(&words.join(" "));
            writeln!(out, ".TP\n\\fB{name}\\fR {words}\n{}", roff(&about))?;
        }
    }
    writeln!(out, ".SH \"EXIT STATUS\"\n{}", roff(&exit_status(&name)))?;
    let others: Vec<String> = TOOLS
        .iter()
        .filter(|t| **t != name)
        .map(|t| format!(".BR {} (1)", roff(t)))
        .collect();
    writeln!(out, ".SH \"SEE ALSO\"\n{}", others.join(",\n"))?;
    man.render_version_section(out)
}

/// The fifteen tools, in pipeline order (the persistent index's last, then its service).
pub const TOOLS: [&str; 15] = [
    "pl-fetch",
    "pl-normalize",
    "pl-shingle",
    "pl-minhash",
    "pl-lsh",
    "pl-score",
    "pl-cluster",
    "pl-cat",
    "pl-eval",
    "pl-trigram",
    "pl-report",
    "pl-apply",
    "pl-index",
    "pl-check",
    "pl-watch",
];

/// A tool's `main`: parses its flags (usage errors exit 2, `--help` and `--version` 0),
/// answers `--generate`, and runs it through [`main_with`].
pub fn main<A: clap::Parser, O: Outcome>(
    tool: &'static str,
    run: fn(A) -> anyhow::Result<O>,
) -> ExitCode {
    main_from(tool, std::env::args_os(), run)
}

/// [`main`] on the words `argv` (the program's name first).
pub fn main_from<A: clap::Parser, O: Outcome>(
    tool: &'static str,
    argv: impl IntoIterator<Item = std::ffi::OsString>,
    run: fn(A) -> anyhow::Result<O>,
) -> ExitCode {
    let matches = match command::<A>().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) => return clap_stopped(tool, e),
    };
    if let Some(kind) = matches.get_one::<String>("generate") {
        return main_with(tool, || {
            let mut out = std::io::stdout().lock();
            generate(command::<A>(), kind, &mut out)
                .and_then(|()| std::io::Write::flush(&mut out))
                .context("<stdout>: write failed")
        });
    }
    match A::from_arg_matches(&matches) {
        Ok(args) => main_with(tool, || run(args)),
        Err(e) => clap_stopped(tool, e),
    }
}

/// When clap stops the parse: help and version as clap prints them; a usage error as every
/// other error is, one line (`tool: what`, with where to read the flags), exit 2.
fn clap_stopped(tool: &str, e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
        _ => main_with(tool, || -> anyhow::Result<()> {
            Err(UsageError(usage_line(&e)).into())
        }),
    }
}

/// clap's message on one line, without its `error: `: the first line, the arguments it names on
/// the lines below (a missing required flag) and its tip (`a similar argument exists`), then
/// where the flags are listed. The usage block and clap's "For more information" are left out.
fn usage_line(e: &clap::Error) -> String {
    one_line_usage(&e.render().to_string())
}

fn one_line_usage(text: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if line.is_empty() {
            continue;
        }
        let line = line.strip_prefix("error: ").unwrap_or(line);
        let line = line.strip_prefix("tip: ").unwrap_or(line);
        parts.push(line.to_string());
    }
    let what = match parts.split_first() {
        Some((first, [])) => first.clone(),
        Some((first, rest)) if first.ends_with(':') => format!("{first} {}", rest.join(", ")),
        Some((first, rest)) => format!("{first}; {}", rest.join("; ")),
        None => "invalid arguments".to_string(),
    };
    format!("{what} (--help lists the flags)")
}

/// How a run that did not fail ends: its exit status. Most tools succeed one way (`()`: 0); a
/// tool whose success says more returns its own type (pl-check's `Checked`: 3 when a document
/// has a near-duplicate).
pub trait Outcome {
    /// The exit status.
    fn status(&self) -> u8;
}

impl Outcome for () {
    fn status(&self) -> u8 {
        0
    }
}

/// Runs a tool: a closed pipe downstream ends quietly with 0, a usage error exits 2, work
/// partly refused ([`Refused`]) 3, any other error is printed once as `tool: context: cause`
/// and exits 1.
pub fn main_with<O: Outcome>(tool: &str, run: impl FnOnce() -> anyhow::Result<O>) -> ExitCode {
    match run() {
        Ok(outcome) => ExitCode::from(outcome.status()),
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

    /// Two different document ids, `A,B`.
    pub fn id_pair(s: &str) -> Result<(u64, u64), String> {
        let parse = |t: &str| {
            t.trim()
                .parse::<u64>()
                .map_err(|_| format!("{t:?} is not a document id"))
        };
        let (a, b) = s
            .split_once(',')
            .ok_or_else(|| format!("{s:?} is not two ids A,B"))?;
        let (a, b) = (parse(a)?, parse(b)?);
        if a == b {
            return Err(format!("{s:?} names one document twice"));
        }
        Ok((a.min(b), a.max(b)))
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

#[cfg(test)]
mod usage_tests {
    use super::usage_line;

    fn refusal(args: &[&str]) -> String {
        let cmd = clap::Command::new("pl-x")
            .arg(clap::Arg::new("index").long("index").required(true))
            .arg(clap::Arg::new("threshold").long("threshold"));
        usage_line(&cmd.try_get_matches_from(args).unwrap_err())
    }

    #[test]
    fn a_missing_flag_is_named_and_a_misspelt_one_gets_clap_s_suggestion() {
        let missing = refusal(&["pl-x"]);
        assert!(missing.contains("--index <index>"), "{missing}");
        assert!(
            !missing.contains('\n') && !missing.contains("Usage"),
            "{missing}"
        );
        let misspelt = refusal(&["pl-x", "--index", "ix", "--treshold", "1"]);
        assert!(misspelt.contains("'--treshold'"), "{misspelt}");
        assert!(
            misspelt.contains("similar argument exists: '--threshold'"),
            "{misspelt}"
        );
        assert!(misspelt.ends_with("(--help lists the flags)"), "{misspelt}");
    }
}

#[cfg(test)]
mod token_tests {
    use super::token_from_env;
    use pl_paperless::Token;

    fn from(vars: &[(&str, &str)]) -> Result<Token, String> {
        let get = |k: &str| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        };
        token_from_env(get).map_err(|e| format!("{e:#}"))
    }

    /// Whether `t` is the token `value` (it is what a redaction of `value` replaces).
    fn is(t: &Token, value: &str) -> bool {
        t.redact_str(value.to_string()) == Token::REDACTED
    }

    #[test]
    fn the_token_comes_from_paperless_token_or_its_alias_never_two_different_ones() {
        assert!(is(
            &from(&[("PAPERLESS_TOKEN", "tok-ours-1")]).unwrap(),
            "tok-ours-1"
        ));
        let alias = from(&[("PAPERLESS_API_TOKEN", "tok-alias-2")]).unwrap();
        assert!(is(&alias, "tok-alias-2"));
        let same = [
            ("PAPERLESS_TOKEN", "tok-3"),
            ("PAPERLESS_API_TOKEN", "tok-3 "),
        ];
        assert!(is(&from(&same).unwrap(), "tok-3"));
        let e = from(&[
            ("PAPERLESS_TOKEN", "tok-1"),
            ("PAPERLESS_API_TOKEN", "tok-2"),
        ])
        .unwrap_err();
        assert!(e.contains("both set") && !e.contains("tok-"), "{e}");
        let e = from(&[]).unwrap_err();
        assert!(
            e.contains("PAPERLESS_TOKEN") && e.contains("PAPERLESS_API_TOKEN"),
            "{e}"
        );
        // Empty counts as unset (a compose file passes `${PAPERLESS_TOKEN:-}` through).
        let e = from(&[("PAPERLESS_API_TOKEN", " ")]).unwrap_err();
        assert!(e.starts_with("no API token"), "{e}");
        let t = from(&[("PAPERLESS_TOKEN", ""), ("PAPERLESS_API_TOKEN", "tok-4")]).unwrap();
        assert!(is(&t, "tok-4"));
    }
}
