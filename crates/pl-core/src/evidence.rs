//! What the differences between two texts say: OCR, or another document?
//!
//! Real OCR never reads a page the same way twice: characters are misread, words split and
//! merged, stray marks read as letters, a table's columns read in another order. A sibling
//! from the same template differs instead by a few clean *conflicts*: another invoice number,
//! date or amount, another name. So the two texts are aligned word by word ([`crate::diff`])
//! and every word of a replaced block is checked against the *whole* other document:
//!
//! - present there as it is, or after OCR folding (`rn`→`m`, `0`→`o`, …): the block moved
//!   (a table read in another order) or was garbled around it; not a conflict;
//! - near a word of the block it replaces (a character or two dropped, added or misread, a
//!   split or merged word, a long number the other side split): garbled by OCR; not a
//!   conflict; a number with one digit misread, or a short one with a digit lost facing it
//!   (`112` read `12`), is a conflict that weighs less;
//! - otherwise a **conflict**, but only when it carries meaning: a token with a digit
//!   (numbers, dates, amounts, references) or a word of four or more letters that other
//!   documents of the corpus also use (a real word, a name). A string that occurs in no other
//!   document and has no digit is what OCR makes of noise, a stamp or a logo.
//!
//! Inserted and deleted blocks (a page, a stamp, a cover sheet) are not conflicts: the
//! containment dimension judges how much of the smaller text the larger holds. A short block
//! deleted in one place and inserted, changed, in another (a header read in another order,
//! its date another) faces its old place as a replaced block does ([`moved`]).
//!
//! The result is counts, not a verdict: [`crate::scorer`] weighs them against the amount of
//! OCR damage seen in the same pair and the documents' length.

use std::ops::Range;

use xxhash_rust::xxh3::xxh3_64;

use crate::diff::Hunk;
use crate::verify::{explained, fold_ascii, fold_char, fold_into, words};

/// What the verifier keeps of one document: its word ids in text order (from one Vocab),
/// its distinct ids sorted, the sorted hashes of its words' OCR-folded forms (is a word
/// anywhere in it?), and where it names a recipient or signer ([`addressee::slots`]).
#[derive(Debug, Default, Clone)]
pub struct Profile {
    /// Word ids, in text order.
    ids: Vec<u32>,
    /// The distinct word ids, sorted.
    distinct: Vec<u32>,
    /// How many times the text has each of `distinct`.
    counts: Vec<u32>,
    /// Hashes of the distinct OCR-folded words, sorted.
    folded: Vec<u64>,
    /// How many words of the text have each of `folded` (saturating at 255; one byte each):
    /// what a pair's text without a stamp keeps of them ([`Profile::without`]). Empty in a
    /// profile made so.
    folded_times: Vec<u8>,
    /// The text's hash: which of two texts is aligned against the other (see [`evidence`]).
    text_hash: u64,
    /// Where the numbers are (byte offset, word index), for the ledger, which reads only
    /// them in most pairs: each number's first place once the ids are set
    /// ([`Profile::set_ids`]); `None` for a text past 4 GiB (the ledger then reads every word).
    numbers: Option<Vec<(u32, u32)>>,
    /// The numbers OCR-folded, for the ledger's near matches: folded once per document, not
    /// once per pair.
    folded_numbers: crate::ledger::Folded,
    /// The text without its spaces, every 4 bytes of it holding a digit, sorted: a number
    /// with 4 bytes not among them is not inside the text ([`Profile::may_hold_inside`]).
    /// Empty (nothing ruled out) when they would take more than twice the text's bytes.
    digit_grams: Vec<u32>,
    slots: Vec<addressee::Slot>,
    /// The text's stamps and annotations ([`crate::stamp::spans`]).
    pub(crate) stamps: Vec<crate::stamp::Stamp>,
}

impl Profile {
    /// The profile of a normalized text; its word ids are given by the caller's vocabulary
    /// ([`Profile::set_ids`]).
    pub fn new(norm: &str) -> Profile {
        Profile::read(norm, true)
    }

    /// [`Profile::new`], looking for stamps unless a pair's text with its stamps taken out
    /// ([`crate::stamp::Unstamped`], made for each pair) is read: nothing reads them there.
    pub(crate) fn read(norm: &str, stamps: bool) -> Profile {
        let mut folded = Vec::new();
        let mut buf = Scratch::default();
        let mut numbers = u32::try_from(norm.len()).ok().map(|_| Vec::new());
        let mut folded_numbers = crate::ledger::Folded::default();
        for (i, w) in words(norm).enumerate() {
            folded.push(fold_hash(w, &mut buf));
            if !crate::ledger::is_number(w) {
                continue;
            }
            folded_numbers.push(w);
            if let Some(at) = numbers.as_mut() {
                // Both fit: the text's length does.
                let offset = w.as_ptr() as usize - norm.as_ptr() as usize;
                at.push((offset as u32, i as u32));
            }
        }
        folded_numbers.finish();
        let mut folded_times = unstamped::counted_set(&mut folded);
        folded.shrink_to_fit();
        folded_times.shrink_to_fit();
        if let Some(at) = numbers.as_mut() {
            at.shrink_to_fit();
        }
        Profile {
            ids: Vec::new(),
            distinct: Vec::new(),
            counts: Vec::new(),
            folded,
            folded_times,
            text_hash: xxh3_64(norm.as_bytes()),
            numbers,
            folded_numbers,
            digit_grams: digit_grams(norm),
            slots: addressee::slots(norm),
            stamps: if stamps {
                crate::stamp::spans(norm)
            } else {
                Vec::new()
            },
        }
    }

    /// False when `w` (no spaces in it) is certainly not inside the text read without its
    /// spaces: 4 of its bytes holding a digit are nowhere there together. True says nothing.
    pub(crate) fn may_hold_inside(&self, w: &[u8]) -> bool {
        self.digit_grams.is_empty()
            || digit_pieces(w).all(|g| self.digit_grams.binary_search(&g).is_ok())
    }

    /// The distinct numbers of `norm` (the text this profile is of) with their ids, each at
    /// its first place, in text order.
    pub(crate) fn numbers<'t>(
        &'t self,
        norm: &'t str,
    ) -> Box<dyn Iterator<Item = (&'t str, u32)> + 't> {
        match &self.numbers {
            Some(at) => Box::new(at.iter().map(move |&(offset, i)| {
                let rest = &norm[offset as usize..];
                let end = memchr::memchr(b' ', rest.as_bytes()).unwrap_or(rest.len());
                (&rest[..end], self.ids[i as usize])
            })),
            None => {
                let mut seen = rustc_hash::FxHashSet::default();
                Box::new(
                    words(norm)
                        .zip(self.ids.iter().copied())
                        .filter(move |&(w, id)| crate::ledger::is_number(w) && seen.insert(id)),
                )
            }
        }
    }

    /// The numbers OCR-folded, in text order.
    pub(crate) fn folded_numbers(&self) -> &crate::ledger::Folded {
        &self.folded_numbers
    }

    /// Sets the text's word ids, in text order ([`crate::verify::Vocab::add`]).
    pub fn set_ids(&mut self, mut ids: Vec<u32>) {
        if let Some(at) = self.numbers.as_mut() {
            // Read for each pair, deduplicated once: the ledger counts each number once.
            let mut seen = rustc_hash::FxHashSet::default();
            at.retain(|&(_, i)| seen.insert(ids[i as usize]));
            at.shrink_to_fit();
        }
        ids.shrink_to_fit();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        let (mut distinct, mut counts) = (Vec::<u32>::new(), Vec::<u32>::new());
        for id in sorted {
            if distinct.last() == Some(&id) {
                *counts.last_mut().expect("one count per id") += 1;
            } else {
                distinct.push(id);
                counts.push(1);
            }
        }
        distinct.shrink_to_fit();
        counts.shrink_to_fit();
        self.counts = counts;
        self.ids = ids;
        self.distinct = distinct;
    }

    /// The word ids, in text order.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// The profile of a normalized text counted into `vocab` (its ids filled in), in one step:
    /// for callers that count documents one at a time.
    pub fn counted(norm: &str, vocab: &mut crate::verify::Vocab) -> Profile {
        let mut p = Profile::new(norm);
        let (mut hashes, mut ids) = (Vec::new(), Vec::new());
        crate::verify::word_hashes(norm, &mut hashes);
        vocab.add(&hashes, &mut ids);
        p.set_ids(ids);
        p
    }

    /// Whether the text has the word of id `id`.
    pub fn has_id(&self, id: u32) -> bool {
        self.distinct.binary_search(&id).is_ok()
    }

    /// Whether the text has `word` (of id `id`), as it is or up to OCR folding.
    fn has(&self, word: &str, id: u32, buf: &mut Scratch) -> bool {
        self.has_id(id) || self.has_folded(word, buf)
    }

    /// Whether the text has a word whose OCR-folded form is `word`'s (`fiir` for `für`).
    pub(crate) fn has_folded(&self, word: &str, buf: &mut Scratch) -> bool {
        self.folded.binary_search(&fold_hash(word, buf)).is_ok()
    }
}

/// Working memory reused across the words of a pair: the verifier looks up thousands of
/// words per pair, and allocating for each cost more than the lookups.
#[derive(Default)]
pub(crate) struct Scratch {
    chars: Vec<char>,
    bytes: Vec<u8>,
}

/// The hash of a word's OCR-folded form (its UTF-8 bytes hashed at once).
fn fold_hash(word: &str, buf: &mut Scratch) -> u64 {
    buf.bytes.clear();
    if word.is_ascii() {
        // An ASCII word folds to ASCII: its bytes are the UTF-8 of the folded characters.
        fold_ascii(word.as_bytes(), |c| buf.bytes.push(c));
        return xxh3_64(&buf.bytes);
    }
    fold_into(&[word], &mut buf.chars);
    for c in &buf.chars {
        let mut b = [0u8; 4];
        buf.bytes
            .extend_from_slice(c.encode_utf8(&mut b).as_bytes());
    }
    xxh3_64(&buf.bytes)
}

/// Which text a conflict word is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The first text.
    A,
    /// The second text.
    B,
}

impl Side {
    /// The other text.
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// A word one text has and the other has nowhere, even up to OCR.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// The word, as normalized.
    pub word: String,
    /// The text it is in.
    pub side: Side,
    /// Whether it holds a digit (a number, date, amount or reference).
    pub digits: bool,
    /// A number the other text has with one digit read as another, same length, four
    /// characters or more: what a rough scan does now and then, and also what the next
    /// invoice number is. Weighed apart.
    pub one_digit: bool,
}

/// The differences of two aligned texts, counted; `pl-score --explain` writes the counts.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Evidence {
    /// Words the alignment matched (in each text).
    pub matched: usize,
    /// Words in replaced blocks, both texts together.
    pub replaced: usize,
    /// Words in inserted or deleted blocks, both texts together.
    pub added: usize,
    /// Words of replaced blocks that are OCR damage: present elsewhere, folded equal, or near
    /// the words they replace.
    pub garbled: usize,
    /// Replaced blocks (inner, or short) writing other numbers (`near::other_numbers`).
    #[serde(default)]
    pub numbers_replaced: usize,
    /// Words edited in texts otherwise the same word for word (counted by the scorer's
    /// `wording`, not the alignment).
    #[serde(default)]
    pub words_edited: usize,
    /// A passage written otherwise in a clean pair otherwise one text (the scorer's `passage`):
    /// asked of a pair that would be kept, and of every pair where held apart is decided.
    #[serde(default)]
    pub passage_replaced: bool,
    /// Conflicts, in text order of the alignment.
    #[serde(skip)]
    pub conflicts: Vec<Conflict>,
    /// Conflicting numbers that stand against each other: per replaced block, the smaller of
    /// the two texts' counts of conflicts with digits. A number on one side only is content
    /// one scan holds and the other lost or gained (a line, a stamp, a page edge).
    pub digit_subs: usize,
    /// Conflicting numbers standing against each other that differ in one digit only (see
    /// [`Conflict::one_digit`]); not counted in `digit_subs`.
    pub one_digit_subs: usize,
    /// Numbers of either text the other writes only as another value of the same digits
    /// ([`crate::written::values_apart`]; counted by the scorer, not the alignment).
    #[serde(default)]
    pub values_apart: usize,
    /// The same for conflicting words: another name, other wording.
    pub word_subs: usize,
    /// Known words standing against a word of letters no other document uses (a rare name):
    /// evidence only where the scan is clean, since heavy OCR makes such words too.
    pub rare_word_subs: usize,
    /// Known words standing against a known word the other text has, but fewer times (the
    /// recipient's name where the sender's is the same name): kept only where the text
    /// holding that word has more of few other shared words than the other text, since a
    /// misread elsewhere thins a text's counts too (`OUTNUMBERED_SHARE`).
    #[serde(default)]
    pub outnumbered_subs: usize,
    /// The outnumbered words' substitutions as the alignment counts them, by the text that
    /// holds the word (A, B); `outnumbered_subs` is what their count gate keeps of them.
    #[serde(skip)]
    pub outnumbered_in: [usize; 2],
    /// Names facing each other where a letter names its recipient or signer ([`addressee`]).
    #[serde(default)]
    pub addressee_subs: usize,
    /// Names of a slot standing alone, facing a name the other text holds elsewhere
    /// ([`addressee::Names::unfaced`]).
    #[serde(default)]
    pub addressee_unfaced: usize,
    /// Meaningful words (numbers, known words) one text has and the other has nowhere, in
    /// blocks away from both texts' start and end: content added or left out in the middle,
    /// as another edition of a text does (a page, a cover sheet or a stamp sits at an edge).
    pub inner_added: usize,
    /// Of `inner_added`, the words without digits: wording one text has and the other not.
    pub inner_words: usize,
    /// The longest replaced block away from both texts' edges that OCR does not explain, in
    /// words of its shorter side: a passage rewritten, as another edition does, is long on
    /// both sides; OCR garbles a word or two at a time.
    #[serde(default)]
    pub longest_replaced: usize,
    /// The longest block one text has in one place away from both edges, facing a block the
    /// other text has there ([`facing`]), in words the blocks exceed each other's by, the
    /// smaller side's: another edition's rewritten section.
    #[serde(default)]
    pub facing_words: usize,
    /// The count stopped early: the verdict was settled (see [`evidence_until`]).
    pub stopped: bool,
}

impl Evidence {
    /// Conflicts that hold a digit.
    pub fn digit_conflicts(&self) -> usize {
        self.conflicts.iter().filter(|c| c.digits).count()
    }

    /// Conflicts that are words.
    pub fn word_conflicts(&self) -> usize {
        self.conflicts.len() - self.digit_conflicts()
    }
}

/// Aligns `a` and `b` (normalized texts with their [`Profile`]s) and counts their differences.
/// `known(id)` tells whether a word id is used by another document of the corpus than these
/// two (for a word without digits to count as a conflict). Symmetric: swapping the texts
/// swaps the sides of the conflicts and nothing else, because the alignment is always made
/// from the text with the smaller hash.
pub fn evidence(
    a: &str,
    pa: &Profile,
    b: &str,
    pb: &Profile,
    known: impl Fn(u32, Side) -> bool + Copy,
) -> Evidence {
    evidence_until(a, pa, b, pb, known, |_| false, |_| false)
}

/// Whether [`evidence`]'s alignment of two texts can match `n` of their words: the words
/// they have in common (with repeats) are counted first, then the longest common
/// subsequence of their word ids, which is what the alignment matches
/// ([`crate::diff::lcs_len`], without the rows the alignment walks back through).
pub fn may_match(pa: &Profile, pb: &Profile, n: usize) -> bool {
    common_words(pa, pb) >= n && crate::diff::lcs_len(&pa.ids, &pb.ids) >= n
}

/// The word ids two texts have in common, each as often as the text holding it fewer times
/// has it.
fn common_words(pa: &Profile, pb: &Profile) -> usize {
    pa.shared_counts(pb)
        .map(|(_, n, m)| n.min(m) as usize)
        .sum()
}

/// [`evidence`], stopped after the first replaced block for which `decided` says the counts
/// so far settle the verdict (`stopped` is then set; the counts are those up to that block).
/// Blocks are visited in the same order whichever text is given first. `constant(id)` says
/// whether a word is a template's constant ([`CONSTANT_DF`] documents or more hold it), which a
/// unique number facing it may be a misreading of (`constant_misread`).
pub fn evidence_until(
    a: &str,
    pa: &Profile,
    b: &str,
    pb: &Profile,
    known: impl Fn(u32, Side) -> bool + Copy,
    decided: impl Fn(&Evidence) -> bool,
    constant: impl Fn(u32) -> bool + Copy,
) -> Evidence {
    debug_assert_eq!(
        pa.text_hash,
        xxh3_64(a.as_bytes()),
        "a profile of another text"
    );
    debug_assert_eq!(
        pb.text_hash,
        xxh3_64(b.as_bytes()),
        "a profile of another text"
    );
    let mut e = if (pb.text_hash, b) < (pa.text_hash, a) {
        let mut e = evidence_in_order(
            b,
            pb,
            a,
            pa,
            move |id, s: Side| known(id, s.other()),
            decided,
            constant,
        );
        for c in &mut e.conflicts {
            c.side = c.side.other();
        }
        e.outnumbered_in.reverse();
        e
    } else {
        evidence_in_order(a, pa, b, pb, known, decided, constant)
    };
    weigh_outnumbered(&mut e, [(a, pa), (b, pb)]);
    let names = addressee::names([(a, pa), (b, pb)], known);
    e.addressee_subs = names.subs;
    e.addressee_unfaced = names.unfaced;
    e
}

/// [`evidence_until`] with `a` the text aligned against `b`.
fn evidence_in_order(
    a: &str,
    pa: &Profile,
    b: &str,
    pb: &Profile,
    known: impl Fn(u32, Side) -> bool + Copy,
    decided: impl Fn(&Evidence) -> bool,
    constant: impl Fn(u32) -> bool + Copy,
) -> Evidence {
    let mut e = Evidence::default();
    let mut buf = Scratch::default();
    // Both texts' words, split once and only as far as the blocks need them (a garbled word's
    // counterpart may sit in the words just before or after its block: the alignment matched
    // a repeated word across it).
    let (mut all_a, mut all_b) = (seen_words(a), seen_words(b));
    let mut matched_a = 0;
    let mut last = 0;
    let mut facing = facing::Facing::default();
    let mut pure: Vec<Hunk> = Vec::new();
    for h in crate::diff::word_hunks(&pa.ids, &pb.ids) {
        matched_a += h.old.start - last;
        last = h.old.end;
        let inner = h.old.start > 0
            && h.new.start > 0
            && h.old.end < pa.ids.len()
            && h.new.end < pb.ids.len();
        if inner {
            facing.add(&h.old, &h.new);
        }
        if h.old.is_empty() || h.new.is_empty() {
            e.added += h.old.len() + h.new.len();
            pure.push(h.clone());
            if inner {
                let (mine, ids, other, side) = if h.old.is_empty() {
                    (
                        all_b.range(h.new.clone()),
                        &pb.ids[h.new.clone()],
                        pa,
                        Side::B,
                    )
                } else {
                    (
                        all_a.range(h.old.clone()),
                        &pa.ids[h.old.clone()],
                        pb,
                        Side::A,
                    )
                };
                for (w, &id) in mine.iter().zip(ids) {
                    if meaningful(w, id, |id| known(id, side)) && !other.has(w, id, &mut buf) {
                        e.inner_added += 1;
                        e.inner_words += usize::from(!w.bytes().any(|c| c.is_ascii_digit()));
                    }
                }
            }
            continue;
        }
        replaced_block(
            &mut e,
            &h,
            inner,
            [&mut all_a, &mut all_b],
            [pa, pb],
            known,
            constant,
            &mut buf,
        );
        if decided(&e) {
            e.stopped = true;
            e.facing_words = facing.most();
            return e;
        }
    }
    e.matched = matched_a + pa.ids.len() - last;
    e.facing_words = facing.most();
    let seen = [&mut all_a, &mut all_b];
    moved::weigh_moved(&mut e, &pure, seen, [pa, pb], known, constant, &mut buf);
    e
}

/// Counts a replaced block `h` of the alignment (`inner`: away from both texts' start and end)
/// into `e`: its words sorted into OCR damage and conflicts, conflicts standing against each
/// other counted as substitutions.
#[allow(clippy::too_many_arguments)]
fn replaced_block<'t, I: Iterator<Item = &'t str>>(
    e: &mut Evidence,
    h: &Hunk,
    inner: bool,
    [all_a, all_b]: [&mut SeenWords<'t, I>; 2],
    [pa, pb]: [&Profile; 2],
    known: impl Fn(u32, Side) -> bool + Copy,
    constant: impl Fn(u32) -> bool + Copy,
    buf: &mut Scratch,
) {
    e.replaced += h.old.len() + h.new.len();
    let (near_a, near_b) = (widened(&h.old, pa.ids.len()), widened(&h.new, pb.ids.len()));
    let (all_a, all_b) = (all_a.upto(near_a.end), all_b.upto(near_b.end));
    let (x, y) = (clamp(all_a, &h.old), clamp(all_b, &h.new));
    let compared = inner || h.old.len().max(h.new.len()) < EDGE_BLOCK;
    e.numbers_replaced += usize::from(compared && near::other_numbers(x, y));
    if explained(x, y) {
        e.garbled += x.len() + y.len();
        return;
    }
    let inner_replaced = usize::from(inner) * h.old.len().min(h.new.len());
    e.longest_replaced = e.longest_replaced.max(inner_replaced);
    let (near_a, near_b) = (clamp(all_a, &near_a), clamp(all_b, &near_b));
    let (mut count, mut unknowns, mut outnumbered) = ([(0, 0, 0); 2], [0; 2], [0; 2]);
    let (ids_a, ids_b) = (&pa.ids[h.old.clone()], &pb.ids[h.new.clone()]);
    let (at_a, at_b) = ((all_a, h.old.start), (all_b, h.new.start));
    for (words, ids, (this, other), other_words, (facing, fids), own, side) in [
        (x, ids_a, (pa, pb), near_b, (y, ids_b), at_a, Side::A),
        (y, ids_b, (pb, pa), near_a, (x, ids_a), at_b, Side::B),
    ] {
        // Folded once for every word of the block compared with them, when one is.
        let mut near = NearWords::new(other_words, words.len());
        let before = e.conflicts.len();
        let (mut unknown, mut outnumber) = (0, 0);
        for (i, (w, &id)) in words.iter().zip(ids).enumerate() {
            let digits = w.bytes().any(|c| c.is_ascii_digit());
            // A short number is everywhere: its presence elsewhere proves nothing.
            if !meaningful(w, id, |id| known(id, side))
                || ((!digits || w.len() >= 4) && other.has(w, id, buf))
            {
                if !digits && is_name_like(w) {
                    let (rare, outnumbered) = name_standing(
                        (w, id, known(id, side)),
                        [this, other],
                        facing,
                        (&mut near, i),
                        buf,
                    );
                    unknown += usize::from(rare);
                    outnumber += usize::from(outnumbered);
                }
                e.garbled += 1;
                continue;
            }
            let one_digit = match near_any(w, digits, near.at(i, buf), buf) {
                Near::Yes => {
                    e.garbled += 1;
                    continue;
                }
                Near::OneDigit => true,
                Near::No => misread_facing((w, id, i), side, (facing, fids), own, known, constant),
            };
            e.conflicts.push(Conflict {
                word: (*w).to_string(),
                side,
                digits,
                one_digit,
            });
        }
        count[side as usize] = count_kinds(&e.conflicts[before..]);
        unknowns[side as usize] = unknown;
        outnumbered[side as usize] = outnumber;
    }
    // A long block at either text's start or end is what each copy added there (two
    // cover sheets, two different added pages), not one value against another; a short
    // one (a date in the first line) is compared like any other.
    if compared {
        count_substitutions(e, count, unknowns, outnumbered);
    }
}

/// Adds a block's conflicts to `e` as substitutions, each side's `count` being its
/// [`count_kinds`], `unknowns` its rare words of letters and `outnumbered` its known words
/// the other text has fewer times: what stands against something on the other side is a
/// substitution, the rest an insertion.
fn count_substitutions(
    e: &mut Evidence,
    count: [(usize, usize, usize); 2],
    unknowns: [usize; 2],
    outnumbered: [usize; 2],
) {
    let d = count[0].0.min(count[1].0);
    let w = count[0].1.min(count[1].1);
    // A known word against one the other text has fewer times (the recipient's name
    // against the sender's, which the letter repeats).
    let known = (count[0].1 + outnumbered[0])
        .min(count[1].1 + outnumbered[1])
        .min(count[0].1 + count[1].1);
    // Known words against rare ones (a name only this letter has); two rare ones are
    // OCR noise as likely.
    let with_rare = (count[0].1 + outnumbered[0] + unknowns[0])
        .min(count[1].1 + outnumbered[1] + unknowns[1])
        .min(count[0].1 + count[1].1);
    // The outnumbered words face the side with more conflicts.
    e.outnumbered_in[usize::from(count[0].1 > count[1].1)] += known - w;
    e.rare_word_subs += with_rare - known;
    let one = count[0].2.min(count[1].2).min(d);
    e.digit_subs += d - one;
    e.one_digit_subs += one;
    e.word_subs += w;
    let known_words = count[0].1 + count[1].1;
    e.inner_added += count[0].0 + count[1].0 - 2 * d + known_words.saturating_sub(w);
    e.inner_words += known_words.saturating_sub(w);
}

/// A word's characters OCR-folded one by one ([`fold_char`]).
fn folded(w: &str) -> Vec<char> {
    w.chars().map(fold_char).collect()
}

/// Documents that hold a number for it to count as a template's constant in
/// `constant_misread`: more than the ledger's widest count ([`crate::ledger::WIDE_DF`]),
/// so that no cluster of copies makes its own numbers constants (and the index rescores at a
/// line it already has).
pub const CONSTANT_DF: u32 = crate::ledger::WIDE_DF + 1;

/// Four letters or more and nothing else: what a name is made of.
fn is_name_like(w: &str) -> bool {
    w.chars().filter(|c| c.is_alphabetic()).count() >= 4 && w.chars().all(char::is_alphabetic)
}

/// `words[r]`, cut to the words there are.
fn clamp<'w, 'a>(words: &'w [&'a str], r: &Range<usize>) -> &'w [&'a str] {
    &words[r.start.min(words.len())..r.end.min(words.len())]
}

/// Whether a word can tell two documents apart: a token with a digit and two characters,
/// or a word of four letters or more that another document of the corpus uses.
fn meaningful(w: &str, id: u32, known: impl Fn(u32) -> bool) -> bool {
    if w.bytes().any(|c| c.is_ascii_digit()) {
        w.len() >= 2
    } else {
        w.chars().count() >= 4 && known(id)
    }
}

/// Conflicts with digits, without, and with one digit misread.
fn count_kinds(conflicts: &[Conflict]) -> (usize, usize, usize) {
    let digits = conflicts.iter().filter(|c| c.digits).count();
    let one = conflicts.iter().filter(|c| c.one_digit).count();
    (digits, conflicts.len() - digits, one)
}

/// Words a replaced block at a text's edge needs on its longer side to count as added content.
const EDGE_BLOCK: usize = 12;

/// Words on either side of a replaced block searched for a garbled word's counterpart.
const NEAR_WINDOW: usize = 6;

mod addressee;
mod misread;
mod moved;
mod size;
pub use addressee::substitutions as addressee_subs;
mod facing;
mod grams;
mod near;
pub(crate) use near::numeric;
use near::widened;
mod outnumbered;
mod seen;
mod unstamped;
use grams::{digit_grams, digit_pieces};
use misread::misread_facing;
pub(crate) use near::LONG_TOKEN;
use near::{near_any, Near, NearWords};
use outnumbered::{name_standing, weigh_outnumbered};
use seen::{seen_words, SeenWords};

#[cfg(test)]
mod tests;
