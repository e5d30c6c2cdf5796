//! Stamps and annotations: what a receipt stamp, a handwritten note or a clerk's mark adds to
//! a scan (`EINGEGANGEN 20.02.2021`, `Eingang: 4.3.21`, `Bearbeitet: A. Becker`,
//! `erl. 12.3. MR`, `Kopie an Becker`, `bez. 3.4.`, `Az. 12/3`, `Paid by check #1044 on
//! 12/17`, `RECEIVED SEP 20 2019`, `COPY`), and the words it overprints, are one inserted
//! block, not conflicts.
//!
//! Two steps:
//!
//! 1. **Recognition** ([`spans`]), once per document, over the verifier's text (the
//!    normalized digits view: lowercase, no punctuation, a date's separators dropped, so
//!    `20.02.2021` is `20022021`): a stamp *keyword* ([`KEYWORDS`]) — as written, OCR-folded
//!    (`eingegangeh`, `cingang`), one or two characters off in a long one, or split in two
//!    (`geb ucht`) — followed by what that stamp takes: a date (digit tokens and month names,
//!    after fillers such as `am`, `on`, `by check`), a name (an initial and a word), a file
//!    number, or nothing (`kopie`, `copy`, `zur ablage`); then initials (tokens of one to three
//!    letters). A keyword without its argument is prose (`we received your letter`), not a
//!    stamp. One pass over the words, each compared with the few keywords of about its length
//!    whose first or last letters it shares: linear in the text, deterministic. The spans are
//!    kept in the verifier's [`Profile`] (built once per document, by pl-score and the index
//!    alike), which is why recognition lives there and not in the corpus counts: it needs
//!    the text alone, so no new count line exists for the index to follow, and pl-score, the
//!    index and pl-spark see the same spans by construction.
//! 2. **The pair** ([`Unstamped::of`]): a stamp of one text is taken out of it when the
//!    other text does not hold its keyword (as written or OCR-folded). A keyword both texts
//!    hold is their own text — a letter that says "received" in its prose, or two scans of
//!    one stamped paper — and stays, with everything after it, as evidence. So does a damaged
//!    form another document of the corpus writes the same way: it is a word (`bearbeiten`,
//!    `gearbeitet`, `anlage`), not a keyword OCR garbled. With a stamp,
//!    the words it overprints go too: within [`OVERPRINT`] words of it, the words the other
//!    text has nowhere that are garble: no other document of the corpus holds them, and they are
//!    letters or a number's fragment (under four characters). Known words and longer numbers there
//!    stay evidence: a stamp on a household letter does not hide the other first name, nor
//!    on a sibling invoice its number. What is taken out is then an inserted block for the
//!    alignment ([`crate::evidence`]), which weighs nothing, and the order-free ledger does
//!    not count the stamp's date against the text's numbers.
//!
//! The exact-copy fingerprint reads the normalized text, not this view: a stamped copy is not
//! an exact copy. A document's stamps cost a few words of memory; a stamped pair's texts are
//! copied once without the stamps (linear in the texts).

use std::ops::Range;

use crate::evidence::{Profile, Scratch, Side};
use crate::scorer::Doc;
use crate::verify::{edits_within, fold_char, words};

/// What follows a stamp's keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    /// A date (`eingegangen 20022021`, `received sep 20 2019`), then maybe initials.
    Date,
    /// A date, then maybe a name (`erl 1232021 a becker`).
    DateName,
    /// A name: an initial and a word (`bearbeitet a becker`).
    Name,
    /// A file number (`az 123`).
    Number,
    /// Nothing: the keyword is the stamp (`kopie`, `copy`), though a name may follow `an`.
    Alone,
}

/// The stamps' keywords, as the verifier's text writes them, and what each takes. Keywords of
/// five letters or more are also recognised OCR-damaged ([`keyword_at`]).
pub const KEYWORDS: &[(&str, &str)] = &[
    ("eingegangen", "date"),
    ("eingang", "date"),
    ("received", "date"),
    ("paid", "date"),
    ("bezahlt", "date"),
    ("bez", "date"),
    ("gebucht", "date"),
    ("überwiesen", "date"),
    ("wiedervorlage", "date"),
    ("filed", "date"),
    ("entered", "date"),
    ("follow", "date"),
    ("erl", "date-name"),
    ("erledigt", "date-name"),
    ("bearbeitet", "name"),
    ("az", "number"),
    ("kopie", "alone"),
    ("copy", "alone"),
    ("ablage", "alone"),
];

fn takes(name: &str) -> Takes {
    match name {
        "date" => Takes::Date,
        "date-name" => Takes::DateName,
        "name" => Takes::Name,
        "number" => Takes::Number,
        _ => Takes::Alone,
    }
}

/// Words between a keyword and its argument that belong to the stamp (`eingegangen am`,
/// `paid by check 1044 on`, `follow up`, `kopie an`, `zur ablage`).
const FILLERS: &[&str] = &["am", "on", "by", "check", "up", "an", "den", "zur", "per"];

/// Month names and abbreviations a stamp's date may spell (German and English).
pub(crate) const MONTHS: &[&str] = &[
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "januar",
    "februar",
    "märz",
    "marz",
    "mai",
    "juni",
    "juli",
    "okt",
    "oktober",
    "dez",
    "dezember",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// Words on either side of a stamp in which the other text's missing garble counts as
/// overprinted by it.
pub const OVERPRINT: usize = 5;

/// Tokens a stamp's date or name may span at most; a stamp is at most a dozen words.
const MAX_ARG: usize = 4;

/// One recognised stamp: its words (indices into the text's words) and its keyword's index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// The stamp's words, keyword and fillers included.
    pub words: Range<u32>,
    /// The keyword's word (or the first of its two halves).
    pub keyword: u32,
    /// The keyword was split in two words (`geb ucht`).
    pub split: bool,
    /// The keyword is written as in [`KEYWORDS`] (else it is a damaged form).
    pub exact: bool,
}

/// The stamps of a text (the verifier's normalized digits view), in text order, apart.
pub fn spans(text: &str) -> Vec<Stamp> {
    let w: Vec<&str> = words(text).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < w.len() {
        let Some((kind, len)) = keyword_at(&w, i) else {
            i += 1;
            continue;
        };
        match argument(&w, i + len, kind) {
            Some(end) => {
                // `zur ablage`, `follow up` are read from the keyword on; `zur` joins it.
                let start = if i > 0 && w[i - 1] == "zur" { i - 1 } else { i };
                out.push(Stamp {
                    words: start as u32..end as u32,
                    keyword: i as u32,
                    split: len == 2,
                    exact: len == 1 && KEYWORDS.iter().any(|(k, _)| *k == w[i]),
                });
                i = end.max(i + 1);
            }
            None => i += 1,
        }
    }
    out
}

/// The keyword at word `i`, what it takes and how many words it spans (two when OCR split it),
/// if any.
fn keyword_at(w: &[&str], i: usize) -> Option<(Takes, usize)> {
    if let Some(k) = keyword(&[w[i]]) {
        return Some((k, 1));
    }
    let (a, b) = (w[i], w.get(i + 1)?);
    // Halves with another character than letters are no keyword's: `keyword` says so.
    if a.len() >= 2 && b.len() >= 2 {
        // Only keywords long enough that a split one is not a pair of ordinary words.
        return keyword(&[a, b])
            .filter(|_| a.chars().count() + b.chars().count() >= 6)
            .map(|k| (k, 2));
    }
    None
}

/// The most characters a word read as a keyword has.
const KEYWORD_CHARS: usize = 15;

/// A word's folded characters ([`fold_char`] one by one), on the stack: every word of every
/// text is asked whether it is a keyword, so asking allocates nothing.
struct Folded {
    chars: [char; KEYWORD_CHARS],
    len: usize,
}

impl Folded {
    /// The folded characters of `parts` written together; `None` when they are not 2 to
    /// [`KEYWORD_CHARS`] letters.
    fn of(parts: &[&str]) -> Option<Folded> {
        let mut f = Folded {
            chars: ['\0'; KEYWORD_CHARS],
            len: 0,
        };
        for c in parts.iter().flat_map(|p| p.chars()) {
            if f.len == KEYWORD_CHARS || !c.is_alphabetic() {
                return None;
            }
            f.chars[f.len] = fold_char(c);
            f.len += 1;
        }
        (f.len >= 2).then_some(f)
    }

    fn chars(&self) -> &[char] {
        &self.chars[..self.len]
    }
}

/// The keywords folded, once, with what each takes.
fn folded_keywords() -> &'static [(Folded, Takes)] {
    static FOLDED: std::sync::OnceLock<Vec<(Folded, Takes)>> = std::sync::OnceLock::new();
    FOLDED.get_or_init(|| {
        KEYWORDS
            .iter()
            .map(|&(k, t)| (Folded::of(&[k]).expect("a keyword is letters"), takes(t)))
            .collect()
    })
}

/// Edits a damaged form of a keyword of `len` letters may have: none under five letters, one
/// up to nine, two from ten.
fn allowed_edits(len: usize) -> usize {
    match len {
        0..=4 => 0,
        5..=9 => 1,
        _ => 2,
    }
}

/// Which keywords a word may be, by what is read without folding it whole: bit `j` for
/// [`KEYWORDS`]`[j]`. A match shares its keyword's first or last two folded letters (an exact
/// one both) and has about its length ([`allowed_edits`]); every keyword folds to `a`–`z`.
struct Sieve {
    /// The keywords whose first two folded letters these are (by [`Sieve::letter`]).
    first: [[u32; 27]; 27],
    /// The keywords whose last two folded letters these are.
    last: [[u32; 27]; 27],
    /// The keywords a word of this many letters may be.
    len: [u32; KEYWORD_CHARS + 1],
    /// [`Sieve::letter`] of each ASCII character.
    ascii: [u8; 128],
}

impl Sieve {
    fn new() -> Sieve {
        let mut s = Sieve {
            first: [[0; 27]; 27],
            last: [[0; 27]; 27],
            len: [0; KEYWORD_CHARS + 1],
            ascii: [0; 128],
        };
        for (c, l) in s.ascii.iter_mut().enumerate() {
            *l = Sieve::folded_letter(char::from(c as u8));
        }
        let at = |c: char| {
            assert!(c.is_ascii_lowercase(), "a keyword folds to a-z");
            usize::from(Sieve::folded_letter(c))
        };
        for (j, (fk, _)) in folded_keywords().iter().enumerate() {
            let (fk, bit) = (fk.chars(), 1u32 << j);
            s.first[at(fk[0])][at(fk[1])] |= bit;
            s.last[at(fk[fk.len() - 2])][at(fk[fk.len() - 1])] |= bit;
            for (n, m) in s.len.iter_mut().enumerate() {
                if n.abs_diff(fk.len()) <= allowed_edits(fk.len()) {
                    *m |= bit;
                }
            }
        }
        s
    }

    /// The letter `c` folds to, 0 to 25 for `a` to `z`, 26 for any other character (no
    /// keyword's).
    fn folded_letter(c: char) -> u8 {
        match fold_char(c) {
            f @ 'a'..='z' => f as u8 - b'a',
            _ => 26,
        }
    }

    /// [`Sieve::folded_letter`], looked up for an ASCII character.
    fn letter(&self, c: char) -> u8 {
        match self.ascii.get(c as usize) {
            Some(&l) => l,
            None => Sieve::folded_letter(c),
        }
    }

    /// False when the word written as `parts` together is certainly no keyword (nor a damaged
    /// form of one): [`keyword`] would say `None`. True says nothing.
    fn may_be(&self, parts: &[&str]) -> bool {
        let (Some([a, b]), Some([y, z])) = (first_two(parts), last_two(parts)) else {
            return false;
        };
        let pair = |t: &[[u32; 27]; 27], x: char, y: char| {
            t[usize::from(self.letter(x))][usize::from(self.letter(y))]
        };
        let ends = pair(&self.first, a, b) | pair(&self.last, y, z);
        if ends == 0 {
            return false;
        }
        let n: usize = parts.iter().map(|p| p.chars().count()).sum();
        n <= KEYWORD_CHARS && ends & self.len[n] != 0
    }
}

/// The first two characters of `parts` written together (read from the bytes when ASCII).
fn first_two(parts: &[&str]) -> Option<[char; 2]> {
    match parts.first().map(|p| p.as_bytes()) {
        Some(&[a, b, ..]) if a.is_ascii() && b.is_ascii() => Some([char::from(a), char::from(b)]),
        _ => {
            let mut c = parts.iter().flat_map(|p| p.chars());
            Some([c.next()?, c.next()?])
        }
    }
}

/// The last two characters of `parts` written together, in text order.
fn last_two(parts: &[&str]) -> Option<[char; 2]> {
    match parts.last().map(|p| p.as_bytes()) {
        Some(&[.., y, z]) if y.is_ascii() && z.is_ascii() => Some([char::from(y), char::from(z)]),
        _ => {
            let mut c = parts.iter().rev().flat_map(|p| p.chars().rev());
            let z = c.next()?;
            Some([c.next()?, z])
        }
    }
}

/// The keywords' [`Sieve`], made once (a bit for each keyword).
fn sieve() -> &'static Sieve {
    const { assert!(KEYWORDS.len() <= 32) };
    static SIEVE: std::sync::OnceLock<Sieve> = std::sync::OnceLock::new();
    SIEVE.get_or_init(Sieve::new)
}

/// What keyword the word written as `parts` together is, as written or OCR-damaged: a keyword
/// of five letters or more matches a word of about its length sharing its first or last two
/// folded letters, one edit away after folding (two for ten letters or more, sharing both
/// ends); a shorter one only as written or folded.
fn keyword(parts: &[&str]) -> Option<Takes> {
    // Most words are ruled out by their ends and length, before folding the whole word.
    if !sieve().may_be(parts) {
        return None;
    }
    let fw = Folded::of(parts)?;
    let written = |k: &str| match parts {
        [w] => k == *w,
        [a, b] => k.len() == a.len() + b.len() && k.starts_with(a) && k.ends_with(b),
        _ => false,
    };
    if let Some(&(_, t)) = KEYWORDS.iter().find(|(k, _)| written(k)) {
        return Some(takes(t));
    }
    let fw = fw.chars();
    folded_keywords().iter().find_map(|(fk, t)| {
        let fk = fk.chars();
        let allowed = allowed_edits(fk.len());
        if fw.len().abs_diff(fk.len()) > allowed {
            return None;
        }
        let ends = [fk[..2] == fw[..2], fk[fk.len() - 2..] == fw[fw.len() - 2..]];
        // Equal words share both ends; one or two edits need one or both: most words are
        // settled here, without measuring a distance.
        if !ends[0] && !ends[1] {
            return None;
        }
        let d = edits_within(fw, fk, allowed)?;
        // Two edits only with both ends as written: `angegangen` is not `eingegangen`.
        let near = match d {
            0 => true,
            1 => ends[0] || ends[1],
            _ => ends[0] && ends[1],
        };
        near.then_some(*t)
    })
}

fn has_digit(t: &str) -> bool {
    t.bytes().any(|b| b.is_ascii_digit())
}

/// Whether a token may be part of a stamp's date: a short token with a digit, or a month.
fn date_token(t: &str) -> bool {
    (has_digit(t) && t.len() <= 8) || MONTHS.contains(&t)
}

/// A token of one to three letters: initials, or what OCR made of a stamp's frame.
fn initials(t: &str) -> bool {
    (1..=3).contains(&t.chars().count()) && t.chars().all(char::is_alphabetic)
}

/// Words prose puts after `bearbeitet` or `kopie` that are not a name.
const NOT_NAMES: &[&str] = &[
    "und", "oder", "sobald", "werden", "wird", "wurde", "wurden", "worden", "haben", "hat",
    "hatte", "sind", "ist", "sie", "wir", "ich", "die", "der", "das", "den", "dem", "des", "ein",
    "eine", "einer", "von", "vom", "bis", "in", "im", "mit", "nach", "zu", "zur", "zum", "auf",
    "für", "fur", "so", "da", "dass", "wenn", "weil", "sowie", "ihres", "ihrer", "ihren", "ihre",
    "the", "and", "of", "to", "for", "is", "was", "will", "be",
];

/// A word of letters that may be a name (not a filler nor a word of prose).
fn name_word(t: &str) -> bool {
    t.chars().count() >= 2
        && t.chars().all(char::is_alphabetic)
        && !FILLERS.contains(&t)
        && !NOT_NAMES.contains(&t)
}

/// Where the stamp whose keyword ends before word `i` ends, given what it takes; `None` when
/// its argument is not there (the keyword is prose).
fn argument(w: &[&str], keyword_end: usize, kind: Takes) -> Option<usize> {
    let mut i = keyword_end;
    while i < w.len() && i - keyword_end < 3 && FILLERS.contains(&w[i]) {
        i += 1;
    }
    // Digit tokens and months, a filler between them (`1044 on 1217`).
    let date = |i: usize| {
        let end = (i..w.len().min(i + MAX_ARG))
            .take_while(|&j| date_token(w[j]) || FILLERS.contains(&w[j]))
            .filter(|&j| date_token(w[j]))
            .last()
            .map_or(i, |j| j + 1);
        (w[i..end].iter().any(|t| has_digit(t))).then_some(end)
    };
    // Initials (up to two tokens), or with `names` a name: a word, or an initial and a word.
    let tail = |i: usize, names: bool| {
        let at =
            |j: usize, f: fn(&str) -> bool| j < w.len() && f(w[j]) && !NOT_NAMES.contains(&w[j]);
        match (at(i, initials), names) {
            (true, true) if at(i + 1, name_word) => i + 2,
            (true, _) if at(i + 1, initials) && !names => i + 2,
            (true, _) => i + 1,
            (false, true) if at(i, name_word) => i + 1,
            (false, _) => i,
        }
    };
    match kind {
        Takes::Date => date(i).map(|end| tail(end, false)),
        Takes::DateName => date(i).map(|end| tail(end, true)),
        Takes::Name => {
            let end = tail(i, true);
            (end > i).then_some(end)
        }
        Takes::Number => (i < w.len() && has_digit(w[i]) && w[i].len() <= 10).then_some(i + 1),
        // `kopie an becker`: the name is the stamp's too.
        Takes::Alone if w.get(keyword_end) == Some(&"an") => Some(tail(keyword_end + 1, true)),
        Takes::Alone => Some(keyword_end),
    }
}

/// A pair's texts without the stamps one holds and the other does not ([`Unstamped::of`]):
/// for each side, the text and profile to verify instead, when it changed.
pub struct Unstamped {
    sides: [Option<(String, Profile)>; 2],
}

impl Unstamped {
    /// The pair `x`, `y` without the stamps (and the garble they overprint) that only one of
    /// them holds; `None` when neither has such a stamp. `known(id, side)`: whether a
    /// document with another text than the side's holds the word (not garble).
    pub fn of(x: Doc, y: Doc, known: impl Fn(u32, Side) -> bool) -> Option<Unstamped> {
        if x.profile.stamps.is_empty() && y.profile.stamps.is_empty() {
            return None;
        }
        let sides = [
            without_stamps(x, y, |id| known(id, Side::A)),
            without_stamps(y, x, |id| known(id, Side::B)),
        ];
        (sides[0].is_some() || sides[1].is_some()).then_some(Unstamped { sides })
    }

    /// The pair's documents as the verifier reads them: each side's text and profile without
    /// its stamps, the rest as given.
    pub fn docs<'s>(&'s self, x: Doc<'s>, y: Doc<'s>) -> (Doc<'s>, Doc<'s>) {
        let side = |d: Doc<'s>, s: &'s Option<(String, Profile)>| match s {
            Some((text, profile)) => Doc { text, profile, ..d },
            None => d,
        };
        (side(x, &self.sides[0]), side(y, &self.sides[1]))
    }
}

/// `x`'s text and profile without the stamps whose keyword `y` does not hold, nor the garble
/// around them that `y` has nowhere; `None` when nothing is taken out.
fn without_stamps(x: Doc, y: Doc, known: impl Fn(u32) -> bool) -> Option<(String, Profile)> {
    let stamps = &x.profile.stamps;
    if stamps.is_empty() {
        return None;
    }
    let w: Vec<&str> = words(x.text).collect();
    let ids = x.profile.ids();
    debug_assert_eq!(w.len(), ids.len(), "a profile of another text");
    let mut buf = Scratch::default();
    let holds =
        |i: usize, buf: &mut Scratch| y.profile.has_id(ids[i]) || y.profile.has_folded(w[i], buf);
    let mut drop = vec![false; w.len()];
    let mut any = false;
    for s in stamps {
        let k = s.keyword as usize;
        let own = if s.split {
            holds(k, &mut buf) && holds(k + 1, &mut buf)
        } else {
            holds(k, &mut buf)
        };
        // A damaged form that another document writes so is a word (`bearbeiten`,
        // `gearbeitet`, `anlage`), not a stamp OCR garbled.
        if own || (!s.exact && !s.split && known(ids[k])) {
            continue;
        }
        any = true;
        let r = s.words.start as usize..s.words.end as usize;
        drop[r.clone()].iter_mut().for_each(|d| *d = true);
        let around = r.start.saturating_sub(OVERPRINT)..(r.end + OVERPRINT).min(w.len());
        for i in around {
            let t = w[i];
            let garble = !known(ids[i]) && (!has_digit(t) || t.len() < 4);
            if garble && !holds(i, &mut buf) {
                drop[i] = true;
            }
        }
    }
    if !any {
        return None;
    }
    let mut text = String::with_capacity(x.text.len());
    for (t, _) in w.iter().zip(&drop).filter(|&(_, &d)| !d) {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(t);
    }
    // Made from x's profile: reading the shorter text again cost more than the alignment.
    let profile = x.profile.without(&w, &drop, &text);
    Some((text, profile))
}

#[cfg(test)]
mod tests;
