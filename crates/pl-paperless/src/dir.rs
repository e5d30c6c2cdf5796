//! A folder of text files (`.txt`, `.md`, recursively) as a docs corpus, for people without
//! Paperless.
//!
//! Ids are stable: the id of a file is the xxh3-64 hash of its path relative to the folder
//! (UTF-8, `/` between components) keeping the low 53 bits, so it does not depend on which
//! other files exist, survives re-runs and additions, and stays exact in JSON readers that
//! use doubles. Renaming a file changes its id. Two paths hashing to the same id are reported
//! as an error (about one chance in 10^5 for a million files).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde_json::{Map, Value};
use xxhash_rust::xxh3::xxh3_64;

use crate::error::{Error, Result};
use pl_core::time::format_utc_secs;

/// Ids stay below 2^53.
const ID_MASK: u64 = (1 << 53) - 1;

/// The stable id of a relative path (components joined with `/`).
pub fn path_id(rel: &str) -> u64 {
    xxh3_64(rel.as_bytes()) & ID_MASK
}

/// What a folder scan found.
#[derive(Debug, Default)]
pub struct Corpus {
    /// NDJSON lines by id.
    pub records: BTreeMap<u64, Vec<u8>>,
    /// Files whose bytes were not UTF-8 (invalid sequences replaced by U+FFFD).
    pub lossy: Vec<String>,
    /// Symlinks to files outside the folder: not read (a link to `/etc/passwd` named
    /// `notes.txt` must not put that file into the corpus).
    pub outside: Vec<String>,
    /// Files that are not `.txt` or `.md` (PDFs, images): not read, counted so the user hears
    /// why a folder of scans gives no documents.
    pub other_files: u64,
}

fn is_text(p: &Path) -> Option<&'static str> {
    let ext = p.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "txt" => Some("text/plain"),
        "md" => Some("text/markdown"),
        _ => None,
    }
}

/// Walks `root` (hidden entries and symlinked folders are skipped) and reads every text file;
/// a symlinked file is read only when it resolves inside `root`.
pub fn scan(root: &Path) -> Result<Corpus> {
    let meta = std::fs::metadata(root).map_err(|e| Error::file(root, e))?;
    if !meta.is_dir() {
        return Err(Error::file(root, "not a folder"));
    }
    let real_root = std::fs::canonicalize(root).map_err(|e| Error::file(root, e))?;
    let Found {
        mut files,
        mut outside,
        other_files,
    } = find_text_files(root, &real_root)?;
    files.sort();
    outside.sort();
    let mut corpus = Corpus {
        outside,
        other_files,
        ..Corpus::default()
    };
    let mut by_id: BTreeMap<u64, String> = BTreeMap::new();
    for (rel, path) in files {
        let id = path_id(&rel);
        if let Some(other) = by_id.insert(id, rel.clone()) {
            return Err(Error::Config(format!(
                "{rel} and {other} map to the same id {id}; rename one of them"
            )));
        }
        let content = read_text(&path, &rel, &mut corpus.lossy)?;
        corpus
            .records
            .insert(id, record_line(id, rel, &path, content));
    }
    Ok(corpus)
}

/// The text files a walk found, and the symlinked ones it refused to follow out of the folder.
struct Found {
    /// Relative path (components joined with `/`) and full path of each text file.
    files: Vec<(String, PathBuf)>,
    /// Relative paths of text files linked from outside the folder.
    outside: Vec<String>,
    /// Files of other kinds, not read.
    other_files: u64,
}

/// Walks `root` depth first, unsorted; `real_root` is its canonical path, which a symlinked
/// file must resolve inside to be read.
fn find_text_files(root: &Path, real_root: &Path) -> Result<Found> {
    let mut outside = Vec::new();
    let mut other_files = 0;
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| Error::file(&dir, e))?;
        for e in entries {
            let e = e.map_err(|e| Error::file(&dir, e))?;
            let name = e.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let path = e.path();
            let ft = e.file_type().map_err(|err| Error::file(&path, err))?;
            let is_file = if ft.is_symlink() {
                let file = std::fs::metadata(&path).is_ok_and(|m| m.is_file());
                let inside = std::fs::canonicalize(&path).is_ok_and(|t| t.starts_with(real_root));
                if file && !inside && is_text(&path).is_some() {
                    let rel = path.strip_prefix(root).unwrap_or(&path);
                    outside.push(rel.to_string_lossy().into_owned());
                }
                file && inside
            } else {
                ft.is_file()
            };
            if ft.is_dir() {
                stack.push(path);
            } else if is_file && is_text(&path).is_some() {
                files.push((relative_name(root, &path), path));
            } else if is_file {
                other_files += 1;
            }
        }
    }
    Ok(Found {
        files,
        outside,
        other_files,
    })
}

/// `path` relative to `root`, components joined with `/` whatever the platform: the input of
/// [`path_id`], so it must not change.
fn relative_name(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let rel: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    rel.join("/")
}

/// The file's text; bytes that are not UTF-8 are replaced by U+FFFD and `rel` is noted in
/// `lossy`.
fn read_text(path: &Path, rel: &str, lossy: &mut Vec<String>) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::file(path, e))?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            lossy.push(rel.to_owned());
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    })
}

/// The file's modification time as a UTC timestamp, or null when it cannot be had.
fn modified_of(path: &Path) -> Value {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| Value::String(format_utc_secs(d.as_secs() as i64)))
        .unwrap_or(Value::Null)
}

/// One docs NDJSON line (newline included) for a file: the fields a Paperless document has,
/// null where a plain file has nothing to say.
fn record_line(id: u64, rel: String, path: &Path, content: String) -> Vec<u8> {
    let modified = modified_of(path);
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut o = Map::new();
    o.insert("id".into(), id.into());
    o.insert("title".into(), Value::String(rel));
    o.insert("content".into(), Value::String(content));
    o.insert("created".into(), Value::Null);
    o.insert("added".into(), Value::Null);
    o.insert("modified".into(), modified);
    o.insert("correspondent".into(), Value::Null);
    o.insert("document_type".into(), Value::Null);
    o.insert("tags".into(), Value::Array(Vec::new()));
    o.insert("archive_serial_number".into(), Value::Null);
    o.insert("original_file_name".into(), Value::String(file_name));
    o.insert("page_count".into(), Value::Null);
    o.insert(
        "mime_type".into(),
        Value::String(is_text(path).unwrap_or("text/plain").into()),
    );
    o.insert("url".into(), Value::Null);
    let mut line = serde_json::to_vec(&Value::Object(o)).expect("a JSON value serializes");
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_fixed_and_below_2_pow_53() {
        // Pinned: changing the scheme renumbers every user's corpus.
        assert_eq!(path_id("a.txt"), xxh3_64(b"a.txt") & ID_MASK);
        for p in ["a.txt", "notes/b.md", "x/y/z.txt"] {
            assert!(path_id(p) < 1 << 53);
        }
        assert_ne!(path_id("a.txt"), path_id("b.txt"));
    }

    #[test]
    fn scans_text_files_recursively() {
        let dir = std::env::temp_dir().join(format!("pl-dir-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join("a.txt"), "hello").unwrap();
        std::fs::write(dir.join("sub/b.MD"), "").unwrap();
        std::fs::write(dir.join("sub/c.pdf"), "x").unwrap();
        std::fs::write(dir.join(".git/d.txt"), "x").unwrap();
        std::fs::write(dir.join("bad.txt"), b"\xff ok").unwrap();
        // A link inside the folder is read; one out of it is not, and is reported.
        std::os::unix::fs::symlink(dir.join("a.txt"), dir.join("sub/link.txt")).unwrap();
        let secret = std::env::temp_dir().join(format!("pl-dir-secret-{}.txt", std::process::id()));
        std::fs::write(&secret, "secret").unwrap();
        std::os::unix::fs::symlink(&secret, dir.join("passwd.txt")).unwrap();
        let c = scan(&dir).unwrap();
        std::fs::remove_file(&secret).unwrap();
        assert_eq!(c.outside, ["passwd.txt"]);
        let titles: Vec<String> = c
            .records
            .values()
            .map(|l| {
                let v: Value = serde_json::from_slice(l).unwrap();
                v["title"].as_str().unwrap().to_owned()
            })
            .collect();
        let mut sorted = titles.clone();
        sorted.sort();
        assert_eq!(sorted, ["a.txt", "bad.txt", "sub/b.MD", "sub/link.txt"]);
        assert_eq!(c.lossy, ["bad.txt"]);
        assert!(c.records.contains_key(&path_id("sub/b.MD")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
