//! pl-normalize: docs NDJSON → norm NDJSON (adds `norm`, `words`, `fingerprint`).

use anyhow::Result;
use clap::Parser;
use pl_core::normalize::normalize_with_fingerprint;
use pl_core::records::fingerprint_hex;
use pl_core::text_records::{DocRecord, NormRecord};

use crate::common::Threaded;
use pl_pipeline::io::{create_output, open_input};
use pl_pipeline::ndjson::{norm_line, par_map_records, NdjsonReader};

/// Lowercase (Unicode-aware), strip punctuation (not a number's sign, separators, currency or
/// percent sign, comparison and brackets: `-$1,250.00` and `$1,250.00`, `<5` and `>5` are
/// other texts) and collapse
/// whitespace of each document's `content`, adding `norm` (the normalized text), `words` (its word count) and `fingerprint`
/// (32 hex digits of its xxh3-128 hash). Every other field passes through unchanged; a
/// missing or null `content` counts as empty.
#[derive(Debug, Parser)]
#[command(name = "pl-normalize", version)]
pub struct Args {
    #[command(flatten)]
    pub common: Threaded,
}

/// Runs the tool.
pub fn run(args: Args) -> Result<()> {
    let log = crate::common::log("pl-normalize", &args.common);
    let mut reader = NdjsonReader::new(
        open_input(args.common.input.as_deref())?,
        args.common.skip_invalid,
    );
    let mut out = create_output(args.common.output.as_deref())?;
    let pb = log.progress("documents");
    let mut n = 0u64;
    par_map_records(
        &mut reader,
        &mut out,
        |o| {
            let doc = DocRecord::from_obj(o)?;
            let mut norm = String::new();
            let (words, fp) = normalize_with_fingerprint(doc.text()?, &mut norm);
            let fp = fingerprint_hex(fp);
            let id = doc.id;
            let rec = NormRecord::new(doc, norm, words as u64, fp);
            // What the next stages would refuse is refused here, where the document is named.
            Ok(Some((id, norm_line(id, &rec)?)))
        },
        || {
            n += 1;
            pb.inc(1);
        },
    )?;
    out.finish()?;
    pb.finish_and_clear();
    reader.report_skipped(&log);
    if n == 0 {
        // An empty docs file would otherwise end as "0 groups" with no word of why.
        let input = args
            .common
            .input
            .as_deref()
            .map(|p| p.display().to_string());
        log.note(format!(
            "{}: no documents: nothing to compare",
            input.as_deref().unwrap_or("<stdin>")
        ));
    }
    log.summary(format!(
        "{} normalized",
        crate::common::count(n, "document")
    ));
    Ok(())
}
