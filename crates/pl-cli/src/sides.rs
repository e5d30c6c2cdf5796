//! Side inputs: files a stage reads besides its main stream (signatures, normalized texts,
//! document metadata), and the binary record readers shared by several tools.

use std::path::Path;

use anyhow::{Context, Result};
use pl_core::records::{Record, RecordReader};
use pl_core::text_records::DocRecord;
use rustc_hash::{FxHashMap, FxHashSet};

use pl_pipeline::io::{open_input, Input};
use pl_pipeline::ndjson::{get_id, NdjsonReader};

/// A record reader over any opened input.
pub type Records<T> = RecordReader<T, Box<dyn std::io::BufRead + Send>>;

/// Opens a shingle or signature stream (binary or NDJSON), naming the input in errors.
pub fn open_records<T: Record>(input: Input) -> Result<(String, Records<T>)> {
    let name = input.name;
    let r = RecordReader::new(input.reader).with_context(|| name.clone())?;
    Ok((name, r))
}

/// Reads every record of a stream into memory.
pub fn read_all<T: Record>(path: &Path) -> Result<(Option<pl_core::stream::Params>, Vec<T>)> {
    read_filtered(path, |_| true)
}

/// Reads the records of a stream that `keep` keeps into memory, dropping the others as they
/// are read.
pub fn read_filtered<T: Record>(
    path: &Path,
    mut keep: impl FnMut(&T) -> bool,
) -> Result<(Option<pl_core::stream::Params>, Vec<T>)> {
    let (name, mut r) = open_records::<T>(open_input(Some(path))?)?;
    let mut out = Vec::new();
    while let Some(rec) = r.next().with_context(|| name.clone())? {
        if keep(&rec) {
            out.push(rec);
        }
    }
    Ok((r.params(), out))
}

/// Reads what `take` makes of the norm/docs records whose id is in `wanted` (all when `None`).
pub fn read_field<T>(
    path: &Path,
    wanted: Option<&FxHashSet<u64>>,
    mut take: impl FnMut(DocRecord) -> Result<T, String>,
) -> Result<FxHashMap<u64, T>> {
    let mut r = NdjsonReader::new(open_input(Some(path))?, false);
    let mut out = FxHashMap::default();
    while let Some((id, rec)) = r.next_with_id(|o| {
        let id = get_id(&o)?;
        if wanted.is_some_and(|w| !w.contains(&id)) {
            return Ok((id, None));
        }
        take(DocRecord::from_obj(o)?).map(|v| (id, Some(v)))
    })? {
        if let Some(v) = rec {
            out.insert(id, v);
        }
    }
    Ok(out)
}
