//! Trusting the index's rows: a change made outside pl-index is noticed when the index is
//! opened, and `pl-index --verify` compares every table with a fresh build of its documents.
//!
//! Every table carries triggers (`guard_<table>_<insert|update|delete>`) that record, in
//! `meta` under `changed`, the tables a statement changed. pl-index drops them at the start
//! of its own transaction and makes them again before it commits, so what it writes is not
//! recorded, and what anyone else writes (a row deleted, duplicated, copied over another,
//! by the `sqlite3` shell or any program) is. Opening reads one `meta` row and the schema's
//! list of triggers: its cost does not grow with the index (a checksum of every table
//! verified on open would read the whole database, gigabytes at 100,000 documents, for
//! every one-document `pl-check`). What no statement does (a disk damaging a value in
//! place) is found by `--verify`.

use rusqlite::{Connection, Transaction};

use super::*;

/// The `meta` key of the tables changed outside pl-index.
const CHANGED: &str = "changed";

/// The kinds of change a guard notices.
const EVENTS: [&str; 3] = ["insert", "update", "delete"];

/// Every guard, `(name, sql)`, as SQLite's schema keeps it.
fn guards() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for table in open::TABLES {
        for event in EVENTS {
            let name = format!("guard_{table}_{event}");
            // The record itself, written by the other guards, is no change of `meta` (deleting
            // it is).
            let when = match (table, event) {
                ("meta", "delete") => String::new(),
                ("meta", _) => format!("WHEN NEW.key <> '{CHANGED}' "),
                _ => String::new(),
            };
            let sql = format!(
                "CREATE TRIGGER {name} AFTER {} ON {table} {when}BEGIN \
                 INSERT OR IGNORE INTO meta(key, value) VALUES ('{CHANGED}', ''); \
                 UPDATE meta SET value = value || ' {table}' WHERE key = '{CHANGED}' \
                 AND instr(value || ' ', ' {table} ') = 0; END",
                event.to_uppercase()
            );
            out.push((name, sql));
        }
    }
    out
}

/// Makes the guards (before a transaction of pl-index commits, and at creation).
pub(super) fn make_guards(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    for (_, sql) in guards() {
        tx.execute_batch(&sql)?;
    }
    Ok(())
}

/// The start of a transaction of pl-index: the guards dropped (it then writes unseen), and
/// with `rebuild` every table but `meta` emptied, to be built again from scratch.
pub(super) fn unseal(tx: &Transaction<'_>, rebuild: bool) -> rusqlite::Result<()> {
    for (name, _) in guards() {
        tx.execute_batch(&format!("DROP TRIGGER IF EXISTS {name}"))?;
    }
    if rebuild {
        add_owner_column(tx)?;
        for table in COMPARED {
            tx.execute(&format!("DELETE FROM {table}"), [])?;
        }
    }
    Ok(())
}

/// An index of format 5 or 6, built again: its `docs` table gets the owners' column (last,
/// where the schema has it).
fn add_owner_column(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    if !has_owner_column(tx)? {
        tx.execute_batch("ALTER TABLE docs ADD COLUMN owner INTEGER")?;
    }
    Ok(())
}

/// Whether the `docs` table has the owners' column (format 7).
fn has_owner_column(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) FROM pragma_table_info('docs') WHERE name = 'owner'",
        [],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// The end of a transaction of pl-index: the guards made again, and the index trusted.
pub(super) fn seal(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute("DELETE FROM meta WHERE key = ?1", [CHANGED])?;
    tx.execute(
        "UPDATE meta SET value = ?1 WHERE key = 'format'",
        [FORMAT.to_string()],
    )?;
    // Last: the guards record what is written after them.
    make_guards(tx)
}

/// Why the rows of the index `conn` holds cannot be trusted, `None` when they can: tables
/// changed outside pl-index, or a guard removed or rewritten.
pub(super) fn distrust(conn: &Connection) -> rusqlite::Result<Option<Distrust>> {
    let changed: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [CHANGED], |r| {
            r.get(0)
        })
        .optional()?;
    if let Some(tables) = changed {
        let tables: Vec<String> = tables.split_whitespace().map(str::to_owned).collect();
        return Ok(Some(Distrust::Changed(tables)));
    }
    let mut st = conn.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")?;
    let mut found: Vec<(String, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    found.sort();
    let mut want = guards();
    want.sort();
    if found != want {
        return Ok(Some(Distrust::Unguarded));
    }
    Ok(None)
}

/// Why an index's rows are not trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Distrust {
    /// These tables were changed outside pl-index.
    Changed(Vec<String>),
    /// Its guards were removed or rewritten.
    Unguarded,
    /// Built by an older pl-index: format 5 did not guard its rows, 6 recorded no owners.
    Older(u32),
}

impl Distrust {
    /// Whether the index's parameters (`meta`) may be wrong too: then it cannot be built
    /// again in place.
    pub fn meta(&self) -> bool {
        matches!(self, Distrust::Changed(t) if t.iter().any(|t| t == "meta"))
    }
}

impl std::fmt::Display for Distrust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Distrust::Changed(t) => write!(
                f,
                "changed outside pl-index (table{} {})",
                if t.len() == 1 { "" } else { "s" },
                t.join(", ")
            ),
            Distrust::Unguarded => write!(f, "its guard triggers were removed or changed"),
            Distrust::Older(5) => write!(
                f,
                "built by an older pl-index (format 5), whose rows are not guarded and whose texts were normalized another way"
            ),
            Distrust::Older(7) => write!(
                f,
                "built by an older pl-index (format 7), whose texts were normalized without \
                 their numbers' units and brackets"
            ),
            Distrust::Older(8) => write!(
                f,
                "built by an older pl-index (format 8), whose texts were normalized without \
                 a minus standing alone before an amount or a form's boxes and whose pairs \
                 were judged before a word edited held them apart"
            ),
            Distrust::Older(9) => write!(
                f,
                "built by an older pl-index (format 9), whose pairs were judged before \
                 another passage dropped them and another period held them apart"
            ),
            Distrust::Older(10) => write!(
                f,
                "built by an older pl-index (format 10), whose copy sets joined texts \
                 normalization reads alike but written otherwise (`A-` and `A`)"
            ),
            Distrust::Older(11) => write!(
                f,
                "built by an older pl-index (format 11), whose pairs were judged before \
                 another passage held them apart and a block moved and changed weighed"
            ),
            Distrust::Older(12) => write!(
                f,
                "built by an older pl-index (format 12), whose pairs were judged before \
                 a name titled as another gender (`Ms Wilson`, `Mr Wilson`) held them apart"
            ),
            Distrust::Older(13) => write!(
                f,
                "built by an older pl-index (format 13), whose pairs were judged before \
                 consecutive periods sharing a date held them apart and a damaged copy's \
                 numbers were read with an edit more"
            ),
            Distrust::Older(14) => write!(
                f,
                "built by an older pl-index (format 14), whose pairs were judged before \
                 a day no date has beside a month (`july 35 2019`) weighed as a misread digit"
            ),
            Distrust::Older(n) => write!(
                f,
                "built by an older pl-index (format {n}), which recorded no document's owner \
                 and whose texts were normalized without their numbers' units and brackets"
            ),
        }
    }
}

/// The tables compared by `--verify`, with what each row is read as: `pairs` without the
/// `distinct` of its record (a stored pair keeps the one of the corpus it was scored in).
pub(super) const COMPARED: [&str; 9] = [
    "docs", "bands", "words", "tokens", "few", "pairs", "apart", "groups", "members",
];

/// A table's rows and an order-free digest of them (the sum of each row's hash): a row
/// missing, repeated or changed changes it.
fn digest(conn: &Connection, table: &str) -> rusqlite::Result<(u64, u64)> {
    use rusqlite::types::ValueRef;
    let mut st = conn.prepare(&format!("SELECT * FROM {table}"))?;
    let cols = st.column_count();
    let rec_col = (table == "pairs")
        .then(|| st.column_index("rec"))
        .transpose()?;
    let mut rows = st.query([])?;
    let (mut n, mut sum) = (0u64, 0u64);
    let mut buf: Vec<u8> = Vec::new();
    while let Some(r) = rows.next()? {
        buf.clear();
        for c in 0..cols {
            let v = r.get_ref(c)?;
            if Some(c) == rec_col {
                if let ValueRef::Text(t) = v {
                    buf.extend_from_slice(&without_distinct(t));
                    buf.push(0xff);
                    continue;
                }
            }
            match v {
                ValueRef::Null => buf.push(0),
                ValueRef::Integer(i) => {
                    buf.push(1);
                    buf.extend_from_slice(&i.to_le_bytes());
                }
                ValueRef::Real(x) => {
                    buf.push(2);
                    buf.extend_from_slice(&x.to_bits().to_le_bytes());
                }
                ValueRef::Text(b) | ValueRef::Blob(b) => {
                    buf.push(3);
                    buf.extend_from_slice(&(b.len() as u64).to_le_bytes());
                    buf.extend_from_slice(b);
                }
            }
        }
        n += 1;
        sum = sum.wrapping_add(xxhash_rust::xxh3::xxh3_64(&buf));
    }
    Ok((n, sum))
}

/// A pair's record without its `distinct` (unreadable records as they are).
fn without_distinct(rec: &[u8]) -> Vec<u8> {
    let Ok(mut v) = serde_json::from_slice::<serde_json::Map<String, Value>>(rec) else {
        return rec.to_vec();
    };
    v.shift_remove("distinct");
    serde_json::to_vec(&v).unwrap_or_else(|_| rec.to_vec())
}

/// A table of the index that differs from a fresh build of its documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Differs {
    pub table: &'static str,
    /// Its rows in the index, and in the fresh build.
    pub stored: u64,
    pub built: u64,
}

impl Index {
    /// Why the index's rows are not trusted (see [`Distrust`]), `None` when they are.
    pub fn distrust(&self) -> Option<&Distrust> {
        self.distrust.as_ref()
    }

    /// Builds the index's documents again into a fresh index (in a temporary folder, with
    /// its parameters: as long and as large as a first build) and compares every table
    /// with it: the tables that differ, none when the index is what its documents make.
    pub fn verify(&mut self, log: &Log) -> Result<(u64, Vec<Differs>)> {
        // The documents and the tables compared are read in one read transaction, ended
        // before the fresh build: a writer committing between them made its tables compared
        // with a fresh build of the documents before it, said to differ (and a read held
        // through the build would stall a writer's checkpoint).
        let (docs, sources, mine) = {
            let tx = sql(&self.dir, self.conn.unchecked_transaction())?;
            let (docs, sources) = self.stored_docs()?;
            let mut mine = Vec::new();
            for table in COMPARED {
                mine.push(sql(&self.dir, digest(&tx, table))?);
            }
            (docs, sources, mine)
        };
        let n = docs.len() as u64;
        let tmp = tempfile::Builder::new()
            .prefix("pl-index-verify")
            .tempdir()
            .context("cannot create a temporary folder for the fresh build")?;
        let fresh_dir = tmp.path().join("ix");
        let params = self.params.clone();
        let quiet = Log::new("pl-index", true, false);
        log.info(format!("{n} documents built again to compare"));
        let mut fresh = Index::open(&fresh_dir, &|_| params.clone(), Access::Create, &quiet)?;
        fresh.update(docs, Vec::new(), Vec::new(), &sources, &quiet)?;
        let mut out = Vec::new();
        for (table, mine) in COMPARED.into_iter().zip(mine) {
            let theirs = sql(&fresh.dir, digest(&fresh.conn, table))?;
            if mine != theirs {
                out.push(Differs {
                    table,
                    stored: mine.0,
                    built: theirs.0,
                });
            }
        }
        Ok((n, out))
    }

    /// Every stored document prepared again from its stored line (its fields the primary
    /// rule reads from their columns), by id, with its source hash.
    fn stored_docs(&self) -> Result<(Vec<Prepared>, FxHashMap<u64, u64>)> {
        // An older index (format 5 or 6) has no owners' column: none recorded.
        let owner = match self.sql(has_owner_column(&self.conn))? {
            true => "owner",
            false => "NULL",
        };
        let query = format!("SELECT id, src, line, added, richness, {owner} FROM docs");
        let mut st = self.sql(self.conn.prepare(&query))?;
        let rows = self.sql(st.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)? as u64,
                r.get::<_, i64>(1)? as u64,
                r.get::<_, String>(2)?,
                r.get::<_, Option<i64>>(3)?,
                r.get::<_, u32>(4)?,
                r.get::<_, Option<i64>>(5)?,
            ))
        }))?;
        let mut docs = Vec::new();
        let mut sources = FxHashMap::default();
        for row in rows {
            let (id, src, line, added, richness, owner) = self.sql(row)?;
            let mut p =
                (self.engine.prepare_line(id, line)).map_err(|e| damaged_doc(&self.dir, id, e))?;
            p.meta = DocMeta { added, richness };
            p.owner = owner.map(|o| o as u64);
            sources.insert(id, src);
            docs.push(p);
        }
        docs.sort_unstable_by_key(|p| p.id);
        Ok((docs, sources))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_has_a_guard_for_every_change() {
        let g = guards();
        assert_eq!(g.len(), open::TABLES.len() * 3);
        for t in open::TABLES {
            for e in EVENTS {
                assert!(g.iter().any(
                    |(n, s)| *n == format!("guard_{t}_{e}") && s.contains(&format!(" ON {t} "))
                ));
            }
        }
    }

    #[test]
    fn a_pairs_record_is_compared_without_its_distinct() {
        let a = br#"{"a":1,"b":2,"score":0.9,"distinct":0.5}"#;
        let b = br#"{"a":1,"b":2,"score":0.9,"distinct":0.7}"#;
        let c = br#"{"a":1,"b":2,"score":0.8,"distinct":0.7}"#;
        assert_eq!(without_distinct(a), without_distinct(b));
        assert_ne!(without_distinct(a), without_distinct(c));
        assert_eq!(without_distinct(b"garbage"), b"garbage".to_vec());
    }
}
