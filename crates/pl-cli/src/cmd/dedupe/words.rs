//! The words of pl-dedupe's command line before clap reads them: the older form
//! `pl-dedupe groups THRESHOLD=0.8` (the shell script's, make's own) read as its flags, and
//! what make would have misread refused with the flag to write instead.

use std::ffi::OsString;

/// The make variables pl-dedupe passes, in the order it passes them; each is the flag of its
/// name in lower case with dashes (THRESHOLD: --threshold).
pub const MAKE_VARS: [&str; 25] = [
    "WORK",
    "DOCS",
    "TRUTH",
    "UNIT",
    "NGRAM",
    "MIN_WORDS",
    "PERMS",
    "SEED",
    "SCHEME",
    "BANDS",
    "EDGE_WORDS",
    "MIN_BAND_MATCHES",
    "MAX_BUCKET",
    "EVIDENCE_BUCKET",
    "NUMBERS",
    "THRESHOLD",
    "MIN_SIMILARITY",
    "JACCARD_WEIGHT",
    "FUZZY_WEIGHT",
    "FUZZY_SAMPLE",
    "MAX_WORDS",
    "SHINGLE_FLAGS",
    "SCORE_FLAGS",
    "CLUSTER_FLAGS",
    "REPORT_FLAGS",
];

/// The flag of a make variable: THRESHOLD → `--threshold`.
pub fn flag_of(var: &str) -> String {
    format!("--{}", var.to_ascii_lowercase().replace('_', "-"))
}

/// `argv` with each `VARIABLE=VALUE` of [`MAKE_VARS`] as `--variable=VALUE`, and `A=12 B=57`
/// as the ids after `why`. A word clap would take for an unknown command but that names a
/// variable in another case (`threshold=0.8`), or an upper-case `NAME=VALUE` that is none of
/// them, is refused with what to write. Flags' values, the words after `--` and those after
/// `apply` (pl-apply's) are left as they are.
pub fn old_form(argv: Vec<OsString>, cmd: &clap::Command) -> Result<Vec<OsString>, String> {
    let takes_value: Vec<String> = cmd
        .get_arguments()
        .chain(cmd.get_subcommands().flat_map(|s| s.get_arguments()))
        .filter(|a| a.get_action().takes_values())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    let mut words = argv.into_iter();
    let mut out: Vec<OsString> = words.next().into_iter().collect();
    let mut ids: Vec<(String, String)> = Vec::new();
    let mut why_at = None;
    let mut value_next = false;
    while let Some(w) = words.next() {
        let Some(s) = w.to_str().filter(|_| !value_next) else {
            value_next = false;
            out.push(w);
            continue;
        };
        if s == "--" || s == "apply" {
            out.push(w);
            out.extend(words.by_ref());
            break;
        }
        if s.starts_with('-') {
            value_next = takes_value.iter().any(|f| f == s);
            out.push(w);
            continue;
        }
        if s == "why" {
            why_at = Some(out.len() + 1);
        }
        match s.split_once('=') {
            Some((name @ ("A" | "B"), value)) => ids.push((name.into(), value.into())),
            Some((name, value)) if MAKE_VARS.contains(&name) => {
                out.push(format!("{}={value}", flag_of(name)).into())
            }
            Some((name, value)) => return Err(refusal(s, name, value)),
            None => out.push(w),
        }
    }
    if ids.is_empty() {
        return Ok(out);
    }
    let Some(at) = why_at else {
        return Err("A= and B= name the two documents of why: pl-dedupe why 12 57".into());
    };
    ids.sort();
    out.splice(at..at, ids.into_iter().map(|(_, v)| OsString::from(v)));
    Ok(out)
}

/// Why a `name=value` word is refused.
fn refusal(word: &str, name: &str, value: &str) -> String {
    let up = name.to_ascii_uppercase().replace('-', "_");
    if MAKE_VARS.contains(&up.as_str()) {
        format!("unknown word '{word}': write {} {value}", flag_of(&up))
    } else if up == "A" || up == "B" {
        format!("unknown word '{word}': write pl-dedupe why A B (two document ids)")
    } else {
        format!("unknown variable '{name}' in '{word}'")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(words: &str) -> Result<Vec<String>, String> {
        let argv = std::iter::once("pl-dedupe")
            .chain(words.split(' ').filter(|w| !w.is_empty()))
            .map(OsString::from)
            .collect();
        let cmd = crate::common::command::<super::super::Args>();
        old_form(argv, &cmd).map(|v| {
            v.into_iter()
                .skip(1)
                .map(|w| w.into_string().unwrap())
                .collect()
        })
    }

    #[test]
    fn the_older_form_is_read_as_flags() {
        assert_eq!(
            read("groups THRESHOLD=0.8 DOCS=a.ndjson").unwrap(),
            ["groups", "--threshold=0.8", "--docs=a.ndjson"]
        );
        assert_eq!(
            read("B=57 why A=12 --work w").unwrap(),
            ["why", "12", "57", "--work", "w"]
        );
        assert_eq!(
            read("SCORE_FLAGS=--no-verify").unwrap(),
            ["--score-flags=--no-verify"]
        );
        // Flags and their values, the new form, pass as they are.
        let new = "why 12 57 --docs X=1.ndjson --threshold 0.8";
        assert_eq!(read(new).unwrap().join(" "), new);
        // pl-apply's words are its own.
        assert_eq!(
            read("apply --yes TAG=x").unwrap(),
            ["apply", "--yes", "TAG=x"]
        );
    }

    #[test]
    fn what_make_would_misread_is_refused_with_the_flag_to_write() {
        for (words, said) in [
            (
                "threshold=0.8",
                "unknown word 'threshold=0.8': write --threshold 0.8",
            ),
            ("min-words=3", "write --min-words 3"),
            ("FOO=1", "unknown variable 'FOO'"),
            ("A=1 B=2", "A= and B= name the two documents of why"),
            ("why a=1 b=2", "write pl-dedupe why A B"),
        ] {
            let err = read(words).unwrap_err();
            assert!(err.contains(said), "{words}: {err}");
        }
    }

    #[test]
    fn every_variable_is_a_flag_of_pl_dedupe() {
        let cmd = crate::common::command::<super::super::Args>();
        for var in MAKE_VARS {
            let long = flag_of(var);
            assert!(
                cmd.get_arguments()
                    .any(|a| a.get_long().map(|l| format!("--{l}")) == Some(long.clone())),
                "{var}: no {long}"
            );
        }
    }
}
