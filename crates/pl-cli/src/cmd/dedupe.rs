//! pl-dedupe: the whole pipeline as one command. Its flags are make's variables (checked as
//! the stages check them), its subcommands make's targets of pipeline.mk, which it runs with
//! the tools installed beside it: each stage's output is a file in the work folder, and a
//! rerun redoes only what changed, as `make` in a clone does.

mod words;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, Context, Result};
use clap::{Args as ClapArgs, Parser, Subcommand};
use pl_core::text_records::DocRecord;
use pl_pipeline::io::open_input;
use pl_pipeline::ndjson::NdjsonReader;
use pl_pipeline::summary::{summarize, Summary};

use crate::common::{numbers, Outcome, UsageError};

pub use words::{old_form, MAKE_VARS};

const TOOL: &str = "pl-dedupe";
const INPUT: &str = "Input and work folder";
const PARAMS: &str = "Pipeline parameters (make's variables of the same name)";
const EXTRA: &str = "Extra flags of one stage (one string each)";

/// Find the near-duplicate documents of a Paperless-NGX library (PAPERLESS_URL and
/// PAPERLESS_TOKEN in the environment), of a docs NDJSON file (--docs FILE), or of the bundled
/// example corpus (neither given), with the pl-* tools installed beside this command: each
/// stage's output is a file in the work folder (./work), and a rerun redoes only what changed
/// (make runs the pipeline's makefile, share/paperless-dedupe/pipeline.mk, underneath).
///
/// Examples: `pl-dedupe` (the example corpus's groups), `pl-dedupe report` (the review page),
/// `pl-dedupe --docs mine.ndjson --threshold 0.8`, `pl-dedupe why 12 57`. The older form
/// `pl-dedupe groups THRESHOLD=0.8` is still read (each VARIABLE=VALUE as its flag); a
/// parameter in the environment is not.
#[derive(Debug, Parser)]
#[command(name = "pl-dedupe", version, subcommand_value_name = "COMMAND")]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub params: Params,
    /// Print nothing on stderr but errors (no stage's line, no summary at the end).
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// What to do (make's target of the same name in pipeline.mk).
#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Run the pipeline and print the duplicate groups as a table (the default; `table` too),
    /// then where they are and what to run next.
    #[command(visible_alias = "table")]
    Run,
    /// Run the pipeline into WORK/groups.ndjson, printing only where they are.
    Groups,
    /// Run the pipeline and build WORK/report.html, the page to review the groups on.
    Report,
    /// Apply the decisions you exported from the review page (WORK/decisions.ndjson) to
    /// Paperless with pl-apply: its plan, or with --yes the changes.
    Apply(ApplyArgs),
    /// Precision and recall of the groups against --truth (the example corpus's by default).
    Eval,
    /// Why two documents are or are not in one group: the candidate stage, the verdict, the
    /// grouping.
    Why(WhyArgs),
    /// Build the persistent index WORK/index (pl-index) and its groups; later runs update it.
    Index,
    /// WORK/shingles.bin, the shingle stream (not needed by the pipeline).
    Shingles,
    /// Remove the work folder.
    Clean,
    /// Say again what `run` ends with: where the last run's groups are, how sure the least
    /// sure is, and what to run next (`make demo` ends with it, in make's words).
    Summary,
}

/// `pl-dedupe apply`: pl-apply on the reviewed decisions.
#[derive(Debug, Clone, ClapArgs)]
pub struct ApplyArgs {
    /// The decisions file [default: WORK/decisions.ndjson].
    #[arg(long, value_name = "FILE")]
    pub decisions: Option<PathBuf>,
    /// pl-apply's flags, passed on as they are: --yes to make the changes (without it, the
    /// plan), --note, --link FIELD, --delete, --tag NAME (pl-apply --help).
    #[arg(
        value_name = "PL-APPLY FLAGS",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub pl_apply: Vec<OsString>,
}

/// `pl-dedupe why A B`.
#[derive(Debug, Clone, ClapArgs)]
pub struct WhyArgs {
    /// One document's id.
    #[arg(value_name = "A")]
    pub a: u64,
    /// The other document's id.
    #[arg(value_name = "B")]
    pub b: u64,
}

/// make's variables as flags: each given one is passed to make, each left out is
/// pipeline.mk's default (written in its help; a test holds them to pipeline.mk).
#[derive(Debug, Clone, Default, ClapArgs)]
pub struct Params {
    /// The folder of the run's files (WORK) [default: work].
    #[arg(long, global = true, value_name = "DIR", help_heading = INPUT)]
    pub work: Option<PathBuf>,
    /// A docs NDJSON file, as pl-fetch writes (DOCS) [default: the bundled example corpus, or
    /// with PAPERLESS_URL set your Paperless library].
    #[arg(long, global = true, value_name = "FILE", help_heading = INPUT)]
    pub docs: Option<PathBuf>,
    /// The truth file eval scores the groups against (TRUTH) [default: the example corpus's].
    #[arg(long, global = true, value_name = "FILE", help_heading = INPUT)]
    pub truth: Option<PathBuf>,
    /// Replace the documents of a work folder that holds another source's (SWITCH_SOURCE=1).
    #[arg(long, global = true, help_heading = INPUT)]
    pub switch_source: bool,
    /// Keep pairs whose match probability is at least this: higher, fewer and surer groups
    /// (pl-score --threshold) [default: 0.5].
    #[arg(long, global = true, value_name = "P", value_parser = numbers::unit, help_heading = PARAMS)]
    pub threshold: Option<f64>,
    /// Compare the texts of pairs at least this similar (pl-score --min-similarity)
    /// [default: 0.65].
    #[arg(long, global = true, value_name = "X", value_parser = numbers::unit, help_heading = PARAMS)]
    pub min_similarity: Option<f64>,
    /// Shingle unit: chars or words (pl-shingle --unit) [default: chars].
    #[arg(long, global = true, value_parser = ["chars", "words"], help_heading = PARAMS)]
    pub unit: Option<String>,
    /// Units per shingle (pl-shingle --ngram) [default: 5].
    #[arg(long, global = true, value_name = "N", value_parser = crate::cmd::shingle::ngram_parser(), help_heading = PARAMS)]
    pub ngram: Option<u32>,
    /// Shorter documents are skipped and counted (pl-shingle --min-words) [default: 20].
    #[arg(long, global = true, value_name = "N", help_heading = PARAMS)]
    pub min_words: Option<usize>,
    /// Signature length K (pl-minhash --perms) [default: 256].
    #[arg(long, global = true, value_name = "K", value_parser = crate::cmd::minhash::perms_parser(), help_heading = PARAMS)]
    pub perms: Option<u32>,
    /// MinHash seed (pl-minhash --seed) [default: 42].
    #[arg(long, global = true, value_name = "N", help_heading = PARAMS)]
    pub seed: Option<u64>,
    /// classic or oph (pl-minhash --scheme) [default: classic].
    #[arg(long, global = true, value_parser = ["classic", "oph"], help_heading = PARAMS)]
    pub scheme: Option<String>,
    /// LSH bands; K / bands rows each (pl-lsh --bands) [default: 32].
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), help_heading = PARAMS)]
    pub bands: Option<u32>,
    /// Words of each document's head and tail sketched apart, 0 for none [default: 60].
    #[arg(long, global = true, value_name = "N", help_heading = PARAMS)]
    pub edge_words: Option<usize>,
    /// Bands that must agree (pl-lsh --min-band-matches) [default: 1].
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), help_heading = PARAMS)]
    pub min_band_matches: Option<u32>,
    /// A bucket of more documents pairs none of them, 0 for no limit (pl-lsh --max-bucket)
    /// [default: 50].
    #[arg(long, global = true, value_name = "N", help_heading = PARAMS)]
    pub max_bucket: Option<usize>,
    /// Bucket whose weight a pair's shared buckets must reach, 0 for none (pl-lsh
    /// --evidence-bucket) [default: 7].
    #[arg(long, global = true, value_name = "N", value_parser = crate::cmd::lsh::evidence_bucket, help_heading = PARAMS)]
    pub evidence_bucket: Option<usize>,
    /// 1: documents sharing two rare numbers are candidates too, 0: the bands alone (pl-lsh
    /// --numbers) [default: 1].
    #[arg(long, global = true, value_name = "0|1", value_parser = clap::value_parser!(u8).range(0..=1), help_heading = PARAMS)]
    pub numbers: Option<u8>,
    /// Weight of the Jaccard estimate (pl-score --jaccard-weight) [default: 0.55].
    #[arg(long, global = true, value_name = "W", value_parser = numbers::non_negative, help_heading = PARAMS)]
    pub jaccard_weight: Option<f64>,
    /// Weight of the fuzzy ratio, 0 for none (pl-score --fuzzy-weight) [default: 0.45].
    #[arg(long, global = true, value_name = "W", value_parser = numbers::non_negative, help_heading = PARAMS)]
    pub fuzzy_weight: Option<f64>,
    /// Characters of each text the fuzzy ratio compares (pl-score --fuzzy-sample)
    /// [default: 10000].
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = PARAMS)]
    pub fuzzy_sample: Option<u64>,
    /// Words of a document the verifier aligns and whose numbers pair documents (pl-score and
    /// pl-lsh --max-words) [default: 20000].
    #[arg(long, global = true, value_name = "N", value_parser = crate::score_flags::max_words_parser(), help_heading = PARAMS)]
    pub max_words: Option<usize>,
    /// More pl-shingle (and pl-minhash) flags, e.g. "--short skip" (SHINGLE_FLAGS).
    #[arg(long, global = true, value_name = "FLAGS", allow_hyphen_values = true, help_heading = EXTRA)]
    pub shingle_flags: Option<String>,
    /// More pl-score flags, e.g. "--no-verify --sort-words" (SCORE_FLAGS).
    #[arg(long, global = true, value_name = "FLAGS", allow_hyphen_values = true, help_heading = EXTRA)]
    pub score_flags: Option<String>,
    /// More pl-cluster flags, e.g. "--linkage single" (CLUSTER_FLAGS).
    #[arg(long, global = true, value_name = "FLAGS", allow_hyphen_values = true, help_heading = EXTRA)]
    pub cluster_flags: Option<String>,
    /// More pl-report flags, e.g. "--title 'My archive'" (REPORT_FLAGS).
    #[arg(long, global = true, value_name = "FLAGS", allow_hyphen_values = true, help_heading = EXTRA)]
    pub report_flags: Option<String>,
}

impl Params {
    /// make's assignments for the flags given, in [`MAKE_VARS`]'s order: `("THRESHOLD",
    /// "0.8")`.
    pub fn assignments(&self) -> Vec<(&'static str, String)> {
        let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
        let s = |v: Option<&dyn ToString>| v.map(|v| v.to_string());
        let values = [
            path(&self.work),
            path(&self.docs),
            path(&self.truth),
            s(self.unit.as_ref().map(|v| v as _)),
            s(self.ngram.as_ref().map(|v| v as _)),
            s(self.min_words.as_ref().map(|v| v as _)),
            s(self.perms.as_ref().map(|v| v as _)),
            s(self.seed.as_ref().map(|v| v as _)),
            s(self.scheme.as_ref().map(|v| v as _)),
            s(self.bands.as_ref().map(|v| v as _)),
            s(self.edge_words.as_ref().map(|v| v as _)),
            s(self.min_band_matches.as_ref().map(|v| v as _)),
            s(self.max_bucket.as_ref().map(|v| v as _)),
            s(self.evidence_bucket.as_ref().map(|v| v as _)),
            s(self.numbers.as_ref().map(|v| v as _)),
            s(self.threshold.as_ref().map(|v| v as _)),
            s(self.min_similarity.as_ref().map(|v| v as _)),
            s(self.jaccard_weight.as_ref().map(|v| v as _)),
            s(self.fuzzy_weight.as_ref().map(|v| v as _)),
            s(self.fuzzy_sample.as_ref().map(|v| v as _)),
            s(self.max_words.as_ref().map(|v| v as _)),
            self.shingle_flags.clone(),
            self.score_flags.clone(),
            self.cluster_flags.clone(),
            self.report_flags.clone(),
        ];
        MAKE_VARS
            .iter()
            .zip(values)
            .filter_map(|(var, v)| v.map(|v| (*var, v)))
            .collect()
    }

    /// The work folder.
    fn work(&self) -> PathBuf {
        self.work.clone().unwrap_or_else(|| PathBuf::from("work"))
    }
}

/// Where the pipeline is: pipeline.mk, the scripts and the example corpus it reads, and the
/// tools it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    pub makefile: PathBuf,
    pub scripts: PathBuf,
    pub examples: PathBuf,
    pub bin: PathBuf,
}

/// The pipeline of the tools in `bin`: installed, `share/paperless-dedupe/` beside `bin/`
/// (as `make install` puts it); or, run from a clone's build (`target/release`), the clone's.
pub fn find_home(bin: &Path) -> Option<Home> {
    let home = |makefile: PathBuf, share: &Path| Home {
        makefile,
        scripts: share.join("scripts"),
        examples: share.join("examples"),
        bin: bin.to_path_buf(),
    };
    if let Some(share) = bin.parent().map(|p| p.join("share/paperless-dedupe")) {
        if share.join("pipeline.mk").is_file() {
            return Some(home(share.join("pipeline.mk"), &share));
        }
    }
    bin.ancestors()
        .skip(1)
        .find(|d| d.join("pipeline.mk").is_file() && d.join("scripts/source-guard.sh").is_file())
        .map(|clone| home(clone.join("pipeline.mk"), clone))
}

/// A run's end: the status of make (or pl-apply), passed on.
pub struct Status(u8);

impl Outcome for Status {
    fn status(&self) -> u8 {
        self.0
    }
}

/// pl-dedupe's `main`: the older VARIABLE=VALUE words read as flags, then as every tool.
pub fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    match old_form(argv, &crate::common::command::<Args>()) {
        Ok(argv) => crate::common::main_from(TOOL, argv, run),
        Err(msg) => crate::common::main_with(TOOL, || -> Result<()> {
            Err(UsageError(format!("{msg} (--help lists the flags)")).into())
        }),
    }
}

/// Runs the command.
pub fn run(args: Args) -> Result<Status> {
    let command = args.command.clone().unwrap_or(Command::Run);
    check(&args.params, &command)?;
    let status = match &command {
        Command::Summary => Status(0),
        command => {
            let exe = std::env::current_exe().context("where is pl-dedupe")?;
            let bin = exe.parent().unwrap_or(Path::new(".")).to_path_buf();
            let home = find_home(&bin).ok_or_else(|| {
                anyhow!(
                    "{}: no share/paperless-dedupe/pipeline.mk beside it (install with make install)",
                    bin.display()
                )
            })?;
            if let Command::Apply(a) = command {
                return apply(&home, &args.params, a);
            }
            make(&home, &args.params, command, args.quiet)?
        }
    };
    let ends_with_summary = matches!(command, Command::Run | Command::Groups | Command::Summary);
    if status.0 == 0 && !args.quiet && ends_with_summary {
        // The Makefile's demo asks in make's words (PL_DEDUPE_CMD=make, the variable by
        // which pl-dedupe tells pipeline.mk how its user runs it).
        let words = match std::env::var("PL_DEDUPE_CMD").as_deref() {
            Ok("make") => Words::Make,
            _ => Words::Driver,
        };
        for line in summary_lines(&args.params, words)? {
            eprintln!("{}: {line}", words.command());
        }
    }
    Ok(status)
}

/// The make goal of a command, with its own variables.
fn goal(command: &Command) -> Vec<String> {
    let name = match command {
        Command::Run => "table",
        Command::Groups => "groups",
        Command::Report => "report",
        Command::Apply(_) => unreachable!("apply runs pl-apply"),
        Command::Eval => "eval",
        Command::Why(w) => return vec!["why".into(), format!("A={}", w.a), format!("B={}", w.b)],
        Command::Index => "index",
        Command::Shingles => "shingles",
        Command::Clean => "clean",
        Command::Summary => unreachable!("summary runs no make"),
    };
    vec![name.into()]
}

/// Runs make on pipeline.mk with the flags' variables, and nothing of the environment's; with
/// `quiet`, the stages too say nothing but errors (QUIET=1).
fn make(home: &Home, params: &Params, command: &Command, quiet: bool) -> Result<Status> {
    let make = std::env::var_os("MAKE").unwrap_or_else(|| "make".into());
    let mut cmd = std::process::Command::new(&make);
    let var = |name: &str, value: &str| format!("{name}={}", value.replace('$', "$$"));
    let place = |p: &Path| p.display().to_string();
    cmd.args(["-s", "--no-print-directory", "-f"])
        .arg(&home.makefile)
        .arg(var("BIN", &place(&home.bin)))
        .arg(var("SCRIPTS", &place(&home.scripts)))
        .arg(var("EXAMPLES", &place(&home.examples)))
        .args(goal(command))
        .args(params.assignments().iter().map(|(n, v)| var(n, v)))
        .args(quiet.then_some("QUIET=1"))
        .env("PL_DEDUPE_CMD", TOOL);
    // Only the flags count: a WORK or THRESHOLD in the environment, or a calling make's
    // variables, would change the run unseen.
    for name in MAKE_VARS
        .iter()
        .chain(&["A", "B", "QUIET", "MAKEFLAGS", "MFLAGS"])
    {
        cmd.env_remove(name);
    }
    if params.switch_source {
        cmd.env("SWITCH_SOURCE", "1");
    }
    let status = cmd
        .status()
        .with_context(|| format!("cannot run {} (GNU make)", make.to_string_lossy()))?;
    Ok(exit_status(status))
}

/// A child's exit status as pl-dedupe's (128 + the signal that killed it).
fn exit_status(status: std::process::ExitStatus) -> Status {
    use std::os::unix::process::ExitStatusExt;
    Status(match (status.code(), status.signal()) {
        (Some(c), _) => c.clamp(0, 255) as u8,
        (None, Some(s)) => (128 + s).clamp(0, 255) as u8,
        (None, None) => 1,
    })
}

/// `pl-dedupe apply`: pl-apply on the decisions, its flags passed on.
fn apply(home: &Home, params: &Params, a: &ApplyArgs) -> Result<Status> {
    let decisions = a
        .decisions
        .clone()
        .unwrap_or_else(|| params.work().join("decisions.ndjson"));
    if !decisions.exists() {
        return Err(anyhow!(
            "{}: no decisions there: review the groups first (pl-dedupe report, then export \
             your decisions from the page to that file)",
            decisions.display()
        ));
    }
    let status = std::process::Command::new(home.bin.join("pl-apply"))
        .arg(&decisions)
        .args(&a.pl_apply)
        .status()
        .with_context(|| format!("cannot run {}", home.bin.join("pl-apply").display()))?;
    Ok(exit_status(status))
}

/// Whose words a run's end says what to run next in: pl-dedupe's, or make's in a clone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    Driver,
    Make,
}

impl Words {
    /// The command: `pl-dedupe` or `make`.
    fn command(self) -> &'static str {
        match self {
            Words::Driver => TOOL,
            Words::Make => "make",
        }
    }

    /// How the threshold is set: the flag, or make's variable.
    fn threshold(self) -> &'static str {
        match self {
            Words::Driver => "--threshold",
            Words::Make => "THRESHOLD",
        }
    }

    /// How to ask why two documents are (or are not) one group.
    fn why(self) -> String {
        match self {
            Words::Driver => format!("{TOOL} why A B"),
            Words::Make => "make why A=ID B=ID".into(),
        }
    }
}

/// What a run's end says: where the groups are, how sure the least sure is, what next.
fn summary_lines(params: &Params, words: Words) -> Result<Vec<String>> {
    let groups = params.work().join("groups.ndjson");
    let s = summarize(&groups)?;
    Ok(describe(&s, &groups, words))
}

/// The lines of [`summary_lines`] for a summary.
pub fn describe(s: &Summary, groups: &Path, words: Words) -> Vec<String> {
    let mut first = format!("{} groups in {}", s.groups, groups.display());
    if let Some(w) = s.weakest {
        first += &format!(
            ", the least sure at confidence {w} (a higher {} keeps fewer, surer groups)",
            words.threshold()
        );
    }
    let (cmd, why) = (words.command(), words.why());
    vec![
        first,
        format!("next: {cmd} report (a review page), {why} (one pair explained)"),
    ]
}

/// The checks make cannot make, before it runs: paths it can take, input files that are
/// there and hold records, parameters that go together.
fn check(params: &Params, command: &Command) -> Result<()> {
    for (flag, path) in [
        ("--work", &params.work),
        ("--docs", &params.docs),
        ("--truth", &params.truth),
    ] {
        if let Some(p) = path {
            make_safe(flag, p)?;
        }
    }
    if let Some(docs) = &params.docs {
        first_record(docs, "a docs NDJSON file, as pl-fetch writes", |o| {
            DocRecord::from_obj(o).map(drop).map_err(|e| e.to_string())
        })?;
    }
    if let Some(truth) = &params.truth {
        first_record(truth, "a truth NDJSON file", |_| Ok(()))?;
    } else if matches!(command, Command::Eval) && params.docs.is_some() {
        return Err(UsageError(
            "eval: give --truth FILE with --docs (the default truth is the example corpus's)"
                .into(),
        )
        .into());
    }
    if let Some(n) = params.min_words {
        pl_pipeline::params::check_min_words(n)?;
    }
    if let (Some(j), Some(f)) = (params.jaccard_weight, params.fuzzy_weight) {
        pl_pipeline::params::check_weights(j, f)?;
    }
    match command {
        Command::Why(w) if w.a == w.b => Err(UsageError(format!(
            "why: {} and {} are one document: give two ids",
            w.a, w.b
        ))
        .into()),
        Command::Apply(_) | Command::Clean => only(params, command, &["WORK"]),
        Command::Summary => only(params, command, &["WORK"]),
        _ => Ok(()),
    }
}

/// apply, clean and summary read only --work: another parameter would be silently ignored.
fn only(params: &Params, command: &Command, read: &[&str]) -> Result<()> {
    let name = match command {
        Command::Clean => "clean",
        Command::Summary => "summary",
        _ => "apply",
    };
    match params
        .assignments()
        .into_iter()
        .find(|(v, _)| !read.contains(v))
    {
        Some((var, _)) => {
            let flags: Vec<String> = read.iter().map(|v| words::flag_of(v)).collect();
            Err(UsageError(format!(
                "{name} takes no {}: it reads only {}",
                words::flag_of(var),
                flags.join(" and ")
            ))
            .into())
        }
        None => Ok(()),
    }
}

/// Refuses a path make would split or expand (a space, `$`, `:`, `#`, a wildcard...).
fn make_safe(flag: &str, p: &Path) -> Result<()> {
    let bad = |c: char| c.is_whitespace() || "$:#%*?[\\;'\"`".contains(c);
    match p.to_str() {
        Some("-") => Err(UsageError(format!("{flag} -: give a file (make reads no stdin)")).into()),
        Some(s) if !s.contains(bad) && !s.is_empty() => Ok(()),
        _ => Err(UsageError(format!(
            "{flag} {:?}: make cannot take a path with a space, a quote or one of $:#%*?[\\; \
             (rename it, or link it from a plain name)",
            p.display().to_string()
        ))
        .into()),
    }
}

/// Opens `path` (named as written) and reads its first record with `parse`: a missing file or
/// one of another kind is refused before any stage runs, naming it.
fn first_record(
    path: &Path,
    what: &str,
    parse: impl FnMut(pl_core::fields::Obj) -> Result<(), String>,
) -> Result<()> {
    let mut reader = NdjsonReader::new(open_input(Some(path))?, false);
    reader
        .next_with(parse)
        .with_context(|| format!("{} is not {what}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests;
