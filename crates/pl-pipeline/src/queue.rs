//! The index's queue: documents a writer could not add in time (pl-check --add --wait, as the
//! consume hook runs it, while another run held the writers' lock), kept durably in the
//! folder `queue/` of the index until the next writer (pl-index, pl-check --add) adds them.
//!
//! One file per queued record, `ID.NANOS.PID.ndjson` (the id zero-padded to 20 digits, so the
//! names sort by id, then by time), written under a temporary name, synced, then renamed into
//! place: a reader sees whole records or none, and a killed writer leaves nothing half
//! written. A writer holding the lock reads them all ([`Queue::take`]), adds them, and removes
//! exactly the files it read ([`Taken::done`]) once its update is committed; a record queued
//! again meanwhile is another file and stays. Nothing in the folder is followed through a
//! link.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use pl_core::text_records::DocRecord;

/// The queue's folder in the index folder.
pub const QUEUE_DIR: &str = "queue";

/// The largest queued record read back (a bigger file is not one of ours).
const MAX_RECORD: u64 = 256 << 20;

/// The queue of the index in a folder.
pub struct Queue {
    dir: PathBuf,
}

/// What [`Queue::take`] read: the newest record of each queued id (sorted by id), the files
/// read, and the files that hold no record (renamed `NAME.bad`, kept for a person to read).
pub struct Taken {
    /// `(id, docs line)`, one per id, by id.
    pub records: Vec<(u64, String)>,
    files: Vec<PathBuf>,
    /// The damaged entries set aside, with why.
    pub bad: Vec<(PathBuf, String)>,
}

impl Queue {
    /// The queue of the index folder `index_dir` (its folder is made when first written).
    pub fn of(index_dir: &Path) -> Queue {
        Queue {
            dir: index_dir.join(QUEUE_DIR),
        }
    }

    /// The queue's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folder, made if missing; refused when it is anything but a folder (a link).
    fn folder(&self, create: bool) -> Result<bool> {
        match std::fs::symlink_metadata(&self.dir) {
            Ok(m) if m.file_type().is_dir() => return Ok(true),
            Ok(_) => bail!(
                "{}: not a folder (a link or a file): the index's queue must be a folder",
                self.dir.display()
            ),
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("{}: cannot read", self.dir.display()))
            }
            Err(_) if !create => return Ok(false),
            Err(_) => {}
        }
        match std::fs::create_dir(&self.dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(e).with_context(|| format!("{}: cannot create", self.dir.display()))
            }
        }
        self.folder(false)
    }

    /// Queues the docs record `line` of document `id`, durably (synced, with its folder).
    pub fn put(&self, id: u64, line: &str) -> Result<PathBuf> {
        self.folder(true)?;
        let named = |e: std::io::Error| anyhow!("{}: cannot queue: {e}", self.dir.display());
        let mut tmp = crate::io::temp_beside(&self.dir, "entry").map_err(named)?;
        tmp.write_all(line.trim_end().as_bytes()).map_err(named)?;
        tmp.write_all(b"\n").map_err(named)?;
        tmp.as_file().sync_all().map_err(named)?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let path = self.dir.join(format!(
            "{id:020}.{nanos:020}.{}.ndjson",
            std::process::id()
        ));
        tmp.persist_noclobber(&path).map_err(|e| named(e.error))?;
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(named)?;
        Ok(path)
    }

    /// The queued files of document `id`.
    pub fn entries_of(&self, id: u64) -> Result<Vec<PathBuf>> {
        let prefix = format!("{id:020}.");
        Ok(self
            .entries()?
            .into_iter()
            .filter(|p| file_name(p).starts_with(&prefix))
            .collect())
    }

    /// Every queued file, by name.
    fn entries(&self) -> Result<Vec<PathBuf>> {
        if !self.folder(false)? {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        let rd = std::fs::read_dir(&self.dir)
            .with_context(|| format!("{}: cannot read", self.dir.display()))?;
        for e in rd {
            let e = e.with_context(|| format!("{}: cannot read", self.dir.display()))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with('.') && name.ends_with(".ndjson") {
                out.push(e.path());
            }
        }
        out.sort();
        Ok(out)
    }

    /// Reads every queued record (the caller holds the writers' lock). A file that holds no
    /// docs record of the id its name says is renamed `NAME.bad` and reported in `bad`.
    pub fn take(&self) -> Result<Taken> {
        let mut taken = Taken {
            records: Vec::new(),
            files: Vec::new(),
            bad: Vec::new(),
        };
        // A queueing killed before its rename left a temporary: gone with its process.
        if self.folder(false)? {
            crate::io::remove_stale_temporaries(&self.dir, "entry");
        }
        for path in self.entries()? {
            match read_entry(&path) {
                Ok((id, line)) => {
                    // Names sort by id, then time: the last of an id is the newest.
                    match taken.records.last_mut() {
                        Some((last, l)) if *last == id => *l = line,
                        _ => taken.records.push((id, line)),
                    }
                    taken.files.push(path);
                }
                Err(why) => {
                    let aside = PathBuf::from(format!("{}.bad", path.display()));
                    std::fs::rename(&path, &aside)
                        .with_context(|| format!("{}: cannot set aside", path.display()))?;
                    taken.bad.push((aside, why));
                }
            }
        }
        Ok(taken)
    }
}

impl Taken {
    /// Removes the files read: their records are in the index now.
    pub fn done(self) -> Result<()> {
        for f in &self.files {
            match std::fs::remove_file(f) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e).with_context(|| format!("{}: cannot remove", f.display())),
            }
        }
        Ok(())
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One queued file's id and record, or why it is not one.
fn read_entry(path: &Path) -> Result<(u64, String), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| e.to_string())?;
    let meta = f.metadata().map_err(|e| e.to_string())?;
    if !meta.file_type().is_file() || meta.len() > MAX_RECORD {
        return Err("not a queued record (not a file, or too large)".into());
    }
    let mut text = String::new();
    f.take(MAX_RECORD)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    let line = text.trim_end();
    if line.is_empty() || line.contains('\n') {
        return Err("not one docs record".into());
    }
    let o = pl_core::fields::parse_object(line).map_err(|e| e.to_string())?;
    let doc = DocRecord::from_obj(o).map_err(|e| e.to_string())?;
    let named: Option<u64> = file_name(path)
        .split('.')
        .next()
        .and_then(|s| s.parse().ok());
    if named != Some(doc.id) {
        return Err(format!(
            "holds document {}, not the one its name says",
            doc.id
        ));
    }
    Ok((doc.id, line.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: u64, text: &str) -> String {
        format!(r#"{{"id":{id},"title":"t","content":"{text}"}}"#)
    }

    #[test]
    fn records_queued_are_taken_newest_first_by_id_and_removed_when_done() {
        let dir = tempfile::tempdir().unwrap();
        let q = Queue::of(dir.path());
        assert!(q.take().unwrap().records.is_empty(), "no folder: nothing");
        q.put(7, &rec(7, "old")).unwrap();
        q.put(3, &rec(3, "three")).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        q.put(7, &rec(7, "new")).unwrap();
        assert_eq!(q.entries_of(7).unwrap().len(), 2);
        let t = q.take().unwrap();
        assert_eq!(t.records, vec![(3, rec(3, "three")), (7, rec(7, "new"))]);
        // Queued while the taker worked: stays for the next one.
        let later = q.put(9, &rec(9, "later")).unwrap();
        t.done().unwrap();
        assert_eq!(q.entries().unwrap(), vec![later]);
    }

    #[test]
    fn a_damaged_entry_is_set_aside_and_a_planted_link_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let q = Queue::of(dir.path());
        q.put(1, &rec(1, "fine")).unwrap();
        std::fs::write(q.dir().join(format!("{:020}.1.1.ndjson", 2)), "{\"id\":2").unwrap();
        std::fs::write(q.dir().join(format!("{:020}.1.1.ndjson", 4)), rec(5, "x")).unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, rec(6, "secret")).unwrap();
        std::os::unix::fs::symlink(&victim, q.dir().join(format!("{:020}.1.1.ndjson", 6))).unwrap();
        let t = q.take().unwrap();
        assert_eq!(t.records, vec![(1, rec(1, "fine"))]);
        assert_eq!(t.bad.len(), 3, "{:?}", t.bad);
        assert!(t
            .bad
            .iter()
            .all(|(p, _)| p.to_string_lossy().ends_with(".bad")));
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), rec(6, "secret"));
        // A queue folder that is a link is refused, not written through.
        let other = tempfile::tempdir().unwrap();
        let d2 = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(other.path(), d2.path().join(QUEUE_DIR)).unwrap();
        let err = Queue::of(d2.path()).put(1, &rec(1, "x")).unwrap_err();
        assert!(err.to_string().contains("not a folder"), "{err}");
        assert_eq!(std::fs::read_dir(other.path()).unwrap().count(), 0);
    }
}
