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
//!   through which of the lines 1, 2, 3, 4–6 and 7+ a word's document count is on (the
//!   verifier's known words, the ledger's damage, known words, rare numbers and wide agreement). An update that moves a
//!   word to another line rescores every pair of every document holding the word; the
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
use pl_core::cluster::{cluster_with, DocMeta, Linkage, ScoredPair};
use pl_core::distinct::DocFreq;
use pl_core::lsh::{self, BandRule, Banding, Candidate};
use pl_core::minhash::{MinHasher, Scheme};
use pl_core::normalize::{fingerprint, normalize};
use pl_core::records::SigRec;
use pl_core::score::Weights;
use pl_core::scorer::{Config, Scorer, Verdict, Verifier};
use pl_core::shingle::{ShingleConfig, Shingler, Short, Unit};
use pl_core::stream::Part;
use pl_core::text_records::{CandRecord, DocRecord};
use rayon::prelude::*;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::candidates::Cand;
use crate::common::Log;
use crate::score_sides::{counted_words, sides_of_lines, NormTexts, SideOptions};
use crate::scoring::{score_all, Inputs, Scoring, Sinks};

mod open;
pub use open::Access;

/// The index's format; another is refused with both numbers and the way out. 2: pairs with
/// their clustering columns, documents stored as `{"id","norm"}` (1 was the first draft).
pub const FORMAT: u32 = 4;

/// Words held by at most this many documents keep their postings (`few`): every document
/// count the scorer's rules tell apart is at most one more (the verifier's known words, 2; the
/// ledger's rare numbers and known words, 3 and 4; its wide agreement, 6 and 7).
const FEW_MAX: i64 = pl_core::ledger::WIDE_DF as i64 + 1;

/// Which of the scorer's count lines a word's document count is on: a word that moves to
/// another rescores its holders (1: unknown, 2: known, 3: known to the ledger and rare to it,
/// 4: no longer rare, still in the wide agreement, 5: in neither).
fn count_line(n: i64) -> i64 {
    const RARE: i64 = pl_core::ledger::RARE_DF as i64;
    match n {
        ..=1 => 1,
        2..=RARE => n,
        _ if n < FEW_MAX => RARE + 1,
        _ => RARE + 2,
    }
}
/// The database file in the index folder.
pub const DB_FILE: &str = "index.sqlite";

/// The parameters an index is built with, recorded at creation; the defaults are pipeline.mk's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub unit: String,
    pub ngram: usize,
    pub min_words: usize,
    pub perms: usize,
    pub seed: u64,
    pub scheme: String,
    pub bands: usize,
    pub min_band_matches: u32,
    /// An index built before the limit existed paired every bucket: 0.
    #[serde(default)]
    pub max_bucket: usize,
    pub edge_words: usize,
    pub threshold: f64,
    pub jaccard_weight: f64,
    pub fuzzy_weight: f64,
    pub fuzzy_sample: usize,
    pub max_words: usize,
    pub linkage: String,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            unit: "chars".into(),
            ngram: pl_core::shingle::DEFAULT_NGRAM,
            min_words: pl_core::shingle::DEFAULT_MIN_WORDS,
            perms: 256,
            seed: 42,
            scheme: "classic".into(),
            bands: 32,
            min_band_matches: 1,
            max_bucket: pl_core::lsh::DEFAULT_MAX_BUCKET,
            edge_words: 60,
            threshold: pl_core::score::DEFAULT_THRESHOLD,
            jaccard_weight: Weights::default().jaccard,
            fuzzy_weight: Weights::default().fuzzy,
            fuzzy_sample: pl_core::score::DEFAULT_FUZZY_SAMPLE,
            max_words: pl_core::verify::DEFAULT_MAX_WORDS,
            linkage: "average".into(),
        }
    }
}

impl Params {
    /// The parameters as `--flag value` pairs, in a fixed order, for messages.
    pub fn flags(&self) -> Vec<(&'static str, String)> {
        vec![
            ("--unit", self.unit.clone()),
            ("--ngram", self.ngram.to_string()),
            ("--min-words", self.min_words.to_string()),
            ("--perms", self.perms.to_string()),
            ("--seed", self.seed.to_string()),
            ("--scheme", self.scheme.clone()),
            ("--bands", self.bands.to_string()),
            ("--min-band-matches", self.min_band_matches.to_string()),
            ("--max-bucket", self.max_bucket.to_string()),
            ("--edge-words", self.edge_words.to_string()),
            ("--threshold", self.threshold.to_string()),
            ("--jaccard-weight", self.jaccard_weight.to_string()),
            ("--fuzzy-weight", self.fuzzy_weight.to_string()),
            ("--fuzzy-sample", self.fuzzy_sample.to_string()),
            ("--max-words", self.max_words.to_string()),
            ("--linkage", self.linkage.clone()),
        ]
    }

    /// The first parameter `asked` gives another value than `self` (the index's), as a
    /// message; `None` when they agree.
    pub fn differs(&self, asked: &Params) -> Option<String> {
        self.flags()
            .into_iter()
            .zip(asked.flags())
            .find(|((_, x), (_, y))| x != y)
            .map(|((flag, x), (_, y))| format!("built with {flag} {x}, asked for {flag} {y}"))
    }
}

/// What the parameters make of the pipeline's code.
pub struct Engine {
    whole: ShingleConfig,
    parts: Vec<ShingleConfig>,
    hasher: MinHasher,
    banding: Banding,
    rule: BandRule,
    pub scoring: Scoring,
    linkage: Linkage,
}

impl Engine {
    pub fn new(p: &Params, explain: bool) -> Result<Engine> {
        let unit = match p.unit.as_str() {
            "chars" => Unit::Chars,
            "words" => Unit::Words,
            u => bail!("unit {u:?}: expected chars or words"),
        };
        let scheme = match p.scheme.as_str() {
            "classic" => Scheme::Classic,
            "oph" => Scheme::Oph,
            s => bail!("scheme {s:?}: expected classic or oph"),
        };
        let linkage = match p.linkage.as_str() {
            "average" => Linkage::Average,
            "single" => Linkage::Single,
            l => bail!("linkage {l:?}: expected average or single"),
        };
        if p.ngram == 0 {
            bail!("--ngram must be at least 1");
        }
        // The stages' own checks (usage errors, as there).
        crate::common::check_min_words(p.min_words)?;
        crate::common::check_weights(p.jaccard_weight, p.fuzzy_weight)?;
        let whole = ShingleConfig {
            ngram: p.ngram,
            unit,
            short: Short::Whole,
            min_words: p.min_words,
            part: Part::Whole,
            part_words: 0,
        };
        let parts = if p.edge_words == 0 {
            Vec::new()
        } else {
            [Part::Head, Part::Tail]
                .map(|part| ShingleConfig {
                    part,
                    part_words: p.edge_words,
                    ..whole
                })
                .to_vec()
        };
        let banding = Banding::new(p.perms, p.bands)?;
        if p.min_band_matches as usize > p.bands || p.min_band_matches == 0 {
            bail!(
                "--min-band-matches {} must be from 1 to the {} bands",
                p.min_band_matches,
                p.bands
            );
        }
        let config = Config {
            threshold: p.threshold,
            weights: Weights {
                jaccard: p.jaccard_weight,
                fuzzy: p.fuzzy_weight,
            },
            containment: true,
            verifier: Some(Verifier::default()),
            distinct_min: 0.0,
            distinct_penalty: 0.0,
            rescue: Some(pl_core::ledger::Rescue::default()),
        };
        Ok(Engine {
            whole,
            parts,
            hasher: MinHasher::with_scheme(p.perms, p.seed, scheme),
            banding,
            rule: BandRule::new(p.min_band_matches, p.max_bucket),
            scoring: Scoring {
                config,
                fuzzy: p.fuzzy_weight > 0.0,
                explain,
                opts: SideOptions {
                    verify: true,
                    max_words: p.max_words,
                    fuzzy_sample: p.fuzzy_sample,
                    sort_words: false,
                    explain,
                },
                budget: 512 << 20,
            },
            linkage,
        })
    }

    /// A docs record normalized as pl-normalize does, with its signature, band keys and words.
    pub fn prepare_doc(&self, doc: DocRecord) -> Result<Prepared, String> {
        let mut norm = String::new();
        normalize(doc.text().map_err(|e| e.to_string())?, &mut norm);
        let meta = DocMeta::from_record(&doc);
        let line = stored_line(doc.id, &norm)?;
        Ok(self.prepare(doc.id, line, norm, meta))
    }

    /// A stored norm line, prepared again (its band keys and words).
    pub fn prepare_line(&self, id: u64, line: String) -> Result<Prepared> {
        let o = pl_core::fields::parse_object(&line)
            .map_err(|e| anyhow!("document {id}: stored line: {e}"))?;
        let norm = match o.get("norm") {
            Some(Value::String(s)) => s.clone(),
            _ => bail!("document {id}: stored line has no \"norm\""),
        };
        let doc = DocRecord::from_obj(o).map_err(|e| anyhow!("document {id}: {e}"))?;
        let meta = DocMeta::from_record(&doc);
        Ok(self.prepare(id, line, norm, meta))
    }

    fn prepare(&self, id: u64, line: String, norm: String, meta: DocMeta) -> Prepared {
        let fp = fingerprint(&norm);
        let mut sh = Shingler::default();
        let mut sign = |config: &ShingleConfig| -> Option<(u64, Vec<u32>)> {
            config.shingle(&norm, &mut sh)?;
            let mut sig = vec![0u32; self.hasher.perms()];
            self.hasher.signature(&sh.hashes, &mut sig);
            Some((sh.hashes.len() as u64, sig))
        };
        let sig = sign(&self.whole).map(|(size, sig)| SigRec {
            id,
            fingerprint: fp,
            size,
            sig,
        });
        let mut keys = Vec::new();
        if let Some(s) = &sig {
            let b = self.banding.bands as u32;
            keys.extend((0..b).map(|i| (i, self.banding.key(&s.sig, i as usize))));
            for (p, config) in self.parts.iter().enumerate() {
                if let Some((_, part)) = sign(config) {
                    let base = b * (p as u32 + 1);
                    keys.extend((0..b).map(|i| (base + i, self.banding.key(&part, i as usize))));
                }
            }
        }
        let (tokens, words) = counted_words(&norm, &self.scoring.opts);
        Prepared {
            id,
            line,
            fp,
            sig,
            keys,
            meta,
            tokens,
            words,
        }
    }

    /// The sketch a band slot belongs to: 0 whole text, 1 head, 2 tail.
    fn part_of_slot(&self, slot: u32) -> usize {
        slot as usize / self.banding.bands
    }
}

/// What the index keeps of a document's norm record: its id and normalized text, all that
/// scoring reads (`--norm` of pl-score takes such lines too); the fields the primary rule
/// reads are kept apart (`added`, `richness`), and a change is noticed by the docs line's hash.
pub fn stored_line(id: u64, norm: &str) -> Result<String, String> {
    #[derive(Serialize)]
    struct Line<'a> {
        id: u64,
        norm: &'a str,
    }
    serde_json::to_string(&Line { id, norm }).map_err(|e| e.to_string())
}

/// One document ready for the index.
pub struct Prepared {
    pub id: u64,
    /// Its stored line ([`stored_line`], without the newline).
    pub line: String,
    pub fp: u128,
    /// The whole text's signature (`None`: an empty text, which pl-minhash leaves out).
    pub sig: Option<SigRec>,
    /// Band keys: `(slot, key)`, slot = sketch × bands + band.
    pub keys: Vec<(u32, u64)>,
    pub meta: DocMeta,
    /// Distinctive tokens and verifier words, sorted and unique.
    pub tokens: Vec<u64>,
    pub words: Vec<u64>,
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
    /// The writers' lock ([`open::Access`]), held while the index is open for writing.
    _lock: Option<std::fs::File>,
}

fn sql<T>(dir: &Path, r: rusqlite::Result<T>) -> Result<T> {
    r.map_err(|e| anyhow!("{}: index database: {e}", dir.display()))
}

fn sig_blob(sig: &[u32]) -> Vec<u8> {
    sig.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn blob_sig(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
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
                out.insert(id, (fp, crate::ndjson::norm_of(&line)));
            }
        }
        Ok(out)
    }

    /// The stored groups, as pl-cluster writes them.
    pub fn groups(&self, out: &mut impl Write) -> Result<usize> {
        // pl-cluster's order: confidence as written, highest first; then the smallest member,
        // as u64 (stored as i64, ids from 2^63 are negative: they come last, in their order).
        let mut st = self.sql(
            self.conn
                .prepare("SELECT rec FROM groups ORDER BY confidence DESC, first < 0, first"),
        )?;
        let rows = self.sql(st.query_map([], |r| r.get::<_, String>(0)))?;
        let mut n = 0;
        for row in rows {
            n += 1;
            writeln!(out, "{{\"group\":{n},{}", self.sql(row)?)?;
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
        let ix = Tx {
            tx: &tx,
            dir: &dir,
            engine: &self.engine,
        };
        for p in &relabeled {
            ix.exec(
                "UPDATE docs SET src=?2, line=?3, added=?4, richness=?5 WHERE id=?1",
                params![
                    p.id as i64,
                    sources[&p.id] as i64,
                    p.line,
                    p.meta.added,
                    p.meta.richness
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
        sql(&dir, tx.commit())?;
        // The write-ahead log folded into the database and emptied: a bulk build's log is as
        // large as the index. Best effort: the update is committed, and a reader still in the
        // log only postpones this to the next writer.
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        Ok(summary)
    }

    /// The near-duplicates in the index of a document not (or not yet) in it: its
    /// candidates (band buckets shared, or the same text) scored as pl-score would once the
    /// document were added. Kept pairs' records, best first.
    pub fn check(&mut self, p: &Prepared) -> Result<Vec<serde_json::Map<String, Value>>> {
        let tx = sql(&self.dir, self.conn.transaction())?;
        let ix = Tx {
            tx: &tx,
            dir: &self.dir,
            engine: &self.engine,
        };
        let mut cands: BTreeMap<(u64, u64), (u32, bool)> = BTreeMap::new();
        let all = self.engine.banding.bands as u32;
        for (other, bands) in ix.lookup(p.id, &p.keys)? {
            cands.insert((p.id.min(other), p.id.max(other)), (bands, false));
        }
        if let Some(s) = &p.sig {
            for (other, sig) in ix.same_text(p.fp)? {
                if other != p.id && sig.as_deref() == Some(&s.sig[..]) {
                    cands.insert((p.id.min(other), p.id.max(other)), (all, true));
                }
            }
        }
        let list: Vec<(Candidate, bool)> = cands
            .into_iter()
            .map(|((a, b), (bands, copy))| (Candidate { a, b, bands }, copy))
            .collect();
        let recs = ix.score(&list, Some(p))?;
        drop(tx);
        let mut out: Vec<serde_json::Map<String, Value>> = recs
            .into_iter()
            .map(|(a, b, line)| {
                let mut o: serde_json::Map<String, Value> =
                    serde_json::from_str(&line).expect("a record just written");
                let other = if a == p.id { b } else { a };
                let mut d = serde_json::Map::new();
                d.insert("id".into(), other.into());
                o.shift_remove("a");
                o.shift_remove("b");
                d.extend(o);
                d
            })
            .collect();
        let score = |d: &serde_json::Map<String, Value>| d["score"].as_f64().unwrap_or(0.0);
        out.sort_by(|x, y| {
            score(y)
                .total_cmp(&score(x))
                .then_with(|| x["id"].as_u64().cmp(&y["id"].as_u64()))
        });
        Ok(out)
    }

    /// Turns on the explanations (`--explain` of pl-score) for what [`Index::check`] scores.
    pub fn explain(&mut self) -> Result<()> {
        self.engine = Engine::new(&self.params, true)?;
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
            "INSERT INTO docs(id, src, fp, size, sig, banded, added, richness, line) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                p.id as i64,
                src as i64,
                p.fp.to_le_bytes().to_vec(),
                p.sig.as_ref().map(|s| s.size as i64),
                p.sig.as_ref().map(|s| sig_blob(&s.sig)),
                banded,
                p.meta.added,
                p.meta.richness,
                p.line
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
                e.insert(self.bucket(slot, key)?.len());
            }
        }
        Ok(())
    }

    /// The banded documents of one bucket.
    fn bucket(&self, slot: u32, key: u64) -> Result<Vec<u64>> {
        self.ids(
            "SELECT id FROM bands WHERE key=?1 AND slot=?2",
            params![key as i64, slot],
        )
    }

    /// The document ids a one-column query returns.
    fn ids(&self, query: &str, args: impl rusqlite::Params) -> Result<Vec<u64>> {
        let mut st = sql(self.dir, self.tx.prepare_cached(query))?;
        let rows = sql(self.dir, st.query_map(args, |r| r.get::<_, i64>(0)))?;
        rows.map(|r| sql(self.dir, r).map(|id| id as u64)).collect()
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
            let old: i64 = sql(
                self.dir,
                self.tx
                    .prepare_cached(&get)
                    .and_then(|mut s| s.query_row([h as i64], |r| r.get(0)).optional()),
            )?
            .unwrap_or(0);
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
        let row: Option<(String, bool)> = sql(
            self.dir,
            self.tx
                .prepare_cached("SELECT line, banded FROM docs WHERE id=?1")
                .and_then(|mut s| {
                    s.query_row([id as i64], |r| Ok((r.get(0)?, r.get(1)?)))
                        .optional()
                }),
        )?;
        match row {
            Some((line, banded)) => Ok(Some((self.engine.prepare_line(id, line)?, banded))),
            None => Ok(None),
        }
    }

    /// The documents with this fingerprint and their signatures, by id (as u64: SQLite's
    /// order of the stored i64 would put ids from 2^63 first).
    fn same_text(&self, fp: u128) -> Result<Vec<(u64, Option<Vec<u32>>)>> {
        let mut st = sql(
            self.dir,
            self.tx
                .prepare_cached("SELECT id, sig FROM docs WHERE fp=?1"),
        )?;
        let rows = sql(
            self.dir,
            st.query_map([fp.to_le_bytes().to_vec()], |r| {
                Ok((
                    r.get::<_, i64>(0)? as u64,
                    r.get::<_, Option<Vec<u8>>>(1)?.map(|b| blob_sig(&b)),
                ))
            }),
        )?;
        let mut out = rows
            .map(|r| sql(self.dir, r))
            .collect::<Result<Vec<(u64, Option<Vec<u32>>)>>>()?;
        out.sort_unstable_by_key(|(id, _)| *id);
        Ok(out)
    }

    /// Banded documents sharing enough buckets of one sketch with `keys` under the band
    /// rule (a bucket over --max-bucket, counting `id`, pairs nobody), with the most bands
    /// any sketch shares (pl-lsh's union), `id` left out.
    fn lookup(&self, id: u64, keys: &[(u32, u64)]) -> Result<Vec<(u64, u32)>> {
        let mut shared: FxHashMap<(u64, usize), u32> = FxHashMap::default();
        for &(slot, key) in keys {
            let mut others = self.bucket(slot, key)?;
            others.retain(|&o| o != id);
            // The bucket as pl-lsh would see it with this document banded.
            if !self.engine.rule.pairs(others.len() + 1) {
                continue;
            }
            for other in others {
                *shared
                    .entry((other, self.engine.part_of_slot(slot)))
                    .or_default() += 1;
            }
        }
        let mut best: BTreeMap<u64, u32> = BTreeMap::new();
        for ((other, _), n) in shared {
            if self.engine.rule.enough(u64::from(n)) {
                let b = best.entry(other).or_default();
                *b = (*b).max(n);
            }
        }
        Ok(best.into_iter().collect())
    }

    /// Builds an empty index from all its documents, as pl-lsh and pl-score would.
    fn bulk(
        &self,
        docs: Vec<Prepared>,
        sources: &FxHashMap<u64, u64>,
        summary: &mut Summary,
        log: &Log,
    ) -> Result<()> {
        let signed: Vec<&Prepared> = docs.iter().filter(|p| p.sig.is_some()).collect();
        let ids: Vec<u64> = signed.iter().map(|p| p.id).collect();
        let fps: Vec<u128> = signed.iter().map(|p| p.fp).collect();
        let sigs: Vec<Vec<u32>> = signed
            .iter()
            .map(|p| p.sig.as_ref().expect("signed").sig.clone())
            .collect();
        let copies = lsh::copy_sets(&ids, &fps, &sigs);
        drop(sigs);
        let banded: FxHashSet<u64> = ids
            .iter()
            .zip(&copies.banded)
            .filter(|(_, &b)| b)
            .map(|(&id, _)| id)
            .collect();
        let (mut words, mut tokens): (FxHashMap<u64, i64>, FxHashMap<u64, i64>) =
            Default::default();
        for p in &docs {
            let on = banded.contains(&p.id);
            self.insert_doc(p, sources[&p.id], on)?;
            if on {
                self.set_keys(p.id, &p.keys, true)?;
            }
            for &w in &p.words {
                *words.entry(w).or_default() += 1;
            }
            for &t in &p.tokens {
                *tokens.entry(t).or_default() += 1;
            }
        }
        self.add_counts("words", &words)?;
        self.add_counts("tokens", &tokens)?;
        for p in &docs {
            for &w in &p.words {
                if words[&w] <= FEW_MAX {
                    self.exec(
                        "INSERT INTO few(hash, id) VALUES (?1, ?2)",
                        [w as i64, p.id as i64],
                    )?;
                }
            }
        }
        // pl-lsh: whole texts, then each part, among the banded documents; their union.
        let bands = self.engine.banding.bands;
        let mut lists = Vec::new();
        for part in 0..=self.engine.parts.len() {
            let (mut pids, mut pkeys) = (Vec::new(), Vec::new());
            for p in docs.iter().filter(|p| banded.contains(&p.id)) {
                let k: Vec<u64> = p
                    .keys
                    .iter()
                    .filter(|(slot, _)| *slot as usize / bands == part)
                    .map(|&(_, k)| k)
                    .collect();
                if !k.is_empty() {
                    pids.push(p.id);
                    pkeys.push(k);
                }
            }
            lists.push(lsh::candidates(&pids, &pkeys, self.engine.rule));
        }
        let cands = lsh::union(lists);
        let list: Vec<(Candidate, bool)> =
            lsh::with_copies(&cands, &copies.pairs, bands as u32).collect();
        summary.rescored_docs = docs.len();
        summary.pairs_scored = list.len();
        // pl-score, on the norm lines written to a temporary file beside the index (created
        // exclusively, removed when dropped).
        let norm = crate::io::temp_beside(self.dir, "bulk-norm.ndjson")
            .with_context(|| format!("{}: cannot create a temporary file", self.dir.display()))?;
        {
            let mut f = std::io::BufWriter::new(norm.as_file());
            for p in &docs {
                writeln!(f, "{}", p.line)?;
            }
            f.flush()
                .with_context(|| format!("{}: write failed", norm.path().display()))?;
        }
        let kept = self.score_file(norm.path(), &docs, &list, log)?;
        summary.pairs_kept = kept;
        Ok(())
    }

    fn score_file(
        &self,
        norm_path: &Path,
        docs: &[Prepared],
        list: &[(Candidate, bool)],
        log: &Log,
    ) -> Result<usize> {
        let cands: Vec<Cand> = list
            .iter()
            .map(|&(c, copy)| cand_of(c, copy))
            .collect::<Result<_>>()?;
        let wanted: FxHashSet<u64> = cands.iter().flat_map(|c| [c.a, c.b]).collect();
        let job = &self.engine.scoring;
        let texts = NormTexts::read(norm_path, &wanted, &job.opts, job.budget, None)?;
        let sigs: FxHashMap<u64, SigRec> = docs
            .iter()
            .filter(|p| wanted.contains(&p.id))
            .filter_map(|p| p.sig.clone().map(|s| (p.id, s)))
            .collect();
        let mut inputs = Inputs {
            sigs,
            sigs_name: "the index".into(),
            shingles: None,
            texts: Some((texts, norm_path.display().to_string())),
        };
        let mut kept_lines = Vec::new();
        let sinks = Sinks {
            kept: &mut kept_lines,
            rejected: None,
        };
        let counts = score_all(job, &mut inputs, &cands, sinks, log)?;
        for line in kept_lines.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            self.insert_pair(std::str::from_utf8(line).expect("records are UTF-8"))?;
        }
        Ok(counts.kept as usize)
    }

    /// Updates a non-empty index: the documents touched, and those whose pairs they change.
    fn incremental(
        &self,
        docs: Vec<Prepared>,
        deleted: Vec<u64>,
        sources: &FxHashMap<u64, u64>,
        summary: &mut Summary,
        log: &Log,
    ) -> Result<Vec<u64>> {
        let started = std::time::Instant::now();
        let (mut words, mut tokens): (FxHashMap<u64, i64>, FxHashMap<u64, i64>) =
            Default::default();
        // Which documents each word leaves and enters, for its postings while it is rare.
        let mut moves: FxHashMap<u64, (Vec<u64>, Vec<u64>)> = FxHashMap::default();
        let mut fps: FxHashSet<u128> = FxHashSet::default();
        let mut affected: FxHashSet<u64> = FxHashSet::default();
        let mut gone: Vec<u64> = deleted.clone();
        // Each bucket's size before this update, for those whose documents change.
        let mut sizes: FxHashMap<(u32, u64), usize> = FxHashMap::default();
        // Old versions out.
        let changing: Vec<u64> = docs.iter().map(|p| p.id).collect();
        for &id in deleted.iter().chain(&changing) {
            let Some((old, banded)) = self.stored(id)? else {
                continue;
            };
            if changing.contains(&id) {
                summary.changed += 1;
            }
            for &w in &old.words {
                *words.entry(w).or_default() -= 1;
                moves.entry(w).or_default().0.push(id);
            }
            for &t in &old.tokens {
                *tokens.entry(t).or_default() -= 1;
            }
            if banded {
                self.note_sizes(&old.keys, &mut sizes)?;
                self.set_keys(id, &old.keys, false)?;
            }
            self.exec("DELETE FROM docs WHERE id=?1", [id as i64])?;
            fps.insert(old.fp);
            affected.insert(id);
        }
        summary.added = docs.len() - summary.changed;
        // New versions in (banded below, with their copy sets).
        for p in &docs {
            self.insert_doc(p, sources[&p.id], false)?;
            for &w in &p.words {
                *words.entry(w).or_default() += 1;
                moves.entry(w).or_default().1.push(p.id);
            }
            for &t in &p.tokens {
                *tokens.entry(t).or_default() += 1;
            }
            fps.insert(p.fp);
            affected.insert(p.id);
        }
        let mut keys: FxHashMap<u64, Vec<(u32, u64)>> =
            docs.iter().map(|p| (p.id, p.keys.clone())).collect();
        // Copy sets: the lowest id of each (text, signature) banded, as pl-lsh collapses.
        let mut fps: Vec<u128> = fps.into_iter().collect();
        fps.sort_unstable();
        for fp in fps {
            let members = self.same_text(fp)?;
            let mut reps: Vec<(&Vec<u32>, u64)> = Vec::new();
            for (id, sig) in &members {
                let Some(sig) = sig else { continue };
                let banded_now = if lsh::is_empty_signature(sig) {
                    true
                } else {
                    match reps.iter().find(|(s, _)| *s == sig) {
                        Some(_) => false,
                        None => {
                            reps.push((sig, *id));
                            true
                        }
                    }
                };
                let banded_was: bool = sql(
                    self.dir,
                    self.tx
                        .query_row("SELECT banded FROM docs WHERE id=?1", [*id as i64], |r| {
                            r.get(0)
                        }),
                )?;
                if banded_now != banded_was {
                    let k = match keys.get(id) {
                        Some(k) => k.clone(),
                        None => {
                            let (p, _) = self.stored(*id)?.expect("a member");
                            keys.insert(*id, p.keys.clone());
                            p.keys
                        }
                    };
                    self.note_sizes(&k, &mut sizes)?;
                    self.set_keys(*id, &k, banded_now)?;
                    self.exec(
                        "UPDATE docs SET banded=?2 WHERE id=?1",
                        params![*id as i64, banded_now],
                    )?;
                }
            }
            // Whatever the set was or became, its members' copy pairs and representative may
            // have changed.
            affected.extend(members.iter().map(|(id, _)| *id));
        }
        // A bucket that crossed --max-bucket. One that pairs again (it shrank) gives its
        // documents new candidates: they look for them again. One that stopped pairing (it
        // grew) only takes a band from the pairs among its documents, which are dropped below
        // (`rebanded`) when no band pairs them any more; a pair's verdict does not depend on
        // its band count, so nothing is scored again for it.
        let (mut crossed, looked_before) = (0usize, affected.len());
        let mut unpaired: Vec<u64> = Vec::new();
        for ((slot, key), before) in sizes {
            let now = self.bucket(slot, key)?;
            let was = self.engine.rule.pairs(before.max(2));
            if was != self.engine.rule.pairs(now.len().max(2)) {
                crossed += 1;
                if was {
                    unpaired.extend(now);
                } else {
                    affected.extend(now);
                }
            }
        }
        if crossed > 0 {
            log.info(format!(
                "{crossed} buckets crossed --max-bucket {}: {} more documents look for their candidates again, {} have their pairs' bands counted again",
                self.engine.rule.max_bucket_flag(),
                affected.len() - looked_before,
                unpaired.len()
            ));
        }
        // Corpus counts; the documents holding a word that became known or unknown.
        let changed = self.add_counts("words", &words)?;
        self.add_counts("tokens", &tokens)?;
        let holders_before = affected.len();
        let mut rescan: FxHashMap<u64, bool> = FxHashMap::default();
        for (h, old, new) in changed {
            let flip = count_line(old) != count_line(new);
            summary.flipped_words += usize::from(flip);
            let (removed, added) = moves.get(&h).cloned().unwrap_or_default();
            if old <= FEW_MAX {
                // Its postings are in `few`: the holders are found without a scan.
                if flip {
                    affected.extend(self.posted(h)?);
                    affected.extend(added.iter().copied());
                }
                if new <= FEW_MAX {
                    for id in removed {
                        self.exec(
                            "DELETE FROM few WHERE hash=?1 AND id=?2",
                            [h as i64, id as i64],
                        )?;
                    }
                    for id in added {
                        self.exec(
                            "INSERT OR IGNORE INTO few(hash, id) VALUES (?1, ?2)",
                            [h as i64, id as i64],
                        )?;
                    }
                } else {
                    self.exec("DELETE FROM few WHERE hash=?1", [h as i64])?;
                }
            } else if new <= FEW_MAX {
                // Rare again (documents deleted or changed): its postings are found by reading
                // every stored text once, for all such words together.
                rescan.insert(h, flip);
            }
        }
        if !rescan.is_empty() {
            let found = self.holders(&rescan)?;
            log.info(format!(
                "{} words became rare again: every stored text read once to find their {} documents",
                rescan.len(),
                found.len()
            ));
            for (h, id) in found {
                self.exec(
                    "INSERT OR IGNORE INTO few(hash, id) VALUES (?1, ?2)",
                    [h as i64, id as i64],
                )?;
                if rescan[&h] {
                    affected.insert(id);
                }
            }
        }
        if summary.flipped_words > 0 {
            log.info(format!(
                "{} words crossed the known-word line: {} more documents rescored",
                summary.flipped_words,
                affected.len() - holders_before
            ));
        }
        gone.extend(affected.iter().copied());
        gone.sort_unstable();
        gone.dedup();
        // What clustering must look at again: these documents, the new ones and the partners
        // these lose (their components may split).
        let mut touched: Vec<u64> = gone.iter().chain(&changing).copied().collect();
        for &id in &gone {
            touched.extend(self.partners(id)?);
            self.exec("DELETE FROM pairs WHERE a=?1", [id as i64])?;
            self.exec("DELETE FROM pairs WHERE b=?1", [id as i64])?;
        }
        unpaired.sort_unstable();
        unpaired.dedup();
        for id in unpaired {
            if !affected.contains(&id) {
                touched.extend(self.rebanded(id, &affected)?);
            }
        }
        // The affected documents' candidates, as pl-lsh finds them.
        let all = self.engine.banding.bands as u32;
        let mut cands: BTreeMap<(u64, u64), (u32, bool)> = BTreeMap::new();
        let mut ids: Vec<u64> = affected.into_iter().collect();
        ids.sort_unstable();
        summary.rescored_docs = ids.len();
        for &id in &ids {
            let row: Option<(bool, Vec<u8>)> = sql(
                self.dir,
                self.tx
                    .prepare_cached("SELECT banded, fp FROM docs WHERE id=?1")
                    .and_then(|mut s| {
                        s.query_row([id as i64], |r| Ok((r.get(0)?, r.get(1)?)))
                            .optional()
                    }),
            )?;
            let Some((banded, fp)) = row else { continue };
            if banded {
                let k = match keys.get(&id) {
                    Some(k) => k.clone(),
                    None => self.stored(id)?.expect("present").0.keys,
                };
                for (other, bands) in self.lookup(id, &k)? {
                    let key = (id.min(other), id.max(other));
                    cands.entry(key).or_insert((bands, false));
                }
            }
            let fp = u128::from_le_bytes(fp.try_into().map_err(|_| anyhow!("bad fingerprint"))?);
            let members = self.same_text(fp)?;
            let mine = members
                .iter()
                .find(|(m, _)| *m == id)
                .and_then(|(_, s)| s.clone());
            if let Some(sig) = mine.filter(|s| !lsh::is_empty_signature(s)) {
                let set: Vec<u64> = members
                    .iter()
                    .filter(|(_, s)| s.as_ref() == Some(&sig))
                    .map(|(m, _)| *m)
                    .collect();
                let rep = set[0];
                for &m in &set[1..] {
                    if rep == id || m == id {
                        cands.insert((rep, m), (all, true));
                    }
                }
            }
        }
        let list: Vec<(Candidate, bool)> = cands
            .into_iter()
            .map(|((a, b), (bands, copy))| (Candidate { a, b, bands }, copy))
            .collect();
        summary.pairs_scored = list.len();
        log.info(format!(
            "{} candidate pairs of {} documents found in {:.2} s",
            list.len(),
            ids.len(),
            started.elapsed().as_secs_f64()
        ));
        let kept = self.score(&list, None)?;
        summary.pairs_kept = kept.len();
        log.info(format!(
            "scored, {} kept, at {:.2} s",
            kept.len(),
            started.elapsed().as_secs_f64()
        ));
        for (_, _, rec) in kept {
            self.insert_pair(&rec)?;
        }
        Ok(touched)
    }

    /// The stored pairs of `id` once a bucket of its stopped pairing: a pair no band pairs
    /// any more is dropped, the others keep their verdict with their new band count (pl-lsh's
    /// candidates looked up again, nothing scored). Pairs with a document of `redo` (scored
    /// again anyway) and copy pairs are left alone. The documents of the dropped pairs.
    fn rebanded(&self, id: u64, redo: &FxHashSet<u64>) -> Result<Vec<u64>> {
        let (doc, _) = self.stored(id)?.expect("a document of a bucket is stored");
        let now: FxHashMap<u64, u32> = self.lookup(id, &doc.keys)?.into_iter().collect();
        let mut st = sql(
            self.dir,
            self.tx
                .prepare_cached("SELECT a, b, rec FROM pairs WHERE (a=?1 OR b=?1) AND copy=0"),
        )?;
        let rows = sql(
            self.dir,
            st.query_map([id as i64], |r| {
                Ok((
                    r.get::<_, i64>(0)? as u64,
                    r.get::<_, i64>(1)? as u64,
                    r.get::<_, String>(2)?,
                ))
            }),
        )?;
        let pairs: Vec<(u64, u64, String)> =
            rows.map(|r| sql(self.dir, r)).collect::<Result<_>>()?;
        let mut dropped = Vec::new();
        for (a, b, rec) in pairs {
            let other = if a == id { b } else { a };
            if redo.contains(&other) {
                continue;
            }
            match now.get(&other) {
                None => {
                    self.exec(
                        "DELETE FROM pairs WHERE a=?1 AND b=?2",
                        [a as i64, b as i64],
                    )?;
                    dropped.extend([a, b]);
                }
                Some(&bands) => {
                    let mut o = pl_core::fields::parse_object(&rec).map_err(|e| anyhow!("{e}"))?;
                    if o.get("bands").and_then(Value::as_u64) != Some(u64::from(bands)) {
                        o.insert("bands".into(), bands.into());
                        self.exec(
                            "UPDATE pairs SET rec=?3 WHERE a=?1 AND b=?2",
                            params![a as i64, b as i64, serde_json::to_string(&o)?],
                        )?;
                    }
                }
            }
        }
        Ok(dropped)
    }

    /// Stores a kept pair: its record, and what clustering reads of it in columns.
    fn insert_pair(&self, rec: &str) -> Result<()> {
        let o = pl_core::fields::parse_object(rec).map_err(|e| anyhow!("{e}"))?;
        let p = ScoredPair::from_obj(&o).map_err(|e| anyhow!("{e}"))?;
        self.exec(
            "INSERT INTO pairs(a, b, score, jaccard, fuzzy, copy, rec) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![p.a as i64, p.b as i64, p.score, p.jaccard, p.fuzzy, p.copy, rec],
        )?;
        Ok(())
    }

    /// The documents posted for a rare word.
    fn posted(&self, h: u64) -> Result<Vec<u64>> {
        self.ids("SELECT id FROM few WHERE hash=?1", [h as i64])
    }

    /// `(word, document)` for every stored document whose verifier words include one of
    /// `words`: every stored text is read once.
    fn holders(&self, words: &FxHashMap<u64, bool>) -> Result<Vec<(u64, u64)>> {
        let mut st = sql(self.dir, self.tx.prepare("SELECT id, line FROM docs"))?;
        let rows = sql(
            self.dir,
            st.query_map([], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get::<_, String>(1)?))
            }),
        )?;
        let mut chunk: Vec<(u64, String)> = Vec::new();
        let mut out = Vec::new();
        let opts = &self.engine.scoring.opts;
        let mut flush = |chunk: &mut Vec<(u64, String)>| {
            let found: Vec<(u64, u64)> = chunk
                .par_iter()
                .flat_map_iter(|(id, line)| {
                    let norm = crate::ndjson::norm_of(line);
                    counted_words(&norm, opts)
                        .1
                        .into_iter()
                        .filter(|h| words.contains_key(h))
                        .map(|h| (h, *id))
                        .collect::<Vec<_>>()
                })
                .collect();
            out.extend(found);
            chunk.clear();
        };
        for r in rows {
            chunk.push(sql(self.dir, r)?);
            if chunk.len() >= 4096 {
                flush(&mut chunk);
            }
        }
        flush(&mut chunk);
        Ok(out)
    }

    /// Scores candidate pairs with the corpus counts in the index (`extra`: a document being
    /// checked, counted as if it were added). Returns the kept pairs' records, in order.
    fn score(
        &self,
        list: &[(Candidate, bool)],
        extra: Option<&Prepared>,
    ) -> Result<Vec<(u64, u64, String)>> {
        if list.is_empty() {
            return Ok(Vec::new());
        }
        let mut ids: Vec<u64> = list.iter().flat_map(|(c, _)| [c.a, c.b]).collect();
        ids.sort_unstable();
        ids.dedup();
        // Signatures first: a pair whose similarity cannot reach the threshold even with a
        // perfect fuzzy ratio is dropped by the scorer's first step, before it reads a text,
        // so only the other pairs' documents are read and counted.
        let mut sigs: FxHashMap<u64, SigRec> = FxHashMap::default();
        let mut stored_extra: Option<Prepared> = None;
        for &id in &ids {
            if let Some(p) = extra.filter(|p| p.id == id) {
                if let Some(s) = &p.sig {
                    sigs.insert(id, s.clone());
                }
                stored_extra = self.stored(id)?.map(|(s, _)| s);
                continue;
            }
            let (size, sig, fp): (Option<i64>, Option<Vec<u8>>, Vec<u8>) = sql(
                self.dir,
                self.tx
                    .prepare_cached("SELECT size, sig, fp FROM docs WHERE id=?1")
                    .and_then(|mut s| {
                        s.query_row([id as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    }),
            )?;
            if let (Some(size), Some(sig)) = (size, sig) {
                let fingerprint =
                    u128::from_le_bytes(fp.try_into().map_err(|_| anyhow!("bad fingerprint"))?);
                sigs.insert(
                    id,
                    SigRec {
                        id,
                        fingerprint,
                        size: size as u64,
                        sig: blob_sig(&sig),
                    },
                );
            }
        }
        let inputs = Inputs {
            sigs,
            sigs_name: "the index".into(),
            shingles: None,
            texts: None,
        };
        let job = &self.engine.scoring;
        let cfg = &job.config;
        let hopeless = |c: &Cand| -> bool {
            if !inputs.sigs.contains_key(&c.a) || !inputs.sigs.contains_key(&c.b) {
                return true;
            }
            if !job.fuzzy || cfg.threshold <= 0.0 {
                return false;
            }
            let sim = inputs.similarity(c);
            let s = if cfg.containment {
                sim.jaccard.max(sim.containment)
            } else {
                sim.jaccard
            };
            !sim.identical && cfg.weights.fuzzy_needed(s, cfg.threshold) - 1e-9 > 1.0
        };
        let cands: Vec<Cand> = list
            .iter()
            .map(|&(c, copy)| cand_of(c, copy))
            .collect::<Result<Vec<Cand>>>()?
            .into_iter()
            .filter(|c| !hopeless(c))
            .collect();
        let mut ids: Vec<u64> = cands.iter().flat_map(|c| [c.a, c.b]).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut lines: Vec<(u64, String)> = Vec::with_capacity(ids.len());
        for &id in &ids {
            if let Some(p) = extra.filter(|p| p.id == id) {
                lines.push((id, p.line.clone()));
                continue;
            }
            let line: String = sql(
                self.dir,
                self.tx
                    .prepare_cached("SELECT line FROM docs WHERE id=?1")
                    .and_then(|mut s| s.query_row([id as i64], |r| r.get(0))),
            )?;
            lines.push((id, line));
        }
        // The counts as they are with `extra` in the index.
        let delta = |h: u64, of: fn(&Prepared) -> &Vec<u64>| -> i64 {
            let plus = extra.is_some_and(|p| of(p).binary_search(&h).is_ok());
            let minus = stored_extra
                .as_ref()
                .is_some_and(|p| of(p).binary_search(&h).is_ok());
            i64::from(plus) - i64::from(minus)
        };
        let get = |table: &str, h: u64| -> Result<i64> {
            let q = format!("SELECT n FROM {table} WHERE hash=?1");
            Ok(sql(
                self.dir,
                self.tx
                    .prepare_cached(&q)
                    .and_then(|mut s| s.query_row([h as i64], |r| r.get(0)).optional()),
            )?
            .unwrap_or(0))
        };
        let mut docs = self.count_of("docs")?;
        if extra.is_some() && stored_extra.is_none() {
            docs += 1;
        }
        let opts = &self.engine.scoring.opts;
        let mut token_set: Vec<u64> = Vec::new();
        for (_, line) in &lines {
            if let Some(f) = crate::ndjson::norm_fields(line) {
                token_set.extend(counted_words(&f.norm, opts).0);
            } else {
                let o = pl_core::fields::parse_object(line).map_err(|e| anyhow!("{e}"))?;
                let norm = o.get("norm").and_then(Value::as_str).unwrap_or_default();
                token_set.extend(counted_words(norm, opts).0);
            }
        }
        token_set.sort_unstable();
        token_set.dedup();
        let mut df_counts = Vec::with_capacity(token_set.len());
        for &t in &token_set {
            let n = get("tokens", t)? + delta(t, |p| &p.tokens);
            df_counts.push((t, n.max(0) as u32));
        }
        let df = DocFreq::from_counts(docs, df_counts);
        let refs: Vec<(u64, &str)> = lines.iter().map(|(id, l)| (*id, l.as_str())).collect();
        let (sides, counts) = sides_of_lines(&refs, opts, &df, |h| {
            Ok((get("words", h)? + delta(h, |p| &p.words)).max(0) as u32)
        })?;
        let scorer = Scorer {
            config: &job.config,
            doc_counts: &counts,
            explain: job.explain,
        };
        let verdicts: Vec<Option<Verdict>> = cands
            .par_iter()
            .map(|c| {
                if !inputs.sigs.contains_key(&c.a) || !inputs.sigs.contains_key(&c.b) {
                    return None;
                }
                let sim = inputs.similarity(c);
                let docs = sides
                    .get(&c.a)
                    .zip(sides.get(&c.b))
                    .map(|(x, y)| (x.doc(), y.doc()));
                Some(scorer.score(sim, docs, job.fuzzy))
            })
            .collect();
        let mut out = Vec::new();
        for (c, v) in cands.iter().zip(verdicts) {
            if let Some(Verdict::Kept(d)) = v {
                let mut rec = job.record(c, &d, &sides);
                rec.pass_through(c.rest.to_obj());
                out.push((c.a, c.b, serde_json::to_string(&rec)?));
            }
        }
        Ok(out)
    }

    /// Clusters every stored pair (a first build): every group replaced.
    fn cluster_all(&self) -> Result<usize> {
        self.exec("DELETE FROM groups", [])?;
        self.exec("DELETE FROM members", [])?;
        let mut pairs = self.pairs_where("", [])?;
        pairs.sort_unstable_by_key(|p| (p.a, p.b));
        self.store_groups(&pairs)
    }

    /// Clusters again the connected components of the stored pairs that hold any of
    /// `touched`: their old groups (those of documents that left too) are replaced, every
    /// other group stays as stored. Costs the touched components, not the library. The
    /// groups stored in all, and the documents the touched components hold.
    fn recluster(&self, touched: Vec<u64>) -> Result<(usize, usize)> {
        let mut seen: FxHashSet<u64> = touched.iter().copied().collect();
        let mut stack: Vec<u64> = seen.iter().copied().collect();
        let mut pairs = Vec::new();
        // Each pair is read once, from its `a`, when that document is reached.
        while let Some(id) = stack.pop() {
            for p in self.pairs_where("WHERE a=?1", [id as i64])? {
                if seen.insert(p.b) {
                    stack.push(p.b);
                }
                pairs.push(p);
            }
            for other in self.ids("SELECT a FROM pairs WHERE b=?1", [id as i64])? {
                if seen.insert(other) {
                    stack.push(other);
                }
            }
        }
        let mut old: Vec<u64> = Vec::new();
        for &id in &seen {
            old.extend(self.ids("SELECT first FROM members WHERE id=?1", [id as i64])?);
        }
        old.sort_unstable();
        old.dedup();
        for first in old {
            self.exec("DELETE FROM groups WHERE first=?1", [first as i64])?;
            self.exec("DELETE FROM members WHERE first=?1", [first as i64])?;
        }
        // pl-score's order, of the ids as u64 (SQLite would order the stored i64).
        pairs.sort_unstable_by_key(|p| (p.a, p.b));
        Ok((self.store_groups(&pairs)?, seen.len()))
    }

    /// The documents a stored pair joins to `id`.
    fn partners(&self, id: u64) -> Result<Vec<u64>> {
        self.ids(
            "SELECT b FROM pairs WHERE a=?1 UNION ALL SELECT a FROM pairs WHERE b=?1",
            [id as i64],
        )
    }

    /// The stored pairs `filter` (an SQL `WHERE` clause, or nothing) selects, as clustering
    /// reads them.
    fn pairs_where(&self, filter: &str, args: impl rusqlite::Params) -> Result<Vec<ScoredPair>> {
        let query = format!("SELECT a, b, score, jaccard, fuzzy, copy FROM pairs {filter}");
        let mut st = sql(self.dir, self.tx.prepare_cached(&query))?;
        let rows = sql(
            self.dir,
            st.query_map(args, |r| {
                Ok(ScoredPair {
                    a: r.get::<_, i64>(0)? as u64,
                    b: r.get::<_, i64>(1)? as u64,
                    score: r.get(2)?,
                    jaccard: r.get(3)?,
                    fuzzy: r.get(4)?,
                    copy: r.get(5)?,
                })
            }),
        )?;
        rows.map(|r| sql(self.dir, r)).collect()
    }

    /// Clusters `pairs` (whole components, in pl-score's order) and stores their groups, each
    /// under its smallest member, its record without the number (given when written); the
    /// number of groups stored in all.
    fn store_groups(&self, pairs: &[ScoredPair]) -> Result<usize> {
        let mut ids: Vec<u64> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut meta: FxHashMap<u64, DocMeta> = FxHashMap::default();
        for id in ids {
            let m: (Option<i64>, u32) = sql(
                self.dir,
                self.tx
                    .prepare_cached("SELECT added, richness FROM docs WHERE id=?1")
                    .and_then(|mut s| s.query_row([id as i64], |r| Ok((r.get(0)?, r.get(1)?)))),
            )?;
            meta.insert(
                id,
                DocMeta {
                    added: m.0,
                    richness: m.1,
                },
            );
        }
        for g in cluster_with(pairs, &meta, self.engine.linkage) {
            let rec = g.to_record(0);
            let json = serde_json::to_string(&rec)?;
            let rest = json
                .strip_prefix("{\"group\":0,")
                .ok_or_else(|| anyhow!("a group record that does not start with its number"))?;
            let first = g.members[0] as i64;
            self.exec(
                "INSERT INTO groups(first, confidence, rec) VALUES (?1, ?2, ?3)",
                params![first, rec.confidence, rest],
            )?;
            for &m in &g.members {
                self.exec(
                    "INSERT INTO members(id, first) VALUES (?1, ?2)",
                    params![m as i64, first],
                )?;
            }
        }
        Ok(self.count_of("groups")? as usize)
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
        let asked = Params {
            bands: 16,
            threshold: 0.8,
            ..Params::default()
        };
        // The first that differs, in the flags' order.
        assert_eq!(
            p.differs(&asked).as_deref(),
            Some("built with --bands 32, asked for --bands 16")
        );
    }

    #[test]
    fn signatures_round_trip_through_their_blobs() {
        let sig = vec![0, 1, u32::MAX, 0x0102_0304];
        assert_eq!(blob_sig(&sig_blob(&sig)), sig);
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
