//! What pl-score keeps of the documents in its pairs, read from the norm file. Every document
//! is counted once (the rarity of words and of distinctive tokens); the documents of the pairs
//! are held in memory while they fit the budget, and otherwise read again by offset, one batch
//! of documents at a time ([`pl_core::batches`]).

use std::borrow::Cow;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use anyhow::{anyhow, Result};
use pl_core::corpus::CorpusCounts;
use pl_core::distinct::{distinctive_tokens, distinctive_words, DocFreq};
use pl_core::evidence::Profile;
use pl_core::normalize::digits_view;
use pl_core::records::Fingerprint;
use pl_core::score::fuzzy_sample;
use pl_core::scorer::Doc;
use pl_core::verify::{edge_sample, word_hashes, Vocab};
use pl_core::written::Written;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::io::open_input;
use crate::ndjson::{norm_record, record_fingerprint, NdjsonReader, NormFields};

mod cost;

/// What the flags ask of each document.
#[derive(Debug, Clone, Copy)]
pub struct SideOptions {
    /// Word ids and profiles for the verifier (else only the fuzzy sample is kept).
    pub verify: bool,
    /// Words aligned; a longer text is kept on its two ends.
    pub max_words: usize,
    /// Characters of the fuzzy sample, and whether its words are sorted.
    pub fuzzy_sample: usize,
    pub sort_words: bool,
    /// Keep the distinctive words, for `--explain`.
    pub explain: bool,
}

impl SideOptions {
    /// What the scoring parameters need kept of each document (`explain`: its distinctive
    /// words too).
    pub fn of(p: &pl_core::scorer::ScoreParams, explain: bool) -> SideOptions {
        SideOptions {
            verify: p.verify,
            max_words: p.max_words,
            fuzzy_sample: p.fuzzy_sample,
            sort_words: p.sort_words,
            explain,
        }
    }
}

/// What is kept of each document that appears in a pair.
#[derive(Default)]
pub struct Side {
    /// The normalized text: whole for the verifier, else only the fuzzy sample.
    text: String,
    /// The fuzzy sample: `text[..sample_end]`, or with --sort-words this.
    sorted_sample: Option<String>,
    sample_end: usize,
    /// Characters in the fuzzy sample.
    sample_chars: usize,
    /// The verifier's view: word ids in the corpus vocabulary, words present.
    profile: Profile,
    /// Distinctive tokens and their rarity.
    tokens: Vec<(u64, f64)>,
    /// Distinctive words, with --explain.
    pub words: Vec<String>,
    /// Longer than --max-words: `text` holds its two ends only.
    pub sampled: bool,
    /// The word ids, until the profile takes them once every document is counted.
    ids: Vec<u32>,
    /// The fingerprint of its normalized text, and the documents of the corpus that have it.
    fp: Fingerprint,
    copies: u32,
    /// Its numbers as written (`text` is the digits view).
    written: Written,
}

impl Side {
    /// Bytes it holds on the heap: what holding the document really costs, but for the
    /// allocator's own.
    pub fn heap_bytes(&self) -> usize {
        self.text.capacity()
            + self.sorted_sample.as_ref().map_or(0, String::capacity)
            + self.profile.heap_bytes()
            + self.tokens.capacity() * 16
            + self.words.capacity() * 24
            + self.words.iter().map(String::capacity).sum::<usize>()
            + self.ids.capacity() * 4
            + self.written.heap_bytes()
    }

    /// The document as the scorer sees it.
    pub fn doc(&self) -> Doc<'_> {
        Doc {
            text: &self.text,
            sample: self
                .sorted_sample
                .as_deref()
                .unwrap_or(&self.text[..self.sample_end]),
            sample_chars: self.sample_chars,
            tokens: &self.tokens,
            profile: &self.profile,
            written: &self.written,
            copies: self.copies,
        }
    }
}

/// The sides of some documents, by id.
pub type Sides = FxHashMap<u64, Side>;

/// The norm file, counted: the corpus's rarities, and the pairs' documents held or found.
pub struct NormTexts {
    name: String,
    df: DocFreq,
    vocab: Vocab,
    /// Every wanted document's side, while they fit the budget.
    held: Option<Sides>,
    /// Where each wanted document's line is, to read it again, and what its side costs.
    at: FxHashMap<u64, (u64, u32, u64)>,
    file: Option<File>,
    /// Documents with each normalized text (every text, so that the counts of parts add up).
    copies: Copies,
}

/// The documents that have each normalized text, by fingerprint.
#[derive(Default)]
pub struct Copies(FxHashMap<Fingerprint, u32>);

impl Copies {
    /// The documents with the text of fingerprint `fp` (1 when it is not counted).
    pub fn of(&self, fp: Fingerprint) -> u32 {
        self.0.get(&fp).copied().unwrap_or(1)
    }
}

/// One line of the norm file, parsed and tokenized.
struct Parsed<'a> {
    id: u64,
    fp: Fingerprint,
    norm: Cow<'a, str>,
    sampled: bool,
    tokens: Vec<u64>,
    hashes: Vec<u64>,
    /// The normalized text when its digits view (`norm`) differs from it.
    marked: Option<Cow<'a, str>>,
}

fn parse_line<'a>(text: &'a str, opts: &SideOptions) -> Result<Parsed<'a>, String> {
    let NormFields {
        id,
        norm,
        fingerprint: fp,
    } = norm_record(text, "pass the output of pl-normalize as --norm")?;
    // As pl-shingle reads it: a copy set there is one text here.
    let fp = record_fingerprint(fp.as_deref(), &norm)?;
    // Everything below reads the digits view; the text itself is kept when it differs, for
    // its numbers as written.
    let (norm, marked) = match digits_view(&norm) {
        Cow::Borrowed(_) => (norm, None),
        Cow::Owned(plain) => (Cow::Owned(plain), Some(norm)),
    };
    let mut tokens = Vec::new();
    distinctive_tokens(&norm, &mut tokens);
    // A text too long to align within bounded memory is verified on its two ends.
    let (norm, sampled) = match (opts.verify, edge_sample(&norm, opts.max_words)) {
        (true, Some(sample)) => (Cow::Owned(sample), true),
        _ => (norm, false),
    };
    let mut hashes = Vec::new();
    if opts.verify {
        word_hashes(&norm, &mut hashes);
    }
    Ok(Parsed {
        id,
        fp,
        norm,
        sampled,
        tokens,
        hashes,
        marked,
    })
}

/// One line as the counting pass makes it: the document's id, its distinctive tokens and word
/// hashes, what its side costs (0 unless it is wanted), and its side when it is wanted and
/// the sides are still held.
type Made = (u64, Fingerprint, Vec<u64>, Vec<u64>, u64, Option<Side>);

/// A chunk of lines, where each starts in the file, and what was made of each.
type ParsedChunk = (Vec<(u64, String)>, Vec<u64>, Vec<Result<Made, String>>);

/// What the counting pass of [`NormTexts::read`] carries from chunk to chunk besides the
/// counts: which documents are wanted, and what holding their sides costs so far.
struct Counting<'a> {
    wanted: &'a FxHashSet<u64>,
    opts: &'a SideOptions,
    /// Bytes the held sides may cost.
    budget: u64,
    /// Bytes the wanted documents' sides cost so far.
    held_cost: u64,
    /// The norm file's length, when it can be read again.
    file_len: Option<u64>,
    /// The word ids of the line last counted, until its side takes them.
    ids: Vec<u32>,
    /// One bit per word id, to count a line's distinct ids ([`cost::distinct`]).
    seen: Vec<u64>,
}

impl Counting<'_> {
    /// Counts the lines of a parsed chunk in file order, and notes where each wanted document
    /// is, holding its side while they fit the budget.
    fn consume(
        &mut self,
        r: &mut NdjsonReader,
        t: &mut NormTexts,
        (chunk, starts, parsed): ParsedChunk,
    ) -> Result<()> {
        for (((line, text), &start), p) in chunk.iter().zip(&starts).zip(parsed) {
            let (id, fp, tokens, hashes, cost, side) = match p {
                Ok(p) => p,
                Err(msg) => {
                    r.invalid(*line, &msg)?;
                    continue;
                }
            };
            if !r.check_id(*line, id)? {
                continue;
            }
            t.df.add(&tokens);
            *t.copies.0.entry(fp).or_insert(0) += 1;
            if self.opts.verify {
                t.vocab.add(&hashes, &mut self.ids);
            }
            if !self.wanted.contains(&id) {
                continue;
            }
            let len = u32::try_from(text.len())
                .map_err(|_| anyhow!("{}: line {line}: over 4 GB", t.name))?;
            let cost = cost + cost::PER_DISTINCT * cost::distinct(&self.ids, &mut self.seen);
            t.at.insert(id, (start, len, cost));
            self.held_cost += cost;
            if self.held_cost > self.budget && t.file.is_some() {
                t.held = None;
            }
            match (t.held.as_mut(), side) {
                (Some(held), Some(mut side)) => {
                    side.ids = std::mem::take(&mut self.ids);
                    held.insert(id, side);
                }
                // Not built, as `drops` foresaw: the sides are read again.
                (Some(_), None) => t.held = None,
                (None, _) => {}
            }
        }
        // Sides that will not fit are not built only to be dropped: once the cost so far,
        // scaled to the whole file, is over the budget, they are read again in batches.
        if let (Some(len), Some((&start, (_, text)))) =
            (self.file_len, starts.last().zip(chunk.last()))
        {
            let read = start + text.len() as u64 + 1;
            if self.held_cost.saturating_mul(len) > self.budget.saturating_mul(read) {
                t.held = None;
            }
        }
        Ok(())
    }
}

impl Counting<'_> {
    /// Whether counting the parsed chunk `c` will stop holding the sides ([`Counting::consume`]'s
    /// two rules, its repeated and invalid lines counted as wanted ones): then the next chunk's
    /// sides are not built only to be dropped. Were it wrong, the sides would be read again,
    /// with the same verdicts.
    fn drops(&self, t: &NormTexts, (chunk, starts, parsed): &ParsedChunk) -> bool {
        if t.held.is_none() || t.file.is_none() {
            return false;
        }
        let mut cost = self.held_cost;
        for p in parsed.iter().flatten() {
            if self.wanted.contains(&p.0) {
                // Every word distinct, at most.
                cost += p.4 + cost::PER_DISTINCT * p.3.len() as u64;
            }
        }
        let read = starts.last().zip(chunk.last());
        cost > self.budget
            || self
                .file_len
                .zip(read)
                .is_some_and(|(len, (&start, (_, text)))| {
                    cost.saturating_mul(len)
                        > self.budget.saturating_mul(start + text.len() as u64 + 1)
                })
    }
}

/// A file opened again, to read its records by offset (the norm file's lines, the
/// signatures); `None` when it cannot be.
pub(crate) fn reopenable(path: &Path) -> Option<File> {
    // Stdin, a pipe or a device cannot be read again: its records are held.
    (path != Path::new("-"))
        .then(|| File::open(path).ok())
        .flatten()
        .filter(|f| f.metadata().is_ok_and(|m| m.is_file()))
}

impl NormTexts {
    /// Reads the norm file once: the rarity of distinctive tokens and (for the verifier) of
    /// words over every document, and the documents in `wanted`, held while their sides cost
    /// at most `budget` bytes (or whatever they cost, when the file cannot be read again).
    ///
    /// With `counts` (`--corpus-counts`), the rarities are those counts of a larger corpus
    /// instead of this file's. `extra`: what each wanted document costs besides its side
    /// (its signature, read again with it).
    pub fn read(
        path: &Path,
        wanted: &FxHashSet<u64>,
        opts: &SideOptions,
        budget: u64,
        extra: u64,
        counts: Option<&CorpusCounts>,
    ) -> Result<NormTexts> {
        const CHUNK: usize = 2048;
        let file = reopenable(path);
        let mut r = NdjsonReader::new(open_input(Some(path))?, false);
        let mut t = NormTexts {
            name: r.name().to_string(),
            df: DocFreq::default(),
            vocab: Vocab::default(),
            held: Some(Sides::default()),
            at: FxHashMap::default(),
            file,
            copies: Copies::default(),
        };
        let make = |text: &str, keep: bool| -> Result<Made, String> {
            let mut p = parse_line(text, opts)?;
            let wanted = wanted.contains(&p.id);
            let cost = if wanted {
                cost::estimate(&p, opts) + extra
            } else {
                0
            };
            let side = (keep && wanted).then(|| side(&mut p, opts));
            Ok((p.id, p.fp, p.tokens, p.hashes, cost, side))
        };
        let mut counting = Counting {
            wanted,
            opts,
            budget,
            held_cost: 0,
            file_len: t
                .file
                .as_ref()
                .and_then(|f| f.metadata().ok())
                .map(|m| m.len()),
            ids: Vec::new(),
            seen: Vec::new(),
        };
        // Counting is serial (ids are given in file order): it runs on one thread while the
        // next chunk is parsed on the others.
        let mut current: Option<ParsedChunk> = None;
        loop {
            let (mut chunk, mut starts) = (Vec::with_capacity(CHUNK), Vec::new());
            let more = match r.next_chunk_at(&mut chunk, &mut starts, CHUNK) {
                Ok(more) => more,
                Err(e) => {
                    if let Some(c) = current.take() {
                        counting.consume(&mut r, &mut t, c)?;
                    }
                    return Err(e);
                }
            };
            let keep = t.held.is_some() && !current.as_ref().is_some_and(|c| counting.drops(&t, c));
            let (parsed, done) = rayon::join(
                || -> Vec<Result<Made, String>> {
                    chunk.par_iter().map(|(_, text)| make(text, keep)).collect()
                },
                || match current.take() {
                    Some(c) => counting.consume(&mut r, &mut t, c),
                    None => Ok(()),
                },
            );
            done?;
            if !more {
                break;
            }
            current = Some((chunk, starts, parsed));
        }
        if let Some(c) = counts {
            t.use_counts(c, opts)?;
        }
        t.weigh_held();
        Ok(t)
    }

    /// Gives the held sides their word ids and weighs their tokens, once every document is
    /// counted.
    fn weigh_held(&mut self) {
        if let Some(held) = self.held.as_mut() {
            let (df, copies) = (&self.df, &self.copies);
            held.par_iter_mut().for_each(|(_, s)| {
                s.profile.set_ids(std::mem::take(&mut s.ids));
                s.copies = copies.of(s.fp);
                df.weigh(&mut s.tokens);
            });
        }
    }

    /// Takes the rarities of `c`, the counts of a corpus that holds this file's documents:
    /// counts lower than this file's own are refused.
    fn use_counts(&mut self, c: &CorpusCounts, opts: &SideOptions) -> Result<()> {
        let refuse = |what: &str| {
            anyhow!(
                "{}: the corpus counts do not hold this file's documents ({what}); give the counts of the corpus it is part of",
                self.name
            )
        };
        if c.documents < self.df.docs() {
            return Err(refuse(&format!(
                "{} documents, this file has {}",
                c.documents,
                self.df.docs()
            )));
        }
        if let Some((t, n)) = self
            .df
            .counts()
            .find(|&(t, n)| c.tokens.get(&t).copied().unwrap_or(1) < n)
        {
            return Err(refuse(&format!("token {t:016x} in {n} documents here")));
        }
        if opts.verify {
            if c.max_words != Some(opts.max_words as u64) {
                return Err(anyhow!(
                    "{}: the corpus counts were made with --max-words {}, this run has {} (or counted no words: made with --no-verify)",
                    self.name,
                    c.max_words.map_or("none".into(), |m| m.to_string()),
                    opts.max_words
                ));
            }
            let words = &c.words;
            self.vocab
                .set_doc_counts(|h| words.get(&h).copied().unwrap_or(1))
                .map_err(|h| refuse(&format!("word {h:016x}")))?;
            if let Some((f, n)) = self
                .copies
                .0
                .iter()
                .find(|&(f, &n)| c.texts.get(f).copied().unwrap_or(1) < n)
            {
                return Err(refuse(&format!("text {f:032x} in {n} documents here")));
            }
            self.copies = Copies(c.texts.clone());
        }
        self.df = c.doc_freq();
        Ok(())
    }

    /// This file's counts, as `--count-corpus` writes them.
    pub fn counts(&self, opts: &SideOptions) -> CorpusCounts {
        CorpusCounts {
            documents: self.df.docs(),
            max_words: opts.verify.then_some(opts.max_words as u64),
            tokens: self.df.counts().collect(),
            words: match opts.verify {
                true => self.vocab.counts().into_iter().collect(),
                false => FxHashMap::default(),
            },
            texts: match opts.verify {
                true => self.copies.0.clone(),
                false => FxHashMap::default(),
            },
        }
    }

    /// Documents counted.
    pub fn docs(&self) -> u64 {
        self.df.docs()
    }

    /// The number of documents each word id is in.
    pub fn doc_counts(&self) -> &[u32] {
        self.vocab.doc_counts()
    }

    /// Whether a wanted document was in the file.
    pub fn contains(&self, id: u64) -> bool {
        self.at.contains_key(&id)
    }

    /// What a wanted document's side costs at most (estimated from its line).
    pub fn cost(&self, id: u64) -> u64 {
        self.at.get(&id).map_or(0, |&(_, _, cost)| cost)
    }

    /// The sides of every wanted document, when they fit the budget; else `None`, and
    /// [`NormTexts::load`] reads them a batch at a time.
    pub fn take_held(&mut self) -> Option<Sides> {
        self.held.take()
    }

    /// Reads the sides of `ids` again from the file, on every thread.
    pub fn load(&self, ids: &[u64], opts: &SideOptions) -> Result<Sides> {
        let file = self
            .file
            .as_ref()
            .ok_or_else(|| anyhow!("{}: cannot be read again by offset", self.name))?;
        ids.par_iter()
            .map_init(Vec::new, |buf, &id| {
                let &(start, len, _) = &self.at[&id];
                buf.resize(len as usize, 0);
                file.read_exact_at(buf, start)
                    .map_err(|e| anyhow!("{}: byte {start}: {e}", self.name))?;
                let changed = || {
                    anyhow!(
                        "{}: changed while pl-score read it (document {id} is no longer at byte {start})",
                        self.name
                    )
                };
                let text = std::str::from_utf8(buf).map_err(|_| changed())?;
                let mut p = parse_line(text, opts).map_err(|_| changed())?;
                if p.id != id {
                    return Err(changed());
                }
                let mut s = side(&mut p, opts);
                if opts.verify {
                    let mut ids = Vec::new();
                    self.vocab.lookup(&p.hashes, &mut ids).ok_or_else(changed)?;
                    s.profile.set_ids(ids);
                }
                self.df.weigh(&mut s.tokens);
                s.copies = self.copies.of(s.fp);
                Ok((id, s))
            })
            .collect()
    }
}

/// What scoring keeps of a document that is in a pair, taking its parsed text (its word ids
/// are set by the caller).
fn side(p: &mut Parsed<'_>, opts: &SideOptions) -> Side {
    let norm = std::mem::take(&mut p.norm).into_owned();
    let tokens = &p.tokens;
    let marked = p.marked.take();
    let sample = fuzzy_sample(&norm, opts.fuzzy_sample, opts.sort_words);
    let sample_chars = sample.chars().count();
    let (sorted_sample, sample_end) = match sample {
        Cow::Owned(sorted) => (Some(sorted), 0),
        Cow::Borrowed(prefix) => (None, prefix.len()),
    };
    let words = if opts.explain {
        distinctive_words(&norm)
            .into_iter()
            .map(String::from)
            .collect()
    } else {
        Vec::new()
    };
    let (profile, written) = if opts.verify {
        let mut written = Written::of(marked.as_deref().unwrap_or(&norm));
        if let Some(m) = &marked {
            written.set_sample(&fuzzy_sample(m, opts.fuzzy_sample, opts.sort_words));
        }
        (Profile::new(&norm), written)
    } else {
        Default::default()
    };
    let mut text = norm;
    if !opts.verify {
        text.truncate(sample_end);
    }
    // Held as long as its document: no spare capacity (an edge sample or an unescaped text
    // has some).
    text.shrink_to_fit();
    Side {
        text,
        sample_chars,
        sorted_sample,
        sample_end,
        profile,
        tokens: tokens.iter().map(|&t| (t, 0.0)).collect(),
        words,
        sampled: p.sampled,
        ids: Vec::new(),
        fp: p.fp,
        copies: 1,
        written,
    }
}

/// The words a document adds to the corpus counts, as [`NormTexts::read`] counts them: its
/// distinctive tokens (sorted, unique) and the hashes of the words the verifier sees (its
/// [`edge_sample`] when longer than `max_words`), sorted and unique, and those of them that
/// are the ledger's numbers. The persistent index keeps these counts instead of reading the
/// whole corpus again.
pub fn counted_words(norm: &str, opts: &SideOptions) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let norm = &*digits_view(norm);
    let mut tokens = Vec::new();
    distinctive_tokens(norm, &mut tokens);
    let (mut hashes, mut numbers) = (Vec::new(), Vec::new());
    if opts.verify {
        let sample = edge_sample(norm, opts.max_words);
        let text = sample.as_deref().unwrap_or(norm);
        word_hashes(text, &mut hashes);
        hashes.sort_unstable();
        hashes.dedup();
        numbers = text_numbers(text);
    }
    (tokens, hashes, numbers)
}

/// The hashes of the ledger's numbers in a norm text as the verifier reads it (cut to
/// `max_words`, its two ends), sorted, each once: what pl-lsh --numbers pairs documents by.
pub fn number_hashes(norm: &str, max_words: usize) -> Vec<u64> {
    let norm = &*digits_view(norm);
    let sample = edge_sample(norm, max_words);
    text_numbers(sample.as_deref().unwrap_or(norm))
}

fn text_numbers(text: &str) -> Vec<u64> {
    let mut numbers: Vec<u64> = pl_core::verify::words(text)
        .filter(|w| pl_core::ledger::is_number(w))
        .map(|w| xxhash_rust::xxh3::xxh3_64(w.as_bytes()))
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// The sides of some norm lines, weighed with the whole corpus's counts that the caller
/// keeps elsewhere (the persistent index): `df` the distinctive tokens' document
/// frequencies, `word_count` the number of documents each word hash is in, `copies` the
/// number of documents with a document's normalized text (by id). Returns the sides
/// and the documents each of their local word ids is in, for [`pl_core::scorer::Scorer`].
/// The verdicts are those pl-score gives with the same corpus in its norm file: word ids are
/// local, but only compared with each other and looked up in the counts.
pub fn sides_of_lines(
    lines: &[(u64, &str)],
    opts: &SideOptions,
    df: &DocFreq,
    mut word_count: impl FnMut(u64) -> Result<u32>,
    mut copies: impl FnMut(u64) -> Result<u32>,
) -> Result<(Sides, Vec<u32>)> {
    // Parsed and made on every thread; the word ids and counts given in input order.
    let made: Vec<Result<(Side, Vec<u64>)>> = lines
        .par_iter()
        .map(|&(want, text)| {
            let mut p = parse_line(text, opts).map_err(|e| anyhow!("document {want}: {e}"))?;
            if p.id != want {
                return Err(anyhow!(
                    "document {want}: its stored line holds id {}",
                    p.id
                ));
            }
            let s = side(&mut p, opts);
            Ok((s, std::mem::take(&mut p.hashes)))
        })
        .collect();
    let mut sides = Sides::default();
    let mut local: FxHashMap<u64, u32> = FxHashMap::default();
    let mut counts: Vec<u32> = Vec::new();
    for (&(want, _), m) in lines.iter().zip(made) {
        let (mut s, hashes) = m?;
        if opts.verify {
            let mut ids = Vec::with_capacity(hashes.len());
            for &h in &hashes {
                let next = counts.len() as u32;
                let id = match local.entry(h) {
                    std::collections::hash_map::Entry::Occupied(e) => *e.get(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        counts.push(word_count(h)?);
                        *e.insert(next)
                    }
                };
                ids.push(id);
            }
            s.profile.set_ids(ids);
        }
        df.weigh(&mut s.tokens);
        s.copies = copies(want)?;
        sides.insert(want, s);
    }
    Ok((sides, counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk of norm lines (ids 1, 2, 3, each `len` bytes long), parsed.
    fn chunk(len: usize) -> ParsedChunk {
        let lines: Vec<(u64, String)> = (1..=3).map(|i| (i, "x".repeat(len))).collect();
        let starts = (0..3).map(|i| i * (len as u64 + 1)).collect();
        let made = (1..=3)
            .map(|id| Ok((id, 0, Vec::new(), Vec::new(), 4512, None)))
            .collect();
        (lines, starts, made)
    }

    #[test]
    fn a_chunk_that_will_stop_holding_the_sides_is_foreseen() {
        let wanted: FxHashSet<u64> = [1, 3].into_iter().collect();
        let opts = SideOptions {
            verify: true,
            max_words: 100,
            fuzzy_sample: 100,
            sort_words: false,
            explain: false,
        };
        let mut t = NormTexts {
            name: "norm".into(),
            df: DocFreq::default(),
            vocab: Vocab::default(),
            held: Some(Sides::default()),
            at: FxHashMap::default(),
            file: File::open(std::env::current_exe().unwrap()).ok(),
            copies: Copies::default(),
        };
        let counting = |budget: u64, file_len: u64| Counting {
            wanted: &wanted,
            opts: &opts,
            budget,
            held_cost: 0,
            file_len: Some(file_len),
            ids: Vec::new(),
            seen: Vec::new(),
        };
        // Two wanted lines whose sides cost 4,512 bytes each.
        let c = chunk(1000);
        assert!(counting(9000, 3003).drops(&t, &c), "over the budget");
        assert!(
            !counting(9100, 3003).drops(&t, &c),
            "within it, the whole file read"
        );
        assert!(
            counting(9100, 6006).drops(&t, &c),
            "within it, but not scaled to the file"
        );
        t.file = None;
        assert!(
            !counting(9000, 3003).drops(&t, &c),
            "a file not read again is held"
        );
    }
}
