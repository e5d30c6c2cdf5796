//! Opening the index: recognised by its own `meta` table (format and parameters), never by
//! the file's existence; created whole (schema and parameters written under a temporary
//! name, then renamed into place) so a file at the index's name is always an index or
//! damage; writers serialised by a lock file; readers open the database read-only.

use std::fs::File;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::{guard, sql, Distrust, Engine, Index, Params, DB_FILE, FORMAT};
use crate::log::Log;

/// The lock file in the index folder that writers hold while they run.
pub const LOCK_FILE: &str = "index.lock";

/// The tables an index has.
pub(super) const TABLES: [&str; 10] = [
    "meta", "docs", "bands", "words", "tokens", "few", "pairs", "apart", "groups", "members",
];

const SCHEMA: &str = "
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE docs(id INTEGER PRIMARY KEY, src INTEGER NOT NULL, fp BLOB NOT NULL,
  size INTEGER, sig BLOB, banded INTEGER NOT NULL, added INTEGER, richness INTEGER NOT NULL,
  line TEXT NOT NULL, owner INTEGER);
CREATE INDEX docs_fp ON docs(fp);
CREATE INDEX docs_src ON docs(src);
CREATE TABLE bands(key INTEGER NOT NULL, slot INTEGER NOT NULL, id INTEGER NOT NULL,
  PRIMARY KEY(key, slot, id)) WITHOUT ROWID;
CREATE TABLE words(hash INTEGER PRIMARY KEY, n INTEGER NOT NULL);
CREATE TABLE tokens(hash INTEGER PRIMARY KEY, n INTEGER NOT NULL);
CREATE TABLE few(hash INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY(hash, id)) WITHOUT ROWID;
CREATE TABLE pairs(a INTEGER NOT NULL, b INTEGER NOT NULL, score REAL NOT NULL,
  jaccard REAL NOT NULL, fuzzy REAL NOT NULL, copy INTEGER NOT NULL, rec TEXT NOT NULL,
  PRIMARY KEY(a, b)) WITHOUT ROWID;
CREATE INDEX pairs_b ON pairs(b);
CREATE TABLE apart(a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY(a, b)) WITHOUT ROWID;
CREATE INDEX apart_b ON apart(b);
CREATE TABLE groups(first INTEGER PRIMARY KEY, confidence REAL NOT NULL, rec TEXT NOT NULL);
CREATE TABLE members(id INTEGER PRIMARY KEY, first INTEGER NOT NULL);
CREATE INDEX members_first ON members(first);
";

/// The page cache of a connection to the index, at most (KiB): filled as pages are read.
const CACHE_KIB: u32 = 64 * 1024;

/// What a run does with the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Only reads (pl-check): the database is opened read-only, no lock is taken, so an
    /// index the user may not write (another user's, mode 444) can be checked.
    Read,
    /// Reads and writes an existing index (pl-check --add), holding the writers' lock.
    Write,
    /// Like `Write`, creating the index when there is none (pl-index).
    Create,
    /// Like `Read`, and an index whose rows are not trusted is opened too (pl-index
    /// --verify).
    Verify,
}

impl Access {
    /// Whether the run only reads.
    fn reads(self) -> bool {
        matches!(self, Access::Read | Access::Verify)
    }
}

impl Index {
    /// Opens the index in `dir` for `access`, with `asked` applied to the defaults when it is
    /// created. Refuses a file that is not an index (empty, damaged, no or partial `meta`),
    /// another format, and parameters (`asked` applied to the index's) other than the
    /// index's. A writer first waits for the lock the others hold (said unless `-q`).
    pub fn open(
        dir: &Path,
        asked: &dyn Fn(&Params) -> Params,
        access: Access,
        log: &Log,
    ) -> Result<Index> {
        Ok(Index::open_until(dir, asked, access, None, log)?
            .expect("a writer with no deadline waits for the lock"))
    }

    /// [`Index::open`], where a writer waits for the writers' lock only `until` that time
    /// (`None`: as long as it takes): `Ok(None)` when another run still held it then.
    pub fn open_until(
        dir: &Path,
        asked: &dyn Fn(&Params) -> Params,
        access: Access,
        until: Option<std::time::Instant>,
        log: &Log,
    ) -> Result<Option<Index>> {
        let db = dir.join(DB_FILE);
        if !db.exists() && access != Access::Create {
            bail!(
                "{}: no index here (build one with pl-index --index {} docs.ndjson)",
                dir.display(),
                dir.display()
            );
        }
        let mut lock = None;
        if !access.reads() {
            if !db.exists() {
                // The parameters are checked before anything is made.
                Engine::new(&asked(&Params::default()), false)
                    .with_context(|| format!("{}: parameters", dir.display()))?;
                std::fs::create_dir_all(dir).with_context(|| {
                    format!("{}: cannot create the index folder", dir.display())
                })?;
            }
            match writers_lock(dir, until, log)? {
                Some(f) => lock = Some(f),
                None => return Ok(None),
            }
            if !db.exists() {
                create(dir, &asked(&Params::default()))?;
            }
        }
        let (conn, shared) = connect(dir, access, log)?;
        lock = lock.or(shared);
        let (params, built, format) = recognise(&conn, dir)?;
        if !built && access != Access::Create {
            bail!(
                "{}: the index's first build did not finish: run pl-index --index {} DOCS again, with every document (not --partial)",
                dir.join(DB_FILE).display(),
                dir.display()
            );
        }
        let distrust = trust(&conn, dir, format, access)?;
        if let Some(msg) = params.differs(&asked(&params)) {
            bail!(
                "{}: the index was {msg}: run with the index's parameters, or build another index in another folder",
                dir.display()
            );
        }
        let engine = Engine::new(&params, false)
            .with_context(|| format!("{}: parameters", dir.display()))?;
        Ok(Some(Index {
            dir: dir.to_path_buf(),
            conn,
            params,
            engine,
            distrust,
            _lock: lock,
        }))
    }
}

/// Why the rows of the index of `format` that `conn` holds are not trusted ([`guard`]),
/// refused unless `access` builds it again (pl-index, or reads to verify it); refused for any
/// when its parameters are not trusted.
fn trust(conn: &Connection, dir: &Path, format: u32, access: Access) -> Result<Option<Distrust>> {
    let db = dir.join(DB_FILE);
    let distrust = match format {
        FORMAT => sql(dir, guard::distrust(conn))?,
        older => Some(Distrust::Older(older)),
    };
    if let Some(why) = &distrust {
        if why.meta() {
            bail!(
                "{}: {why}: its parameters cannot be trusted: {}",
                db.display(),
                rebuild(dir)
            );
        }
        if matches!(access, Access::Read | Access::Write) {
            bail!(
                "{}: {why}: its rows cannot be trusted: run pl-index --index {} DOCS with every \
                 document (not --partial) to build it again",
                db.display(),
                dir.display()
            );
        }
    }
    Ok(distrust)
}

/// Takes the writers' lock of the index folder, waiting while another writer holds it (only
/// `until` that time when given: `None` then). The lock file is opened without following a
/// link planted at its name.
fn writers_lock(dir: &Path, until: Option<std::time::Instant>, log: &Log) -> Result<Option<File>> {
    let path = dir.join(LOCK_FILE);
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true).write(true).create(true);
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW).mode(0o666);
    }
    let f = opts
        .open(&path)
        .with_context(|| format!("{}: cannot open the index's lock file", path.display()))?;
    let locked = || {
        flock(&f, libc::LOCK_EX, false).with_context(|| format!("{}: cannot lock", path.display()))
    };
    if let Some(until) = until {
        while !locked()? {
            if std::time::Instant::now() >= until {
                return Ok(None);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        return Ok(Some(f));
    }
    if !locked()? {
        log.note(format!(
            "{}: another run is writing the index; waiting for it to finish",
            dir.display()
        ));
        flock(&f, libc::LOCK_EX, true)
            .with_context(|| format!("{}: cannot lock", path.display()))?;
    }
    Ok(Some(f))
}

/// A `flock` of `kind` (`LOCK_EX`, `LOCK_SH`) on `f`, released when it is closed (or its
/// process ends, however): `wait` blocks until it is granted; otherwise returns whether it
/// was. (std's `File::lock` needs Rust 1.89, past this workspace's rust-version.)
fn flock(f: &File, kind: libc::c_int, wait: bool) -> std::io::Result<bool> {
    use std::os::unix::io::AsRawFd;
    let op = if wait { kind } else { kind | libc::LOCK_NB };
    loop {
        // SAFETY: flock on a descriptor this File owns and keeps open for the call.
        if unsafe { libc::flock(f.as_raw_fd(), op) } == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) if !wait => return Ok(false),
            _ => return Err(e),
        }
    }
}

/// The way out, for the refusals of a file that is not a usable index.
pub(super) fn rebuild(dir: &Path) -> String {
    format!(
        "remove it and build the index again (pl-index --index {} DOCS)",
        dir.display()
    )
}

/// Creates the index: schema and parameters written to a temporary database beside it,
/// which is then renamed to its name (never over another file).
fn create(dir: &Path, params: &Params) -> Result<()> {
    let db = dir.join(DB_FILE);
    crate::io::remove_stale_temporaries(dir, DB_FILE);
    let tmp = crate::io::temp_beside(dir, DB_FILE)
        .with_context(|| format!("{}: cannot create a temporary file", dir.display()))?;
    // An error names the temporary file it is written to (a full disk stops it there).
    let named = |e: rusqlite::Error| anyhow!("{}: {e}", tmp.path().display());
    {
        let mut conn = Connection::open(tmp.path()).map_err(named)?;
        let tx = conn.transaction().map_err(named)?;
        tx.execute_batch(SCHEMA).map_err(named)?;
        for (k, v) in [
            ("format", FORMAT.to_string()),
            ("params", serde_json::to_string(params)?),
            ("docs", "0".to_string()),
            ("built", "0".to_string()),
        ] {
            tx.execute("INSERT INTO meta(key, value) VALUES (?1, ?2)", [k, &v])
                .map_err(named)?;
        }
        // Last: the guards record what is written after them.
        guard::make_guards(&tx).map_err(named)?;
        tx.commit().map_err(named)?;
        conn.close().map_err(|(_, e)| named(e))?;
    }
    tmp.as_file()
        .sync_all()
        .with_context(|| format!("{}: sync failed", db.display()))?;
    tmp.persist_noclobber(&db)
        .map_err(|e| e.error)
        .with_context(|| format!("{}: cannot rename into place", db.display()))?;
    Ok(())
}

/// The connection: read-write in WAL mode for a writer; for `Access::Read`, one that never
/// writes ([`reader`]), with the shared lock it holds when it reads the file as it is.
fn connect(dir: &Path, access: Access, log: &Log) -> Result<(Connection, Option<File>)> {
    let db = dir.join(DB_FILE);
    let damaged = |e: rusqlite::Error| {
        anyhow!(
            "{}: not a readable index ({e}): {}",
            db.display(),
            rebuild(dir)
        )
    };
    if std::fs::metadata(&db).is_ok_and(|m| m.len() == 0) {
        bail!(
            "{}: empty file, not an index: {}",
            db.display(),
            rebuild(dir)
        );
    }
    if access.reads() {
        let (conn, shared) = reader(dir, log)?;
        sql(dir, conn.busy_timeout(std::time::Duration::from_secs(30)))?;
        return Ok((conn, shared));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(&db, flags).map_err(damaged)?;
    sql(dir, conn.busy_timeout(std::time::Duration::from_secs(30)))?;
    // SQLite's default 2 MB of pages made an update read the same pages through the system
    // again and again (a third of its time in the kernel at 100k documents); a check reads
    // few.
    sql(
        dir,
        conn.pragma_update(None, "cache_size", -(CACHE_KIB as i64)),
    )?;
    let mode: String = conn
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .map_err(damaged)?;
    if mode != "wal" {
        bail!(
            "{}: cannot use the index in WAL mode ({mode})",
            db.display()
        );
    }
    sql(dir, conn.pragma_update(None, "synchronous", "NORMAL"))?;
    Ok((conn, None))
}

/// A reader's connection. SQLite reads a WAL database through its `-wal` and `-shm` files,
/// which a read-only connection cannot create, and which the last connection to close
/// removes: so a user who may write the folder opens it read-write and `query_only` (it
/// takes part in the write-ahead log's locks: a writer's checkpoint never rewrites a page it
/// is reading); one who may not (another user's index) opens it read-only, and when that
/// cannot read it (no `-wal` beside it) reads the file as it is (SQLite's `immutable`) under
/// a shared lock of the writers' lock file, so that no writer changes the file meanwhile.
/// (Reading it as it is while a writer checkpointed into it was read as "database disk
/// image is malformed".)
fn reader(dir: &Path, log: &Log) -> Result<(Connection, Option<File>)> {
    let db = dir.join(DB_FILE);
    let damaged = |e: rusqlite::Error| {
        anyhow!(
            "{}: not a readable index ({e}): {}",
            db.display(),
            rebuild(dir)
        )
    };
    let probe = |c: &Connection| c.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()));
    let no_mutex = OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if writable(dir) && writable(&db) {
        let conn = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_WRITE | no_mutex)
            .map_err(damaged)?;
        sql(dir, conn.pragma_update(None, "query_only", true))?;
        probe(&conn).map_err(damaged)?;
        return Ok((conn, None));
    }
    let conn = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY | no_mutex)
        .map_err(damaged)?;
    let err = match probe(&conn) {
        Ok(()) => return Ok((conn, None)),
        Err(e) => e,
    };
    let cannot_write = matches!(
        err.sqlite_error_code(),
        Some(rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen)
    );
    if !cannot_write {
        return Err(damaged(err));
    }
    drop(conn);
    let shared = readers_lock(dir, log)?;
    let wal = db.with_file_name(format!("{DB_FILE}-wal"));
    if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
        return Err(damaged(err));
    }
    let path = std::path::absolute(&db).with_context(|| format!("{}", db.display()))?;
    let uri = format!("file:{}?immutable=1", uri_escape(&path.to_string_lossy()));
    let conn = Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY | no_mutex | OpenFlags::SQLITE_OPEN_URI,
    )
    .map_err(damaged)?;
    probe(&conn).map_err(damaged)?;
    Ok((conn, shared))
}

/// Whether this user may write `path` (`access(2)`).
fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access reads the NUL-terminated path it is given.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// A shared lock of the writers' lock file, waiting while a writer holds it (said unless
/// `-q`); `None` when there is no lock file to lock (no writer ever ran here).
fn readers_lock(dir: &Path, log: &Log) -> Result<Option<File>> {
    let path = dir.join(LOCK_FILE);
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW);
    }
    let f = match opts.open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(e)
                .with_context(|| format!("{}: cannot open the index's lock file", path.display()))
        }
    };
    if !flock(&f, libc::LOCK_SH, false)
        .with_context(|| format!("{}: cannot lock", path.display()))?
    {
        log.note(format!(
            "{}: a run is writing the index; waiting for it to finish",
            dir.display()
        ));
        flock(&f, libc::LOCK_SH, true)
            .with_context(|| format!("{}: cannot lock", path.display()))?;
    }
    Ok(Some(f))
}

/// A path as a `file:` URI's path: `%`, `?` and `#` escaped.
fn uri_escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// The parameters of the index `conn` holds (it must have every table, and in `meta` this
/// build's format and readable parameters), and whether its first build finished (`built`
/// is 0 from its creation until then; indexes made before it was recorded have none), and
/// its format.
fn recognise(conn: &Connection, dir: &Path) -> Result<(Params, bool, u32)> {
    let db = dir.join(DB_FILE);
    let not_index =
        |why: String| anyhow!("{}: not an index ({why}): {}", db.display(), rebuild(dir));
    let mut names: Vec<String> = Vec::new();
    {
        let mut st = conn
            .prepare("SELECT name FROM sqlite_master WHERE type='table'")
            .map_err(|e| not_index(e.to_string()))?;
        let rows = st
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| not_index(e.to_string()))?;
        for r in rows {
            names.push(r.map_err(|e| not_index(e.to_string()))?);
        }
    }
    if let Some(t) = TABLES.iter().find(|t| !names.iter().any(|n| n == *t)) {
        return Err(not_index(format!("no {t} table")));
    }
    let get = |k: &str| -> Result<Option<String>> {
        conn.query_row("SELECT value FROM meta WHERE key=?1", [k], |r| r.get(0))
            .optional()
            .map_err(|e| not_index(e.to_string()))
    };
    let format = get("format")?.ok_or_else(|| not_index("no format in its meta table".into()))?;
    let format: u32 = format
        .parse()
        .map_err(|_| not_index(format!("format {format:?}")))?;
    // Format 5 differs by the guards of its rows, 6 by the owners, 7 by the normalization of
    // units, 8 by a minus standing alone, 9 by its pairs' verdicts before another passage and
    // another period, 10 by its copy sets (texts written otherwise), 11 to 14 by pairs held
    // apart or kept since: read, not trusted (a full run builds it again).
    if format != FORMAT && !(5..=14).contains(&format) {
        bail!(
            "{}: index format {format}, this build reads format {FORMAT}: build the index again (remove the folder and run pl-index --index {} DOCS)",
            dir.display(),
            dir.display()
        );
    }
    let params =
        get("params")?.ok_or_else(|| not_index("no parameters in its meta table".into()))?;
    let params = Params::from_recorded(&params)
        .map_err(|e| not_index(format!("parameters unreadable: {e}")))?;
    // Flags are checked when given; recorded values are checked here, or an edited record
    // would run unchecked (a pair's alignment unbounded by --max-words, no pair kept).
    let why = match params.out_of_range() {
        Some(why) => Some(why),
        None => Engine::new(&params, false).err().map(|e| format!("{e:#}")),
    };
    if let Some(why) = why {
        return Err(not_index(format!("recorded parameters: {why}")));
    }
    Ok((params, get("built")?.as_deref() != Some("0"), format))
}
