//! pl-watch's inbox: the document ids its webhooks name, kept durably in the index folder
//! (`watch.sqlite`, one table) from before a webhook is answered until the document is
//! checked, added to the index and tagged. A killed service (kill -9, a power cut) loses
//! nothing: it starts again with what the inbox holds.
//!
//! Not the index's `queue/` ([`crate::queue`]): that holds fetched docs records that any
//! writer (pl-index, pl-check --add) adds; this holds ids not fetched yet, which only pl-watch
//! can act on. Each commit is synced (WAL, `synchronous=FULL`) before the webhook's answer.
//!
//! An id already waiting is not queued twice; an id whose document is being processed is
//! queued again (the document changed meanwhile: Document Updated), so the last state is
//! always checked.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use rusqlite::{params, Connection, OptionalExtension};

/// The inbox's database file in the index folder.
pub const INBOX_FILE: &str = "watch.sqlite";

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS inbox(
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id INTEGER NOT NULL,
  taken INTEGER NOT NULL DEFAULT 0, received INTEGER NOT NULL); -- received: Unix ms
CREATE INDEX IF NOT EXISTS inbox_id ON inbox(id);";

/// One connection to the inbox (one per thread).
pub struct Inbox {
    conn: Connection,
    path: PathBuf,
}

/// A queued document: its turn (`seq`) and id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The entry's number, in the order received.
    pub seq: i64,
    /// The document id.
    pub id: u64,
    /// When its webhook was received (Unix milliseconds).
    pub received: i64,
}

impl Inbox {
    /// The inbox of the index folder `dir` (which must exist), made when missing. A link at
    /// its name is refused, never followed.
    pub fn open(dir: &Path) -> Result<Inbox> {
        let path = dir.join(INBOX_FILE);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.file_type().is_file()) {
            bail!("{}: not a file (a link?): refused", path.display());
        }
        let named = |e: rusqlite::Error| anyhow!("{}: inbox database: {e}", path.display());
        let conn = Connection::open(&path).map_err(named)?;
        conn.busy_timeout(std::time::Duration::from_secs(30))
            .map_err(named)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(named)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(named)?;
        conn.execute_batch(SCHEMA).map_err(named)?;
        Ok(Inbox { conn, path })
    }

    fn sql<T>(&self, r: rusqlite::Result<T>) -> Result<T> {
        r.map_err(|e| anyhow!("{}: inbox database: {e}", self.path.display()))
    }

    /// Queues document `id` (durably, when this returns), unless it is waiting already;
    /// whether it was queued.
    pub fn push(&self, id: u64) -> Result<bool> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let n = self.sql(self.conn.execute(
            "INSERT INTO inbox(id, received) SELECT ?1, ?2 \
             WHERE NOT EXISTS (SELECT 1 FROM inbox WHERE id=?1 AND taken=0)",
            params![id as i64, now],
        ))?;
        Ok(n == 1)
    }

    /// The oldest waiting entry, marked taken (being processed); `None` when none waits.
    pub fn take(&self) -> Result<Option<Entry>> {
        let e = self.sql(
            self.conn
                .query_row(
                    "UPDATE inbox SET taken=1 WHERE seq = \
                     (SELECT seq FROM inbox WHERE taken=0 ORDER BY seq LIMIT 1) \
                     RETURNING seq, id, received",
                    [],
                    |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get(2)?)),
                )
                .optional(),
        )?;
        Ok(e.map(|(seq, id, received)| Entry {
            seq,
            id: id as u64,
            received,
        }))
    }

    /// Removes an entry: its document is done.
    pub fn done(&self, seq: i64) -> Result<()> {
        self.sql(self.conn.execute("DELETE FROM inbox WHERE seq=?1", [seq]))?;
        Ok(())
    }

    /// Puts an entry back to wait (its document could not be fetched: tried again later).
    pub fn put_back(&self, seq: i64) -> Result<()> {
        self.sql(
            self.conn
                .execute("UPDATE inbox SET taken=0 WHERE seq=?1", [seq]),
        )?;
        Ok(())
    }

    /// Entries queued (waiting or being processed).
    pub fn len(&self) -> Result<u64> {
        let n: i64 = self.sql(
            self.conn
                .query_row("SELECT count(*) FROM inbox", [], |r| r.get(0)),
        )?;
        Ok(n as u64)
    }

    /// Whether the inbox is empty.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// At start: the entries a stopped run was processing wait again (a waiting entry of the
    /// same id is the same work: dropped); how many entries wait.
    pub fn recover(&self) -> Result<u64> {
        self.sql(self.conn.execute_batch(
            "BEGIN IMMEDIATE;
             DELETE FROM inbox WHERE taken=0 AND id IN (SELECT id FROM inbox WHERE taken=1);
             UPDATE inbox SET taken=0;
             COMMIT;",
        ))?;
        self.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_wait_in_order_once_each_and_a_taken_one_is_queued_again() {
        let dir = tempfile::tempdir().unwrap();
        let a = Inbox::open(dir.path()).unwrap();
        assert!(a.push(5).unwrap() && a.push(3).unwrap());
        assert!(!a.push(5).unwrap(), "5 waits already");
        let b = Inbox::open(dir.path()).unwrap();
        assert_eq!(b.len().unwrap(), 2);
        let first = a.take().unwrap().unwrap();
        assert_eq!(first.id, 5);
        // Updated while being processed: checked again after.
        assert!(b.push(5).unwrap());
        assert_eq!(a.take().unwrap().unwrap().id, 3);
        a.done(first.seq).unwrap();
        assert_eq!(a.take().unwrap().unwrap().id, 5);
        assert_eq!(a.take().unwrap(), None);
        assert_eq!(a.len().unwrap(), 2, "taken, not done: still held");
    }

    #[test]
    fn a_stopped_run_s_entries_wait_again_and_survive_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        {
            let a = Inbox::open(dir.path()).unwrap();
            a.push(1).unwrap();
            a.push(2).unwrap();
            assert_eq!(a.take().unwrap().unwrap().id, 1);
            a.push(1).unwrap();
            let two = a.take().unwrap().unwrap();
            a.put_back(two.seq).unwrap();
        }
        let a = Inbox::open(dir.path()).unwrap();
        assert_eq!(a.recover().unwrap(), 2, "1 once, and 2");
        let ids: Vec<u64> = std::iter::from_fn(|| a.take().unwrap().map(|e| e.id)).collect();
        assert_eq!(ids, vec![1, 2]);
        // A link planted at the inbox's name is refused.
        let other = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(dir.path().join(INBOX_FILE), other.path().join(INBOX_FILE))
            .unwrap();
        let err = Inbox::open(other.path()).err().unwrap().to_string();
        assert!(err.contains("not a file"), "{err}");
    }
}
