//! The persistent index behind pl-index and pl-check: one SQLite database in a folder
//! (`index.sqlite`), holding every document's norm line, whole-text signature and band
//! buckets (whole text, head and tail), the corpus counts scoring needs (documents per word,
//! per distinctive token), the scored pairs that passed and the groups.
//!
//! An update takes the documents that are new, changed or gone, and redoes only what they
//! touch, with the pipeline's own code (normalize, shingle, MinHash, banding, the scorer,
//! the clustering), so its groups are the groups `make groups` gives on the same documents
//! with the same parameters:
//!
//! - candidates: pl-lsh's, looked up in the band table for the touched documents (exact
//!   copies collapsed as pl-lsh collapses them: a copy set's lowest id is banded, the others
//!   paired with it);
//! - scores: with the default scorer a pair's verdict and score depend on the corpus only
//!   through which of the lines 1, 2, 3 and 4+ a word's document count is on (the
//!   verifier's known words, the ledger's damage, known words and rare numbers), and for the
//!   ledger's numbers 4–6 and 7+ (its wide agreement). An update that moves a word to
//!   another line rescores every pair of every document holding the word; the
//!   distinctive tokens' rarity changes the reported `distinct` dimension only (it gates
//!   nothing unless `--distinct-min`/`--distinct-penalty`, which the index does not take),
//!   so a kept pair's `distinct` may be that of the corpus when it was scored;
//! - groups: the connected components of the stored pairs that an update touches (documents
//!   whose pairs or fields changed, or that left, and their old partners) are clustered
//!   again, in pl-score's order; a group never spans two components, so every other group
//!   stays as stored. Groups are numbered when written, in pl-cluster's order.
//!
//! Every update is one transaction (WAL): a killed update leaves the previous index.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use pl_core::cluster::{cluster_with, DocMeta, Linkage, ScoredPair, ScoresLine};
use pl_core::distinct::DocFreq;
use pl_core::lsh::{self, BandRule, Banding, Candidate};
use pl_core::minhash::{MinHasher, Scheme};
use pl_core::normalize::normalize_with_fingerprint;
use pl_core::records::SigRec;
use pl_core::scorer::{ScoreParams, Scorer, Verdict};
use pl_core::shingle::{ShingleConfig, Shingler, Short, Unit};
use pl_core::stream::Part;
use pl_core::text_records::{CandRecord, DocRecord, NormRecord};
use rayon::prelude::*;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::candidates::Cand;
use crate::log::Log;
use crate::score_sides::{counted_words, number_hashes, sides_of_lines, NormTexts, SideOptions};
use crate::score_sigs::Sigs;
use crate::scoring::{score_all, Apart, Inputs, Scoring, Sinks};

mod check;
mod engine;
mod groups;
mod guard;
mod open;
mod prune;
mod recheck;
mod rescore;
mod update;

pub use check::NearDuplicate;
pub use engine::{stored_line, Engine, Params, Prepared};
pub use guard::{Differs, Distrust};
pub use open::Access;
pub use prune::{mass_delete, Pruned};
use rescore::Counts;

/// The index's format; another is refused with both numbers and the way out. 2: pairs with
/// their clustering columns, documents stored as `{"id","norm"}` (1 was the first draft);
/// 5: the pairs held apart (`apart`); 6: the rows guarded ([`guard`]), and texts normalized
/// in NFC with their numbers' signs and separators and every script's digits
/// (`pl_core::normalize`): an index of format 5 is not trusted (its texts are other texts,
/// their fingerprints other copy sets), and a full run builds it again; 7: each document's
/// owner (`docs.owner`, [`pl_core::owners`]), which groups and checks respect: an index of
/// format 5 or 6 is read, not trusted (it knows no owners), and a full run builds it again
/// (the column added in place); 8: texts normalized with their numbers' units, comparisons
/// and brackets and a debit's trailing minus (`$174.65`, `<5`, `(174.65)`, `174,65-`): an
/// index of format 7 is read, not trusted (its texts are other texts), and a full run builds
/// it again; 9: a minus standing alone before an amount kept as its sign (`Saldo - 5,00` is
/// `saldo -5,00`) and a form's boxes and a word's final `+` kept (`☒`, `☐`, `A+`), and pairs
/// held apart for a word edited (`pl_core::scorer`): format 8 is read, not trusted; 10: pairs
/// dropped for another passage and held apart for another period (`pl_core::period`): format
/// 9 is read, not trusted (its pairs were judged before); 11: fingerprints of the text as
/// written too (`pl_core::normalize::fingerprint`), stored in each document's line: format
/// 10 is read, not trusted (its copy sets joined texts written otherwise); 12: pairs held apart
/// for another passage in a clean pair, a block moved and changed weighed as conflicts: format
/// 11 is read, not trusted; 13: pairs held apart for a name titled as another gender
/// (`Ms Wilson`, `Mr Wilson`): format 12 is read, not trusted; 14: pairs held apart for
/// consecutive periods sharing a date, and a damaged copy's numbers read with an edit more:
/// format 13 is read, not trusted; 15: a day no date has beside a month weighed as a misread
/// digit: format 14 is read, not trusted.
pub const FORMAT: u32 = 15;

/// Words held by at most this many documents keep their postings (`few`): every document
/// count the scorer's rules tell apart is at most one more (the verifier's known words, 2; the
/// ledger's rare numbers and known words, 3 and 4); for the ledger's numbers, also its wide
/// agreement's (6 and 7).
fn few_max(number: bool) -> i64 {
    let last = if number {
        pl_core::ledger::WIDE_DF
    } else {
        pl_core::ledger::RARE_DF
    };
    i64::from(last) + 1
}

/// Document counts up to which every change of a word's count crosses a count line
/// ([`count_line`]: 1, 2, 3 and 4 are each on their own for words and numbers): beyond it,
/// the verifier's known word (a document with another text has it) can still change where
/// the count of one copy set's text moves.
const TEXT_LINES: i64 = pl_core::ledger::RARE_DF as i64;

/// Which of the scorer's count lines a word's document count is on: a word that moves to
/// another rescores its holders (1: unknown, 2: known, 3: known to the ledger and rare to it,
/// 4: no longer rare; a number on 4 is still in the wide agreement, on 5 in neither).
fn count_line(n: i64, number: bool) -> i64 {
    const RARE: i64 = pl_core::ledger::RARE_DF as i64;
    match n {
        ..=1 => 1,
        2..=RARE => n,
        _ if n < few_max(number) => RARE + 1,
        _ => RARE + 2,
    }
}
/// The database file in the index folder.
pub const DB_FILE: &str = "index.sqlite";

/// A stored row that does not read (`row`: its table and record): refused, naming the
/// database and the row, with how to build the index again.
fn damaged_row(
    dir: &Path,
    row: impl std::fmt::Display,
    e: impl std::fmt::Display,
) -> anyhow::Error {
    anyhow!(
        "{}: {row}: damaged record ({e}): {}",
        dir.join(DB_FILE).display(),
        open::rebuild(dir)
    )
}

/// A stored document's line that does not read.
pub(crate) fn damaged_doc(dir: &Path, id: u64, e: impl std::fmt::Display) -> anyhow::Error {
    damaged_row(dir, format_args!("table docs, document {id}"), e)
}

/// The fields of a stored document's norm line.
pub fn stored_norm<'a>(
    dir: &Path,
    id: u64,
    line: &'a str,
) -> Result<crate::ndjson::NormFields<'a>> {
    crate::ndjson::norm_record(line, "not a line pl-index stored")
        .map_err(|e| damaged_doc(dir, id, e))
}

/// What an update did.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Summary {
    pub added: usize,
    pub changed: usize,
    pub relabeled: usize,
    pub deleted: usize,
    pub unchanged: usize,
    /// Documents whose pairs were found and scored again.
    pub rescored_docs: usize,
    /// Words that became known or unknown (in two documents or more, or fewer).
    pub flipped_words: usize,
    pub pairs_scored: usize,
    pub pairs_kept: usize,
    pub groups: usize,
    /// Built from scratch (every candidate found and scored as pl-lsh and pl-score would).
    pub bulk: bool,
}

/// The index: its folder, database and parameters.
pub struct Index {
    pub dir: PathBuf,
    conn: Connection,
    pub params: Params,
    pub engine: Engine,
    /// Why its rows are not trusted ([`guard`]): an update builds it again from scratch.
    distrust: Option<Distrust>,
    /// The writers' lock ([`open::Access`]), held while the index is open for writing (or
    /// shared, while a reader reads the file as it is).
    _lock: Option<std::fs::File>,
}

fn sql<T>(dir: &Path, r: rusqlite::Result<T>) -> Result<T> {
    use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
    r.map_err(|e| {
        let db = dir.join(DB_FILE);
        match e.sqlite_error_code() {
            // Found by a statement after the open (a file cut short or overwritten in the
            // middle): the same way out as a file found damaged when opened.
            Some(DatabaseCorrupt | NotADatabase) => {
                anyhow!(
                    "{}: damaged index ({e}): {}",
                    db.display(),
                    open::rebuild(dir)
                )
            }
            _ => anyhow!("{}: index database: {e}", db.display()),
        }
    })
}

fn sig_blob(sig: &[u32]) -> Vec<u8> {
    sig.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A stored signature of `perms` values; a blob of another length is refused.
fn blob_sig(b: &[u8], perms: usize) -> Result<Vec<u32>, String> {
    if b.len() != 4 * perms {
        return Err(format!(
            "a signature of {} bytes, not {} ({perms} values)",
            b.len(),
            4 * perms
        ));
    }
    Ok(b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The hash a docs line is recognized by from one run to the next.
pub fn src_hash(line: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(line.trim_end().as_bytes())
}

impl Index {
    fn sql<T>(&self, r: rusqlite::Result<T>) -> Result<T> {
        sql(&self.dir, r)
    }

    /// Documents in the index.
    pub fn docs(&self) -> Result<u64> {
        let n: i64 = self.sql(
            self.conn
                .query_row("SELECT count(*) FROM docs", [], |r| r.get(0)),
        )?;
        Ok(n as u64)
    }

    /// The stored documents' source hashes, by id.
    pub fn sources(&self) -> Result<FxHashMap<u64, u64>> {
        let mut st = self.sql(self.conn.prepare("SELECT src, id FROM docs"))?;
        let rows = self.sql(st.query_map([], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64))
        }))?;
        let mut out = FxHashMap::default();
        for row in rows {
            let (src, id) = self.sql(row)?;
            out.insert(src, id);
        }
        Ok(out)
    }

    /// The fingerprints and normalized texts of the stored documents among `ids`.
    pub fn texts_of(&self, ids: &[u64]) -> Result<FxHashMap<u64, (u128, String)>> {
        let mut st = self.sql(self.conn.prepare("SELECT fp, line FROM docs WHERE id=?1"))?;
        let mut out = FxHashMap::default();
        for &id in ids {
            let row: Option<(Vec<u8>, String)> = self.sql(
                st.query_row([id as i64], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional(),
            )?;
            if let Some((fp, line)) = row {
                let fp =
                    u128::from_le_bytes(fp.try_into().map_err(|_| anyhow!("bad fingerprint"))?);
                let norm = stored_norm(&self.dir, id, &line)?.norm.into_owned();
                out.insert(id, (fp, norm));
            }
        }
        Ok(out)
    }

    /// The stored groups, as pl-cluster writes them.
    pub fn groups(&self, out: &mut impl Write) -> Result<usize> {
        // pl-cluster's order: confidence as written, highest first; then the smallest member,
        // as u64 (stored as i64, ids from 2^63 are negative: they come last, in their order).
        let mut st =
            self.sql(self.conn.prepare(
                "SELECT first, rec FROM groups ORDER BY confidence DESC, first < 0, first",
            ))?;
        let rows =
            self.sql(st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))))?;
        let mut n = 0;
        for row in rows {
            n += 1;
            let (first, rec) = self.sql(row)?;
            let line = format!("{{\"group\":{n},{rec}");
            // A record damaged outside pl-index is refused, never written on as a group.
            if let Err(e) = pl_core::fields::parse_object(&line) {
                let row = format!("table groups, the group of document {}", first as u64);
                return Err(damaged_row(&self.dir, row, e));
            }
            writeln!(out, "{line}")?;
        }
        Ok(n)
    }

    /// Applies a change of the library: `docs` the new or changed documents (prepared),
    /// `relabeled` those whose text is the same but whose other fields changed, `deleted`
    /// the ids gone, `sources` each new source hash. One transaction.
    pub fn update(
        &mut self,
        docs: Vec<Prepared>,
        relabeled: Vec<Prepared>,
        deleted: Vec<u64>,
        sources: &FxHashMap<u64, u64>,
        log: &Log,
    ) -> Result<Summary> {
        let before = self.docs()?;
        let dir = self.dir.clone();
        let mut summary = Summary {
            relabeled: relabeled.len(),
            deleted: deleted.len(),
            ..Summary::default()
        };
        let tx = sql(&dir, self.conn.transaction())?;
        // Unseen by the guards; rows that cannot be trusted are built again from `docs`.
        sql(&dir, guard::unseal(&tx, self.distrust.is_some()))?;
        let before = if self.distrust.is_some() { 0 } else { before };
        let ix = Tx {
            tx: &tx,
            dir: &dir,
            engine: &self.engine,
        };
        for p in &relabeled {
            ix.exec(
                "UPDATE docs SET src=?2, line=?3, added=?4, richness=?5, owner=?6 WHERE id=?1",
                params![
                    p.id as i64,
                    sources[&p.id] as i64,
                    p.line,
                    p.meta.added,
                    p.meta.richness,
                    p.owner.map(|o| o as i64)
                ],
            )?;
        }
        let (started, clustered) = if before == 0 {
            summary.added = docs.len();
            summary.bulk = true;
            ix.bulk(docs, sources, &mut summary, log)?;
            let started = std::time::Instant::now();
            summary.groups = ix.cluster_all()?;
            (started, "every component".to_owned())
        } else {
            let mut touched = ix.incremental(docs, deleted, sources, &mut summary, log)?;
            touched.extend(relabeled.iter().map(|p| p.id));
            let started = std::time::Instant::now();
            let (groups, reached) = ix.recluster(touched)?;
            summary.groups = groups;
            (
                started,
                format!("the touched components ({reached} documents)"),
            )
        };
        log.info(format!(
            "{} groups; {clustered} clustered in {:.2} s",
            summary.groups,
            started.elapsed().as_secs_f64()
        ));
        let n = ix.count_of("docs")?;
        ix.exec("UPDATE meta SET value=?1 WHERE key='docs'", [n.to_string()])?;
        // The first build finished (see `open::Access`: until then only pl-index opens it).
        ix.exec(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('built', '1')",
            [],
        )?;
        sql(&dir, guard::seal(&tx))?;
        sql(&dir, tx.commit())?;
        self.distrust = None;
        // The write-ahead log folded into the database and emptied: a bulk build's log is as
        // large as the index. Best effort: the update is committed, and a reader still in the
        // log only postpones this to the next writer.
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        Ok(summary)
    }

    /// Turns the explanations (`--explain` of pl-score) on or off for what [`Index::check`]
    /// scores. An update stores pairs as pl-index scores them: without (pl-check --add
    /// stored its explained records, which a fresh build does not have).
    pub fn explain(&mut self, on: bool) -> Result<()> {
        self.engine = Engine::new(&self.params, on)?;
        Ok(())
    }
}

/// The open transaction of an update or a check.
struct Tx<'a> {
    tx: &'a Transaction<'a>,
    dir: &'a Path,
    engine: &'a Engine,
}

impl Tx<'_> {
    fn exec(&self, q: &str, p: impl rusqlite::Params) -> Result<usize> {
        sql(
            self.dir,
            self.tx.prepare_cached(q).and_then(|mut s| s.execute(p)),
        )
    }

    /// The rows of `table` (one of the schema's).
    fn count_of(&self, table: &str) -> Result<u64> {
        let query = format!("SELECT count(*) FROM {table}");
        let n: i64 = sql(self.dir, self.tx.query_row(&query, [], |r| r.get(0)))?;
        Ok(n as u64)
    }

    fn insert_doc(&self, p: &Prepared, src: u64, banded: bool) -> Result<()> {
        self.exec(
            "INSERT INTO docs(id, src, fp, size, sig, banded, added, richness, line, owner) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                p.id as i64,
                src as i64,
                p.fp.to_le_bytes().to_vec(),
                p.sig.as_ref().map(|s| s.size as i64),
                p.sig.as_ref().map(|s| sig_blob(&s.sig)),
                banded,
                p.meta.added,
                p.meta.richness,
                p.line,
                p.owner.map(|o| o as i64)
            ],
        )?;
        Ok(())
    }

    fn set_keys(&self, id: u64, keys: &[(u32, u64)], on: bool) -> Result<()> {
        let q = if on {
            "INSERT OR IGNORE INTO bands(key, slot, id) VALUES (?1, ?2, ?3)"
        } else {
            "DELETE FROM bands WHERE key=?1 AND slot=?2 AND id=?3"
        };
        for &(slot, key) in keys {
            self.exec(q, params![key as i64, slot, id as i64])?;
        }
        Ok(())
    }

    /// Records the size of each bucket of `keys` not yet in `sizes`, before it changes.
    fn note_sizes(
        &self,
        keys: &[(u32, u64)],
        sizes: &mut FxHashMap<(u32, u64), usize>,
    ) -> Result<()> {
        for &(slot, key) in keys {
            if let std::collections::hash_map::Entry::Vacant(e) = sizes.entry((slot, key)) {
                e.insert(self.whole_bucket(slot, key)?.len());
            }
        }
        Ok(())
    }

    /// The banded documents of one bucket, all of them.
    fn whole_bucket(&self, slot: u32, key: u64) -> Result<Vec<u64>> {
        lsh::Buckets::bucket(self, slot, key, usize::MAX)
    }

    /// The document ids a one-column query returns.
    fn ids(&self, query: &str, args: impl rusqlite::Params) -> Result<Vec<u64>> {
        self.rows(query, args, |r| Ok(r.get::<_, i64>(0)? as u64))
    }

    /// The row `query` selects, if any, mapped by `f`.
    fn row<T>(
        &self,
        query: &str,
        args: impl rusqlite::Params,
        f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Option<T>> {
        sql(
            self.dir,
            self.tx
                .prepare_cached(query)
                .and_then(|mut s| s.query_row(args, f).optional()),
        )
    }

    /// The rows `query` selects, each mapped by `f`.
    fn rows<T>(
        &self,
        query: &str,
        args: impl rusqlite::Params,
        f: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let mut st = sql(self.dir, self.tx.prepare_cached(query))?;
        let rows = sql(self.dir, st.query_map(args, f))?;
        rows.map(|r| sql(self.dir, r)).collect()
    }

    /// Adds `delta` to the counts of `table`; returns each count changed, `(hash, old, new)`.
    fn add_counts(&self, table: &str, delta: &FxHashMap<u64, i64>) -> Result<Vec<(u64, i64, i64)>> {
        let mut keys: Vec<&u64> = delta.keys().collect();
        keys.sort_unstable();
        let get = format!("SELECT n FROM {table} WHERE hash=?1");
        let put = format!("INSERT OR REPLACE INTO {table}(hash, n) VALUES (?1, ?2)");
        let del = format!("DELETE FROM {table} WHERE hash=?1");
        let mut flipped = Vec::new();
        for &h in keys {
            let d = delta[&h];
            if d == 0 {
                continue;
            }
            let old: i64 = self.row(&get, [h as i64], |r| r.get(0))?.unwrap_or(0);
            let new = old + d;
            if new < 0 {
                bail!(
                    "{}: index counts inconsistent (word {h:x})",
                    self.dir.display()
                );
            }
            flipped.push((h, old, new));
            if new == 0 {
                self.exec(&del, [h as i64])?;
            } else {
                self.exec(&put, [h as i64, new])?;
            }
        }
        Ok(flipped)
    }

    fn stored(&self, id: u64) -> Result<Option<(Prepared, bool)>> {
        let row: Option<(String, bool)> = self.row(
            "SELECT line, banded FROM docs WHERE id=?1",
            [id as i64],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        match row {
            Some((line, banded)) => {
                let p = (self.engine.prepare_line(id, line))
                    .map_err(|e| damaged_doc(self.dir, id, e))?;
                Ok(Some((p, banded)))
            }
            None => Ok(None),
        }
    }

    /// The documents with this fingerprint and their signatures, by id (as u64: SQLite's
    /// order of the stored i64 would put ids from 2^63 first).
    fn same_text(&self, fp: u128) -> Result<Vec<(u64, Option<Vec<u32>>)>> {
        let rows = self.rows(
            "SELECT id, sig FROM docs WHERE fp=?1",
            [fp.to_le_bytes().to_vec()],
            |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, Option<Vec<u8>>>(1)?)),
        )?;
        let mut out = rows
            .into_iter()
            .map(|(id, b)| Ok((id, b.map(|b| self.sig_of(id, &b)).transpose()?)))
            .collect::<Result<Vec<_>>>()?;
        out.sort_unstable_by_key(|(id, _)| *id);
        Ok(out)
    }

    /// Document `id`'s stored signature `b`, refused as damaged when it is not one.
    fn sig_of(&self, id: u64, b: &[u8]) -> Result<Vec<u32>> {
        blob_sig(b, self.engine.hasher.perms()).map_err(|e| damaged_doc(self.dir, id, e))
    }

    /// Banded documents sharing enough buckets of one sketch with `keys` (`id`'s) under the
    /// band rule, with the most bands any sketch shares: [`lsh::candidates_of`] over the
    /// stored buckets, as pl-lsh finds them.
    fn lookup(&self, id: u64, keys: &[(u32, u64)]) -> Result<Vec<(u64, u32)>> {
        lsh::candidates_of(id, keys, self, self.engine.rule, |slot| {
            self.engine.part_of_slot(slot)
        })
    }

    /// The banded documents sharing at least [`lsh::NUMBER_MATCHES`] of `numbers` (`id`'s)
    /// that at most [`lsh::NUMBER_BUCKET`] documents hold under `counts`, as pl-lsh --numbers
    /// pairs them: the postings of such numbers are kept (`few`).
    fn number_partners(&self, id: u64, numbers: &[u64], counts: &Counts) -> Result<Vec<u64>> {
        let mut shared: BTreeMap<u64, u32> = BTreeMap::new();
        for &h in numbers {
            if !counts.pairing_number(h)? {
                continue;
            }
            let others = self.ids(
                "SELECT f.id FROM few f JOIN docs d ON d.id = f.id WHERE f.hash=?1 AND d.banded=1",
                [h as i64],
            )?;
            for other in others.into_iter().filter(|&o| o != id) {
                *shared.entry(other).or_default() += 1;
            }
        }
        Ok(shared
            .into_iter()
            .filter(|&(_, n)| n >= lsh::NUMBER_MATCHES)
            .map(|(o, _)| o)
            .collect())
    }

    /// The numbers of a stored document as pl-lsh --numbers reads them.
    fn stored_numbers(&self, id: u64) -> Result<Vec<u64>> {
        let line: Option<String> =
            self.row("SELECT line FROM docs WHERE id=?1", [id as i64], |r| {
                r.get(0)
            })?;
        let Some(line) = line else {
            return Ok(Vec::new());
        };
        let f = stored_norm(self.dir, id, &line)?;
        Ok(number_hashes(&f.norm, self.engine.scoring.opts.max_words))
    }

    /// Stores a line of pl-score's output: a kept pair (its record, and what clustering reads
    /// of it in columns), or a pair held apart.
    fn insert_pair(&self, rec: &str) -> Result<()> {
        let o = pl_core::fields::parse_object(rec).map_err(|e| anyhow!("{e}"))?;
        match ScoresLine::from_obj(&o).map_err(|e| anyhow!("{e}"))? {
            ScoresLine::Kept(p) => self.exec(
                "INSERT INTO pairs(a, b, score, jaccard, fuzzy, copy, rec) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![p.a as i64, p.b as i64, p.score, p.jaccard, p.fuzzy, p.copy, rec],
            ),
            ScoresLine::Apart(a, b) => self.hold_apart(a, b),
        }
        .map(|_| ())
    }

    /// Stores a pair held apart.
    fn hold_apart(&self, a: u64, b: u64) -> Result<usize> {
        self.exec(
            "INSERT INTO apart(a, b) VALUES (?1, ?2)",
            [a as i64, b as i64],
        )
    }

    /// The documents posted for a rare word.
    fn posted(&self, h: u64) -> Result<Vec<u64>> {
        self.ids("SELECT id FROM few WHERE hash=?1", [h as i64])
    }
}

/// The stored buckets, for [`lsh::candidates_of`]: a bucket's banded documents, at most
/// `limit` of them (enough to tell a bucket over --max-bucket without reading the thousands a
/// template's boilerplate gathers).
impl lsh::Buckets for Tx<'_> {
    type Error = anyhow::Error;
    fn bucket(&self, slot: u32, key: u64, limit: usize) -> Result<Vec<u64>> {
        self.ids(
            "SELECT id FROM bands WHERE key=?1 AND slot=?2 LIMIT ?3",
            params![key as i64, slot, i64::try_from(limit).unwrap_or(-1)],
        )
    }
}

/// A candidate pair as pl-score reads pl-lsh's line of it.
fn cand_of(c: Candidate, copy: bool) -> Result<Cand> {
    let line = serde_json::to_string(&CandRecord {
        a: c.a,
        b: c.b,
        bands: c.bands.into(),
        copy,
    })?;
    Cand::parse(&line).map_err(|e| anyhow!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_parameters_are_named_with_both_values() {
        let p = Params::default();
        assert_eq!(p.differs(&p.clone()), None);
        let score = ScoreParams {
            threshold: 0.8,
            allow_conflicts: 1.0,
            ..ScoreParams::default()
        };
        let asked = Params {
            bands: 16,
            score: score.clone(),
            ..Params::default()
        };
        // The first that differs, in the flags' order.
        assert_eq!(
            p.differs(&asked).as_deref(),
            Some("built with --bands 32, asked for --bands 16")
        );
        let asked = Params {
            score,
            ..Params::default()
        };
        assert_eq!(
            p.differs(&asked).as_deref(),
            Some("built with --threshold 0.5, asked for --threshold 0.8")
        );
    }

    #[test]
    fn an_index_recorded_before_the_score_was_the_probability_keeps_its_gates() {
        // Recorded by the build before: `threshold` was the similarity's minimum.
        let old = serde_json::to_value(Params::default()).unwrap();
        let mut old = old.as_object().unwrap().clone();
        old.remove("min_similarity");
        old.insert("threshold".into(), serde_json::json!(0.7));
        old.insert("min_probability".into(), serde_json::json!(0.4));
        let json = serde_json::Value::Object(old.clone()).to_string();
        let p = Params::from_recorded(&json).unwrap();
        assert_eq!((p.score.min_similarity, p.score.threshold), (0.7, 0.4));
        // Before the probability had a minimum, none was applied.
        old.remove("min_probability");
        let json = serde_json::Value::Object(old).to_string();
        let p = Params::from_recorded(&json).unwrap();
        assert_eq!((p.score.min_similarity, p.score.threshold), (0.7, 0.0));
        // What this build records reads back as itself.
        let now = serde_json::to_string(&Params::default()).unwrap();
        assert_eq!(Params::from_recorded(&now).unwrap(), Params::default());
    }

    #[test]
    fn an_index_recorded_before_every_scoring_parameter_reads_them_as_defaults() {
        // The parameters as an index made before `ScoreParams` recorded them.
        let old = r#"{"unit":"chars","ngram":5,"min_words":20,"perms":256,"seed":42,
            "scheme":"classic","bands":32,"min_band_matches":1,"max_bucket":50,
            "edge_words":60,"numbers":1,"threshold":0.7,"jaccard_weight":0.55,
            "fuzzy_weight":0.45,"fuzzy_sample":10000,"max_words":20000,"linkage":"average"}"#;
        let p = Params::from_recorded(old).unwrap();
        let expected = ScoreParams {
            min_similarity: 0.7,
            threshold: 0.0,
            ..ScoreParams::default()
        };
        assert_eq!(p.score, expected);
        let again = Params::from_recorded(&serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!(again, p);
    }

    #[test]
    fn signatures_round_trip_through_their_blobs() {
        let sig = vec![0, 1, u32::MAX, 0x0102_0304];
        assert_eq!(blob_sig(&sig_blob(&sig), 4), Ok(sig.clone()));
        assert!(
            blob_sig(&sig_blob(&sig)[1..], 4).is_err(),
            "a damaged blob is refused"
        );
        assert_eq!(sig_blob(&sig).len(), 16);
    }

    #[test]
    fn a_docs_line_is_recognized_whatever_its_line_end() {
        assert_eq!(src_hash("{\"id\":1}\n"), src_hash("{\"id\":1}"));
        assert_ne!(src_hash("{\"id\":1}"), src_hash("{\"id\":2}"));
    }

    #[test]
    fn a_document_is_prepared_as_the_pipeline_sees_it() {
        let e = Engine::new(&Params::default(), false).unwrap();
        let text: String = (0..200).map(|i| format!("Word{i} ")).collect();
        let o = pl_core::fields::parse_object(&format!(
            "{{\"id\":7,\"content\":{}}}",
            serde_json::to_string(&text).unwrap()
        ))
        .unwrap();
        let p = e.prepare_doc(DocRecord::from_obj(o).unwrap()).unwrap();
        assert_eq!(p.id, 7);
        // Whole text, head and tail: 32 band keys each.
        assert_eq!(p.keys.len(), 96);
        assert!(p.line.starts_with("{\"id\":7,\"norm\":\"word0 word1"));
        // The same line prepared again gives the same keys and words.
        let q = e.prepare_line(7, p.line.clone()).unwrap();
        assert_eq!((q.keys, q.words, q.fp), (p.keys, p.words, p.fp));
        // An empty text has no signature and no keys (pl-minhash leaves it out).
        let o = pl_core::fields::parse_object("{\"id\":8,\"content\":\"\"}").unwrap();
        let p = e.prepare_doc(DocRecord::from_obj(o).unwrap()).unwrap();
        assert!(p.sig.is_none() && p.keys.is_empty());
    }
}
