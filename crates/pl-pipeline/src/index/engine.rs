//! What an index's parameters make of the pipeline's code: the shingling, MinHash, banding,
//! scoring and clustering `make groups` runs, and a document prepared by them.

use super::*;
use pl_core::records::fingerprint_hex;

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
    /// An index built before pairs were asked for evidence proposed any shared bucket's: 0.
    #[serde(default)]
    pub evidence_bucket: usize,
    pub edge_words: usize,
    /// 1: documents sharing two numbers at most 6 documents hold are candidates (pl-lsh
    /// --numbers); 0: the bands alone.
    pub numbers: u8,
    /// pl-score's parameters (an index made before they were all recorded has the others'
    /// defaults, which it was built with).
    #[serde(flatten)]
    pub score: ScoreParams,
    pub linkage: String,
    /// Groups may join documents of different owners (pl-cluster --across-owners), and
    /// pl-check and pl-watch report near-duplicates of any owner; an index made before it was
    /// recorded kept owners apart: false.
    #[serde(default)]
    pub across_owners: bool,
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
            evidence_bucket: pl_core::lsh::DEFAULT_EVIDENCE_BUCKET,
            edge_words: 60,
            numbers: 1,
            score: ScoreParams::default(),
            linkage: "average".into(),
            across_owners: false,
        }
    }
}

impl Params {
    /// The parameters as an index recorded them. One recorded before the score became the
    /// match probability named the similarity's minimum `threshold` and the probability's
    /// `min_probability` (absent before there was one: no pair was gated by it); they are read
    /// as `min_similarity` and `threshold`, which is what they did.
    pub fn from_recorded(json: &str) -> serde_json::Result<Params> {
        let mut v: serde_json::Value = serde_json::from_str(json)?;
        if let Some(o) = v
            .as_object_mut()
            .filter(|o| !o.contains_key("min_similarity"))
        {
            if let Some(t) = o.remove("threshold") {
                o.insert("min_similarity".into(), t);
            }
            let p = o
                .remove("min_probability")
                .unwrap_or(serde_json::json!(0.0));
            o.insert("threshold".into(), p);
        }
        let params: Params = serde_json::from_value(v.clone())?;
        // A parameter this build does not know (a later build's, or an edit) would be
        // ignored, and the index updated as if it had not been asked for: refused.
        let known = serde_json::to_value(&params)?;
        if let (Some(recorded), Some(known)) = (v.as_object(), known.as_object()) {
            if let Some(k) = recorded.keys().find(|k| !known.contains_key(*k)) {
                return Err(serde::de::Error::custom(format!("unknown parameter {k:?}")));
            }
        }
        Ok(params)
    }

    /// The first recorded parameter outside the values its flag takes, as its flag and value
    /// (the rest, which the stages check, [`Engine::new`] refuses).
    pub fn out_of_range(&self) -> Option<String> {
        let ranges = [
            ("--perms", self.perms, pl_core::minhash::PERMS_RANGE),
            ("--ngram", self.ngram, pl_core::shingle::NGRAM_RANGE),
            ("--numbers", usize::from(self.numbers), 0..=1),
        ];
        (ranges.into_iter())
            .find(|(_, v, range)| !range.contains(v))
            .map(|(f, v, r)| format!("{f} {v}, not from {} to {}", r.start(), r.end()))
            .or_else(|| self.score.out_of_range())
    }

    /// The parameters as `--flag value` pairs, in a fixed order, for messages.
    pub fn flags(&self) -> Vec<(&'static str, String)> {
        let mut flags = vec![
            ("--unit", self.unit.clone()),
            ("--ngram", self.ngram.to_string()),
            ("--min-words", self.min_words.to_string()),
            ("--perms", self.perms.to_string()),
            ("--seed", self.seed.to_string()),
            ("--scheme", self.scheme.clone()),
            ("--bands", self.bands.to_string()),
            ("--min-band-matches", self.min_band_matches.to_string()),
            ("--max-bucket", self.max_bucket.to_string()),
            ("--evidence-bucket", self.evidence_bucket.to_string()),
            ("--edge-words", self.edge_words.to_string()),
            ("--numbers", self.numbers.to_string()),
        ];
        flags.extend(self.score.flags());
        flags.push(("--linkage", self.linkage.clone()));
        flags.push(("--across-owners", self.across_owners.to_string()));
        flags
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
    pub(super) whole: ShingleConfig,
    pub(super) parts: Vec<ShingleConfig>,
    pub(super) hasher: MinHasher,
    pub(super) banding: Banding,
    pub(super) rule: BandRule,
    pub scoring: Scoring,
    pub(super) linkage: Linkage,
    /// Pairs by shared rare numbers (pl-lsh --numbers).
    pub(super) numbers: bool,
    /// Groups join documents of different owners ([`Params::across_owners`]).
    pub(super) across_owners: bool,
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
        crate::params::check_min_words(p.min_words)?;
        crate::params::check_weights(p.score.jaccard_weight, p.score.fuzzy_weight)?;
        if p.score.distinct_min > 0.0 || p.score.distinct_penalty > 0.0 {
            bail!(
                "the index takes no --distinct-min or --distinct-penalty: a distinctive token's \
                 weight changes with every document added, so its stored scores would go stale"
            );
        }
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
        // pl-lsh's own check of its flags.
        let rule = BandRule::checked(p.min_band_matches, p.max_bucket, p.evidence_bucket, p.bands)
            .map_err(crate::error::UsageError)?;
        Ok(Engine {
            whole,
            parts,
            hasher: MinHasher::with_scheme(p.perms, p.seed, scheme),
            banding,
            rule,
            scoring: Scoring::of(&p.score, explain, 512 << 20),
            linkage,
            numbers: p.numbers == 1,
            across_owners: p.across_owners,
        })
    }

    /// A docs record normalized as pl-normalize does, with its signature, band keys and words;
    /// refused as pl-normalize refuses it when its norm record would be over the one limit
    /// of a record ([`crate::ndjson::check_norm_record`]).
    pub fn prepare_doc(&self, doc: DocRecord) -> Result<Prepared, String> {
        let mut norm = String::new();
        let (words, fp) =
            normalize_with_fingerprint(doc.text().map_err(|e| e.to_string())?, &mut norm);
        let meta = DocMeta::from_record(&doc);
        let owner = pl_core::owners::owner_of(&doc).map_err(|e| e.to_string())?;
        let id = doc.id;
        let hex = fingerprint_hex(fp);
        let line = stored_line(id, &norm, &hex)?;
        let rec = NormRecord::new(doc, norm, words as u64, hex);
        crate::ndjson::check_norm_record(id, &rec)?;
        let Some(Value::String(norm)) = rec.norm() else {
            unreachable!("a norm record holds its norm")
        };
        let mut p = self.prepare(id, line, norm.clone(), fp, meta);
        p.owner = owner;
        Ok(p)
    }

    /// A stored norm line, prepared again (its band keys and words; its owner, stored beside
    /// the line, is the caller's to set); an error says what is wrong with the line, the
    /// caller names the index and the document.
    pub fn prepare_line(&self, id: u64, line: String) -> Result<Prepared> {
        let o = pl_core::fields::parse_object(&line).map_err(|e| anyhow!("{e}"))?;
        let norm = match o.get("norm") {
            Some(Value::String(s)) => s.clone(),
            _ => bail!("no \"norm\""),
        };
        let fp = match o.get("fingerprint") {
            Some(Value::String(s)) => Some(s.as_str()),
            _ => None,
        };
        let fp = crate::ndjson::record_fingerprint(fp, &norm).map_err(|e| anyhow!("{e}"))?;
        let doc = DocRecord::from_obj(o).map_err(|e| anyhow!("{e}"))?;
        if doc.id != id {
            bail!("its line is document {}'s", doc.id);
        }
        let meta = DocMeta::from_record(&doc);
        Ok(self.prepare(id, line, norm, fp, meta))
    }

    fn prepare(&self, id: u64, line: String, norm: String, fp: u128, meta: DocMeta) -> Prepared {
        let sig = self.sign(&self.whole, &norm).map(|(size, sig)| SigRec {
            id,
            fingerprint: fp,
            size,
            sig,
        });
        let keys = self.band_keys(sig.as_ref().map(|s| s.sig.as_slice()), &norm);
        let (tokens, words, numbers) = index_words(&norm, &self.scoring.opts);
        Prepared {
            id,
            line,
            fp,
            sig,
            keys,
            meta,
            owner: None,
            tokens,
            words,
            numbers,
        }
    }

    /// The shingle count and signature of `norm` as `config` shingles it (`None`: no shingle).
    fn sign(&self, config: &ShingleConfig, norm: &str) -> Option<(u64, Vec<u32>)> {
        let mut sh = Shingler::default();
        config.shingle(norm, &mut sh)?;
        let mut sig = vec![0u32; self.hasher.perms()];
        self.hasher.signature(&sh.hashes, &mut sig);
        Some((sh.hashes.len() as u64, sig))
    }

    /// Band keys, `(slot, key)`, of a text whose whole signature is `sig`: the whole text's
    /// bands, then each part's (head, tail) signed from `norm`; none without a signature.
    fn band_keys(&self, sig: Option<&[u32]>, norm: &str) -> Vec<(u32, u64)> {
        let mut keys = Vec::new();
        if let Some(sig) = sig {
            let b = self.banding.bands as u32;
            keys.extend((0..b).map(|i| (i, self.banding.key(sig, i as usize))));
            for (p, config) in self.parts.iter().enumerate() {
                if let Some((_, part)) = self.sign(config, norm) {
                    let base = b * (p as u32 + 1);
                    keys.extend((0..b).map(|i| (base + i, self.banding.key(&part, i as usize))));
                }
            }
        }
        keys
    }

    /// A stored document's band keys and numbers ([`Prepared::keys`], [`Prepared::numbers`])
    /// from its stored whole-text signature and text: the whole text is not signed again.
    pub(super) fn banding_of(
        &self,
        sig: Option<&[u32]>,
        norm: &str,
    ) -> (Vec<(u32, u64)>, Vec<u64>) {
        (
            self.band_keys(sig, norm),
            number_hashes(norm, self.scoring.opts.max_words),
        )
    }

    /// The sketch a band slot belongs to: 0 whole text, 1 head, 2 tail.
    pub(super) fn part_of_slot(&self, slot: u32) -> usize {
        slot as usize / self.banding.bands
    }
}

/// A document's distinctive tokens, the words the index counts, and its numbers: pl-score's
/// words, and without the verifier (which reads no words) its numbers still, which pl-lsh
/// --numbers pairs documents by: their counts decide which pair.
pub(super) fn index_words(norm: &str, opts: &SideOptions) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let (tokens, words, numbers) = counted_words(norm, opts);
    if opts.verify {
        return (tokens, words, numbers);
    }
    let numbers = number_hashes(norm, opts.max_words);
    (tokens, numbers.clone(), numbers)
}

/// What the index keeps of a document's norm record: its id, normalized text and fingerprint
/// (32 hex digits; the text as written is part of it), all that scoring reads (`--norm` of
/// pl-score takes such lines too); the fields the primary rule reads are kept apart (`added`,
/// `richness`), and a change is noticed by the docs line's hash.
pub fn stored_line(id: u64, norm: &str, fingerprint: &str) -> Result<String, String> {
    #[derive(Serialize)]
    struct Line<'a> {
        id: u64,
        norm: &'a str,
        fingerprint: &'a str,
    }
    serde_json::to_string(&Line {
        id,
        norm,
        fingerprint,
    })
    .map_err(|e| e.to_string())
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
    /// Its owner (the docs record's `owner`, [`pl_core::owners`]).
    pub owner: pl_core::owners::Owner,
    /// Distinctive tokens and verifier words, sorted and unique.
    pub tokens: Vec<u64>,
    pub words: Vec<u64>,
    /// The words that are the ledger's numbers (a subset of `words`): their count lines
    /// differ (`count_line`).
    pub numbers: Vec<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_parameters_unknown_or_out_of_range_are_refused() {
        let mut v = serde_json::to_value(Params::default()).unwrap();
        v["a_later_builds_knob"] = 3.into();
        let err = Params::from_recorded(&v.to_string()).unwrap_err();
        assert!(
            err.to_string()
                .contains("unknown parameter \"a_later_builds_knob\""),
            "{err}"
        );
        assert_eq!(Params::default().out_of_range(), None);
        let bad = |f: fn(&mut Params)| {
            let mut p = Params::default();
            f(&mut p);
            p.out_of_range()
        };
        let said = |s: &str| Some(s.to_owned());
        assert_eq!(
            bad(|p| p.perms = 1 << 30),
            said("--perms 1073741824, not from 1 to 65536")
        );
        assert_eq!(bad(|p| p.ngram = 0), said("--ngram 0, not from 1 to 64"));
        assert_eq!(bad(|p| p.numbers = 2), said("--numbers 2, not from 0 to 1"));
        assert_eq!(
            bad(|p| p.score.threshold = -1.0),
            said("--threshold -1, not from 0 to 1")
        );
    }
}
