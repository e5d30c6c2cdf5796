//! The order-free evidence of a pair: its distinctive tokens compared as sets, wherever each
//! stands in the text.
//!
//! The word alignment ([`crate::evidence`]) reads two texts in order, so a block Tesseract read
//! in another order (a totals line first, a stamp's words mid-page) or a long number it split
//! in two looks like a conflict. The ledger asks of every distinctive token of one text only
//! whether the other text has it anywhere:
//!
//! - **agrees**: the same token, or (4+ characters) the token inside the other text read
//!   without spaces (a number split in two, two merged, a label glued to it);
//! - **near**: within an edit or two of one of the other text's tokens after OCR folding
//!   (numbers: one edit from 5 characters, two from 10, one more in a damaged pair whose rare
//!   numbers agree; words: one from 4 letters): a misread digit, or the next invoice number;
//!   neither for nor against;
//! - **disagrees**: nowhere. Content one text has and the other lacks (a page, a stamp) is one
//!   sided; tokens that stand *against* each other are counted as the smaller of the two
//!   sides' counts.
//!
//! Tokens are numbers (a digit and 3+ characters: references, dates, amounts) and known words
//! (letters only, 4+ characters, in at least [`KNOWN_DF`] documents: another name, other
//! wording). An agreeing number counts as evidence when at most [`RARE_DF`] documents of the
//! corpus have it: what a template family shares everywhere (a vendor's phone number) says
//! nothing, what only this document and its copies have (its invoice number) says much.
//! A cluster of four to six copies puts its own numbers past that line, so the numbers at
//! most [`WIDE_DF`] documents have, shared as they are, are counted too (`wide`): many of
//! them and few against keep a pair, where a sibling shares only its template's numbers.
//! [`Ledger::damage`] measures how much OCR damage the pair shows without aligning: the share
//! of its words no other document uses.
//!
//! [`Rescue`] weighs this evidence for a pair the alignment rejected.

use crate::evidence::Profile;
use crate::verify::{edits_within, fold_char, words};

/// Documents that may share a number for its agreement to count (the pair and a copy).
pub const RARE_DF: u32 = 3;
/// Documents that may share a number for it to count in the wide agreement: the numbers of
/// a cluster of up to six copies, each of which puts its own numbers past [`RARE_DF`].
pub const WIDE_DF: u32 = 6;
/// Documents a word of letters must be in to count as a known word (not OCR noise).
pub const KNOWN_DF: u32 = 3;
/// Share of unique words ([`damage`]) under which a pair counts as clean ([`Rescue::clean_damage`]).
pub const CLEAN_DAMAGE: f64 = 0.05;
/// Edits more a number may be from one of the other text's to be near it in a damaged pair
/// (damage [`Rescue::clean_damage`] or more) whose rare numbers agree ([`Rescue::min_agree`]):
/// a rough scan of one paper misreads two digits of an amount where a clean one misreads
/// one; another document's numbers do not agree with it.
pub const DAMAGED_EXTRA_EDITS: usize = 1;
/// Numbers standing against each other, with none agreeing, that hold a pair apart.
pub const APART_NUMBERS: usize = 2;
/// Bytes from which a text is searched for many numbers at once ([`Reading::has_each_inside`]).
const LONG_TEXT: usize = 8192;
/// Numbers standing against each other, with none agreeing in any way, that refuse a pair
/// before it is aligned ([`refuses`]; a date counts two).
pub const REFUSE_NUMBERS: usize = 5;

/// What the distinctive tokens of two texts say, counted.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Ledger {
    /// Rare numbers both texts have (the smaller of the two sides' counts).
    pub agree: usize,
    /// Numbers at most [`WIDE_DF`] documents have that both texts have as they are.
    #[serde(default)]
    pub wide: usize,
    /// Numbers within OCR distance of one of the other text's (the smaller side).
    pub near: usize,
    /// Numbers one text has and the other has nowhere, standing against each other (the
    /// smaller side).
    pub numbers_against: usize,
    /// Of `numbers_against`, those that read as values (digits only, or up to four letters
    /// and four digits or more: a date, an amount, `re2021000998`, an IBAN), the smaller side.
    /// In a damaged pair ([`Rescue::clean_damage`] or more) only these weigh against it: OCR
    /// makes tokens such as `o19`, `t202` or `2zu152603735` of what it could not read.
    #[serde(default)]
    pub values_against: usize,
    /// Known words one text has and the other has nowhere, standing against each other.
    pub words_against: usize,
    /// Share of the pair's words no other document uses: how much OCR damage it shows.
    pub damage: f64,
    /// No number agrees (`agree` and `wide` 0) and at least [`APART_NUMBERS`] stand against
    /// each other: two documents, not two readings of one (a template's siblings, the
    /// editions of terms). Clustering never puts them in one group.
    #[serde(default)]
    pub apart: bool,
    /// For explanations: the rare numbers that agreed, and each side's disagreeing tokens.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tokens: Option<LedgerTokens>,
    /// For explanations: how the counts weigh under the rescue rule.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub balance: Option<Balance>,
}

impl Ledger {
    /// Whether the pair is held apart, or may be when its ledger was counted under a rule
    /// that left it undecided (`decided` false, [`Rescue::apart`]): no number agrees widely, or
    /// the pair is clean (another passage may stand in it).
    pub fn may_be_apart(&self, decided: bool) -> bool {
        self.apart || (!decided && (self.wide == 0 || self.damage < CLEAN_DAMAGE))
    }
}

/// The counts of a [`Ledger`] weighed by a [`Rescue`] rule: the evidence for less the
/// evidence against, each item with its weight; the pair is kept when either balance is at
/// least 0 (the rare one only with [`Rescue::min_agree`] rare numbers and no clean refusal).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Balance {
    /// `agree` − `per_number` × numbers − `per_word` × `words_against` − `margin`, where the
    /// numbers are `numbers_against`, or `values_against` in a damaged pair.
    pub rare: f64,
    /// `wide` − `wide_per_number` × numbers − `wide_per_word` × `words_against` −
    /// `wide_margin`.
    pub wide: f64,
    /// A clean pair with a known word against or a number near another: the rare balance
    /// cannot keep it.
    pub clean_refused: bool,
}

/// The tokens behind a [`Ledger`]'s counts (with `--explain`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LedgerTokens {
    /// Rare numbers of the first text found in the second.
    pub agreed: Vec<String>,
    /// Numbers of the first text, shared as they are by the second and by at most
    /// [`WIDE_DF`] documents in all, that are not rare: the rest of the wide agreement.
    #[serde(default)]
    pub agreed_wide: Vec<String>,
    /// Tokens of the first text the second has nowhere.
    pub against_a: Vec<String>,
    /// Tokens of the second text the first has nowhere.
    pub against_b: Vec<String>,
}

/// How one side's tokens fared in the other text.
#[derive(Default)]
struct SideCount<'t> {
    agree: usize,
    wide: usize,
    near: usize,
    numbers: usize,
    values: usize,
    words: usize,
    agreed: Vec<&'t str>,
    agreed_wide: Vec<&'t str>,
    against: Vec<&'t str>,
}

/// A word's OCR-folded characters and their [`folded::counts_sig`].
type SignedWord = (Vec<char>, u64);

/// One text as the ledger reads it: its words with their ids, its numbers, and its words of
/// letters by length, the last two folded when first asked.
struct Reading<'t> {
    /// The distinct words of letters, OCR-folded, by length, each with its
    /// [`folded::counts_sig`]: built when first asked.
    by_len: std::cell::OnceCell<rustc_hash::FxHashMap<usize, Vec<SignedWord>>>,
    text: &'t str,
    profile: &'t Profile,
}

impl<'t> Reading<'t> {
    fn new(text: &'t str, profile: &'t Profile) -> Reading<'t> {
        Reading {
            by_len: std::cell::OnceCell::new(),
            text,
            profile,
        }
    }

    /// The words with their ids, in text order.
    fn words(&self) -> impl Iterator<Item = (&'t str, u32)> + '_ {
        words(self.text).zip(self.profile.ids().iter().copied())
    }

    fn numbers(&self) -> &Folded {
        self.profile.folded_numbers()
    }

    fn has_id(&self, id: u32) -> bool {
        self.profile.has_id(id)
    }

    /// Whether `w` (no spaces in it) is in the text read without its spaces: split, merged
    /// or glued to its neighbour. Matched in place: copying the text cost more.
    fn has_inside(&self, w: &str) -> bool {
        self.profile.may_hold_inside(w.as_bytes()) && self.scan_inside(w)
    }

    /// [`Reading::has_inside`] without asking the digit grams first (asked already).
    fn scan_inside(&self, w: &str) -> bool {
        let (t, w) = (self.text.as_bytes(), w.as_bytes());
        let Some((&first, rest)) = w.split_first() else {
            return true;
        };
        memchr::memchr_iter(first, t).any(|at| {
            let mut it = t[at + 1..].iter().filter(|&&c| c != b' ');
            rest.iter().all(|c| it.next() == Some(c))
        })
    }

    /// For each of a side's numbers `rest`, whether it is one the ledger looks for inside this
    /// text (one of the first [`MAX_LOOKUPS`], of four characters or more) and is there.
    fn inside_of(&self, rest: &[(&str, u32)]) -> Vec<bool> {
        let sought: Vec<&str> = rest
            .iter()
            .take(MAX_LOOKUPS)
            .map(|&(w, _)| w)
            .filter(|w| w.len() >= 4)
            .collect();
        let mut found = self.has_each_inside(&sought).into_iter();
        rest.iter()
            .enumerate()
            .map(|(i, &(w, _))| i < MAX_LOOKUPS && w.len() >= 4 && found.next().expect("one each"))
            .collect()
    }

    /// Whether one of `words` is inside the text ([`Reading::has_each_inside`]).
    fn any_inside(&self, words: &[&str]) -> bool {
        if self.text.len() < LONG_TEXT {
            words.iter().any(|w| self.has_inside(w))
        } else {
            self.has_each_inside(words).contains(&true)
        }
    }

    /// [`Reading::has_inside`] of each of `words` (none with a space). A long text is read
    /// once for all of them (an Aho-Corasick automaton over the text without its spaces),
    /// a short one once for each: the same answers, at the cost of one scan.
    fn has_each_inside(&self, words: &[&str]) -> Vec<bool> {
        // Only the words that may be there are looked for.
        let sought: Vec<usize> = (0..words.len())
            .filter(|&i| self.profile.may_hold_inside(words[i].as_bytes()))
            .collect();
        let mut found = vec![false; words.len()];
        if sought.len() < 2 || self.text.len() < LONG_TEXT {
            for i in sought {
                found[i] = self.scan_inside(words[i]);
            }
            return found;
        }
        let squeezed: Vec<u8> = self.text.bytes().filter(|&c| c != b' ').collect();
        let Ok(ac) = aho_corasick::AhoCorasick::new(sought.iter().map(|&i| words[i])) else {
            return words.iter().map(|w| self.has_inside(w)).collect();
        };
        let mut left = sought.len();
        for m in ac.find_overlapping_iter(&squeezed) {
            let f = &mut found[sought[m.pattern().as_usize()]];
            if !*f {
                *f = true;
                left -= 1;
                if left == 0 {
                    break;
                }
            }
        }
        found
    }

    /// The distinct words of letters of `len` characters, folded.
    fn words_of_len(&self, len: usize) -> &[SignedWord] {
        let by_len = self.by_len.get_or_init(|| {
            let mut seen = rustc_hash::FxHashSet::default();
            let mut by_len: rustc_hash::FxHashMap<usize, Vec<SignedWord>> = Default::default();
            for (w, id) in self.words() {
                if is_word(w) && seen.insert(id) {
                    let f: Vec<char> = w.chars().map(fold_char).collect();
                    let sig = folded::counts_sig(&f);
                    by_len.entry(f.len()).or_default().push((f, sig));
                }
            }
            by_len
        });
        by_len.get(&len).map_or(&[], Vec::as_slice)
    }

    /// Within OCR distance of one of this text's numbers ([`tolerance`], `extra` edits more
    /// for a number that has any and is no date).
    fn near_number(&self, w: &str, extra: usize) -> bool {
        let n = w.chars().count();
        let tol = tolerance(n);
        // Another date is another period or year, however rough the scan.
        let tol = if tol > 0 && !is_date(w) {
            tol + extra
        } else {
            tol
        };
        if tol == 0 {
            return false;
        }
        let folded: Vec<char> = w.chars().map(fold_char).collect();
        self.numbers().has_near(&folded, tol)
    }
}

/// Edits a number of `chars` characters may be away from another to count as near: two from
/// the verifier's long references ([`crate::evidence::LONG_TOKEN`]), one from five.
fn tolerance(chars: usize) -> usize {
    match chars {
        c if c >= crate::evidence::LONG_TOKEN => 2,
        5.. => 1,
        _ => 0,
    }
}

/// A date as normalization leaves it (`28.04.2019` is `28042019`): day, month and year in
/// either order, or a year alone. Another date is how two editions of a notice differ, and
/// OCR rarely misreads one beyond an edit (near), so one against weighs as two numbers.
fn is_date(w: &str) -> bool {
    let b = w.as_bytes();
    if !b.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let num = |r: std::ops::Range<usize>| w[r].parse::<u32>().unwrap_or(0);
    let year = |y: u32| (1900..=2099).contains(&y);
    let day_month = |d: u32, m: u32| (1..=31).contains(&d) && (1..=12).contains(&m);
    match b.len() {
        4 => year(num(0..4)),
        6 => day_month(num(0..2), num(2..4)),
        8 => {
            (day_month(num(0..2), num(2..4)) && year(num(4..8)))
                || (year(num(0..4)) && day_month(num(6..8), num(4..6)))
        }
        _ => false,
    }
}

/// A number, date, amount or reference: a digit and at least three characters.
pub fn is_number(w: &str) -> bool {
    w.len() >= 3 && w.bytes().any(|b| b.is_ascii_digit())
}

/// A number that reads as a value: digits only, or up to four letters and then four digits
/// or more (`re2021000998`, `kd1577518`, an IBAN). What OCR makes of a smudge mixes them
/// otherwise (`o19`, `t202`, `obo2`, `2zu152603735`).
fn is_value(w: &str) -> bool {
    let b = w.as_bytes();
    let letters = b.iter().take_while(|c| c.is_ascii_lowercase()).count();
    let digits = &b[letters..];
    digits.iter().all(u8::is_ascii_digit)
        && if letters == 0 {
            !digits.is_empty()
        } else {
            letters <= 4 && digits.len() >= 4
        }
}

/// A word of letters only, four or more.
fn is_word(w: &str) -> bool {
    w.chars().count() >= 4 && w.chars().all(char::is_alphabetic)
}

/// Whether `n` distinct numbers of `a` are in `b` as they are and in at most [`WIDE_DF`]
/// documents (`df` by word id): what pl-lsh --numbers pairs documents by, and what lets the
/// verifier judge a pair whatever its score ([`crate::scorer`]).
pub fn shares_wide(a: &str, pa: &Profile, pb: &Profile, df: impl Fn(u32) -> u32, n: usize) -> bool {
    // The cheap tests first: most numbers of a long text are in many documents.
    n == 0
        || pa
            .numbers(a)
            .filter(|&(_, id)| df(id) <= WIDE_DF && pb.has_id(id))
            .nth(n - 1)
            .is_some()
}

/// Tokens of one side that may be looked for beyond their id (substring, near): bounds what
/// one pair costs, whatever its length. A side with more numbers against than this cannot be
/// rescued (it would need over three times as many agreeing).
pub const MAX_LOOKUPS: usize = 64;

/// The numbers of one side: those the other text has by id (rare ones counted), and the rest,
/// to be looked for further.
fn numbers_by_id<'t>(
    mine: &Reading<'t>,
    other: &Reading<'_>,
    df: &impl Fn(u32) -> u32,
    explain: bool,
) -> (SideCount<'t>, Vec<(&'t str, u32)>) {
    let mut s = SideCount::default();
    let mut rest = Vec::new();
    for (w, id) in mine.profile.numbers(mine.text) {
        if other.has_id(id) {
            let n = df(id);
            if n <= WIDE_DF {
                s.wide += 1;
                if explain && n > RARE_DF {
                    s.agreed_wide.push(w);
                }
            }
            s.agree_rare(w, n, explain);
        } else {
            rest.push((w, id));
        }
    }
    (s, rest)
}

impl<'t> SideCount<'t> {
    fn agree_rare(&mut self, w: &'t str, df: u32, explain: bool) {
        if df <= RARE_DF {
            self.agree += 1;
            if explain {
                self.agreed.push(w);
            }
        }
    }

    /// Counts the number `w` as standing against the other text (a date as two).
    fn stands_against(&mut self, w: &'t str) {
        let weight = if is_date(w) { 2 } else { 1 };
        self.numbers += weight;
        if is_value(w) {
            self.values += weight;
        }
        self.against.push(w);
    }

    /// The most rare numbers this side can agree in once `rest` is looked for.
    fn agree_bound(&self, rest: &[(&str, u32)], df: &impl Fn(u32) -> u32) -> usize {
        self.agree + rest.iter().filter(|&&(_, id)| df(id) <= RARE_DF).count()
    }
}

/// Looks for the numbers `rest` of one side inside the other text read without spaces (split,
/// merged, glued); returns those still not found.
fn numbers_inside<'t>(
    s: &mut SideCount<'t>,
    rest: Vec<(&'t str, u32)>,
    other: &Reading<'_>,
    df: &impl Fn(u32) -> u32,
    explain: bool,
) -> Vec<&'t str> {
    let inside = other.inside_of(&rest);
    let mut left = Vec::new();
    for (i, (w, id)) in rest.into_iter().enumerate() {
        if inside[i] {
            s.agree_rare(w, df(id), explain);
        } else {
            left.push(w);
        }
    }
    left
}

/// Sorts the numbers `left` of one side into near one of the other text's (up to `extra`
/// edits more than [`tolerance`]) and against, stopping once more than `limit` stand against
/// (with `explain`, sorting them all).
fn numbers_near<'t>(
    s: &mut SideCount<'t>,
    left: &[&'t str],
    other: &Reading<'_>,
    limit: usize,
    extra: usize,
) {
    for (i, &w) in left.iter().enumerate() {
        if s.numbers > limit {
            return;
        }
        if i < MAX_LOOKUPS && other.near_number(w, extra) {
            s.near += 1;
        } else {
            s.stands_against(w);
        }
    }
}

/// The share of two texts' words no other document uses: how much OCR damage they show.
pub fn damage(pa: &Profile, pb: &Profile, df: &impl Fn(u32) -> u32) -> f64 {
    let unique = |p: &Profile| p.ids().iter().filter(|&&id| df(id) <= 1).count();
    let total = pa.ids().len() + pb.ids().len();
    if total == 0 {
        0.0
    } else {
        (unique(pa) + unique(pb)) as f64 / total as f64
    }
}

/// [`numbers_inside`] then [`numbers_near`] with `limit`, number by number: the numbers past
/// the limit are not looked for inside the other text either. The counts against are those
/// of the two steps; the agreement may stop short (it is not asked for). Gives how many
/// numbers of `rest` were sorted.
fn sort_until<'t>(
    s: &mut SideCount<'t>,
    rest: &[(&'t str, u32)],
    other: &Reading<'_>,
    df: &impl Fn(u32) -> u32,
    limit: usize,
) -> usize {
    let mut left = 0;
    for (i, &(w, id)) in rest.iter().enumerate() {
        if s.numbers > limit {
            return i;
        }
        if i < MAX_LOOKUPS && w.len() >= 4 && other.has_inside(w) {
            s.agree_rare(w, df(id), false);
            continue;
        }
        left += 1;
        if left <= MAX_LOOKUPS && other.near_number(w, 0) {
            s.near += 1;
        } else {
            s.stands_against(w);
        }
    }
    rest.len()
}

/// Counts the known words of `mine` that `other` has nowhere, up to `cap`; past `4 ×`
/// [`MAX_LOOKUPS`] words looked for, the rest count as against.
fn count_words<'t>(
    mine: &Reading<'t>,
    other: &Reading<'_>,
    df: &impl Fn(u32) -> u32,
    cap: usize,
    s: &mut SideCount<'t>,
) {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut lookups = 0;
    let mut buf = crate::evidence::Scratch::default();
    for (w, id) in mine.words() {
        if s.words >= cap {
            return;
        }
        // The cheap tests first; the other text's words before hashing: most are there.
        if df(id) < KNOWN_DF || other.has_id(id) || !is_word(w) || !seen.insert(id) {
            continue;
        }
        lookups += 1;
        if lookups <= 4 * MAX_LOOKUPS
            && (other.has_inside(w)
                || other.profile.has_folded(w, &mut buf)
                || is_near_word(w, other))
        {
            continue;
        }
        s.words += 1;
        s.against.push(w);
    }
}

/// A known word within OCR distance of one of the other text's words: an edit from four
/// letters (`herrn` read `herm`), two from twelve. Another name is further away.
fn is_near_word(w: &str, other: &Reading<'_>) -> bool {
    let n = w.chars().count();
    let tol = usize::from(n >= 4) + usize::from(n >= 12);
    let folded: Vec<char> = w.chars().map(fold_char).collect();
    // Words whose character counts are further apart than `tol` edits allow are not measured.
    let sig = folded::counts_sig(&folded);
    (n - tol..=n + tol).any(|len| {
        other.words_of_len(len).iter().any(|(v, other)| {
            folded::counts_apart(sig, *other) <= 2 * tol && edits_within(&folded, v, tol).is_some()
        })
    })
}

/// The ledger of two normalized texts with their profiles (ids from one vocabulary);
/// `df(id)` is the number of documents of the corpus a word id is in. Symmetric up to the
/// sides of the explained tokens. Without `explain` the counts stop where `rule`'s verdict is
/// settled: a pair whose rare numbers cannot agree twice is answered before any text is
/// searched (`agree` is then that bound), numbers against stop one past what the agreement
/// bears, known words likewise; with `explain` everything is counted (and up to 20 listed).
pub fn ledger(
    a: &str,
    pa: &Profile,
    b: &str,
    pb: &Profile,
    df: impl Fn(u32) -> u32,
    rule: &Rescue,
    explain: bool,
) -> Ledger {
    let (ra, rb) = (Reading::new(a, pa), Reading::new(b, pb));
    let mut l = Ledger::default();
    let (mut sa, rest_a) = numbers_by_id(&ra, &rb, &df, explain);
    let (mut sb, rest_b) = numbers_by_id(&rb, &ra, &df, explain);
    // Most pairs are settled here, by the words' counts: too few rare numbers to agree in.
    let bound = sa
        .agree_bound(&rest_a, &df)
        .min(sb.agree_bound(&rest_b, &df));
    l.wide = sa.wide.min(sb.wide);
    if bound < rule.min_agree && !rule.wide_may_keep(l.wide) && !explain {
        l.agree = bound;
        if l.wide == 0 && rule.apart {
            l.apart = stand_apart(&mut sa, rest_a, &ra, &mut sb, rest_b, &rb, &df);
        }
        return l;
    }
    let damage = damage(pa, pb, &df);
    l.damage = damage;
    if bound < rule.min_agree && !explain {
        // Only the wide agreement can keep the pair: its numbers are sorted one by one, and
        // no more are looked for once more stand against each other than it bears.
        let room = wide_limit(rule, l.wide, damage);
        sort_until(&mut sa, &rest_a, &rb, &df, room);
        sort_until(&mut sb, &rest_b, &ra, &df, room);
        l.agree = sa.agree.min(sb.agree);
    } else {
        let left_a = numbers_inside(&mut sa, rest_a, &rb, &df, explain);
        let left_b = numbers_inside(&mut sb, rest_b, &ra, &df, explain);
        l.agree = sa.agree.min(sb.agree);
        // A clean pair fails on any near number, so its numbers are all sorted.
        let limit = match (
            rule.number_room(l.agree).max(rule.wide_number_room(l.wide)),
            explain,
        ) {
            (None, false) => {
                if l.agree == 0 && l.wide == 0 && rule.apart {
                    numbers_near(&mut sa, &left_a, &rb, APART_NUMBERS - 1, 0);
                    numbers_near(&mut sb, &left_b, &ra, APART_NUMBERS - 1, 0);
                    l.apart = sa.numbers.min(sb.numbers) >= APART_NUMBERS;
                }
                return l;
            }
            // A clean pair fails on any near number, and a damaged one is weighed by its
            // values alone: their numbers are all sorted.
            (_, true) | (Some(_), false) => usize::MAX,
        };
        let extra = extra_edits(rule, damage, l.agree);
        numbers_near(&mut sa, &left_a, &rb, limit, extra);
        numbers_near(&mut sb, &left_b, &ra, limit, extra);
    }
    l.near = sa.near.min(sb.near);
    l.numbers_against = sa.numbers.min(sb.numbers);
    l.values_against = sa.values.min(sb.values);
    // Explaining counts every word, so that it never changes the verdict.
    let cap = match (rule.word_room(&l).max(rule.wide_word_room(&l)), explain) {
        (_, true) => usize::MAX,
        (Some(room), false) => room + 1,
        (None, false) => 0,
    };
    if cap > 0 {
        count_words(&ra, &rb, &df, cap, &mut sa);
        count_words(&rb, &ra, &df, cap, &mut sb);
    }
    l.words_against = words_against(&sa, &sb, damage, rule);
    l.tokens = explain.then(|| LedgerTokens::of(sa, sb));
    l.balance = explain.then(|| rule.balance(&l));
    // Without `explain` a pair gets here only with numbers agreeing.
    l.apart = l.agree == 0 && l.wide == 0 && l.numbers_against >= APART_NUMBERS;
    l
}

/// Edits a number may be further from one of the other text's than [`tolerance`] allows and
/// still be near: [`DAMAGED_EXTRA_EDITS`] in a damaged pair whose rare numbers agree (a rough
/// scan of one paper; another month's statement is held apart by its dates, `crate::period`).
fn extra_edits(rule: &Rescue, damage: f64, agree: usize) -> usize {
    usize::from(damage >= rule.clean_damage && agree >= rule.min_agree) * DAMAGED_EXTRA_EDITS
}

/// How many numbers against the wide agreement's sort counts before it stops: one past what
/// the agreement bears in a clean pair, every number in a damaged one (only values weigh
/// there, [`Rescue::numbers_weighed`]).
fn wide_limit(rule: &Rescue, wide: usize, damage: f64) -> usize {
    if damage < rule.clean_damage {
        rule.wide_number_room(wide).unwrap_or(0)
    } else {
        usize::MAX
    }
}

/// The known words standing against each other: without damage a word on one side only is
/// a difference, not the scan's insertion; with it, the other side's word may turn up by
/// chance inside a longer one (`koch` in `hochkoch`), so the smaller side counts.
fn words_against(sa: &SideCount, sb: &SideCount, damage: f64, rule: &Rescue) -> usize {
    if damage < rule.clean_damage / 5.0 {
        sa.words.max(sb.words)
    } else {
        sa.words.min(sb.words)
    }
}

impl LedgerTokens {
    /// The first 20 tokens of each list of the two sides' counts.
    fn of(sa: SideCount, sb: SideCount) -> LedgerTokens {
        let own = |v: Vec<&str>| v.into_iter().take(20).map(str::to_owned).collect();
        LedgerTokens {
            agreed: own(sa.agreed),
            agreed_wide: own(sa.agreed_wide),
            against_a: own(sa.against),
            against_b: own(sb.against),
        }
    }
}

/// Whether two sides whose rare numbers cannot agree twice, and of which no number agrees
/// widely, stand apart: no rare number agrees (only the rare ones are looked for inside the
/// other text), and [`APART_NUMBERS`] stand against each other (numbers sorted one by one, no
/// more once that many are against: most rejected pairs are a template's siblings, whose first
/// numbers already differ).
fn stand_apart<'t>(
    sa: &mut SideCount<'t>,
    rest_a: Vec<(&'t str, u32)>,
    ra: &Reading<'t>,
    sb: &mut SideCount<'t>,
    rest_b: Vec<(&'t str, u32)>,
    rb: &Reading<'t>,
    df: &impl Fn(u32) -> u32,
) -> bool {
    // As `numbers_inside` finds them: the first `MAX_LOOKUPS` numbers, of four characters.
    let agrees = |s: &SideCount, rest: &[(&str, u32)], other: &Reading| {
        s.agree > 0 || rare_inside(rest, 0, other, df)
    };
    if agrees(sa, &rest_a, rb) && agrees(sb, &rest_b, ra) {
        return false;
    }
    sort_until(sa, &rest_a, rb, df, APART_NUMBERS - 1);
    sort_until(sb, &rest_b, ra, df, APART_NUMBERS - 1);
    sa.numbers.min(sb.numbers) >= APART_NUMBERS
}

/// Whether the numbers alone refuse a pair, before any alignment: no number that at most
/// [`WIDE_DF`] documents hold is in both texts (so no rare one either; a template's numbers,
/// in more, say nothing), none of the first [`MAX_LOOKUPS`] rare ones of either side is
/// inside the other text, and on each side at least `need` numbers the other lacks (a date
/// counts two) are neither inside it nor near one of its numbers. A template's siblings differ in every field; two readings of one paper,
/// however rough, share a number or misread it near. Cheap: a pair of siblings is settled
/// here in a few lookups instead of an alignment of its two texts.
pub fn refuses(
    a: &str,
    pa: &Profile,
    b: &str,
    pb: &Profile,
    df: impl Fn(u32) -> u32,
    need: usize,
) -> bool {
    if need == 0 {
        return false;
    }
    let (ra, rb) = (Reading::new(a, pa), Reading::new(b, pb));
    let (mut sa, rest_a) = numbers_by_id(&ra, &rb, &df, false);
    if sa.wide > 0 || sa.agree > 0 || rest_a.len() < need.div_ceil(2) {
        return false;
    }
    let (mut sb, rest_b) = numbers_by_id(&rb, &ra, &df, false);
    if sb.wide > 0 || sb.agree > 0 || rest_b.len() < need.div_ceil(2) {
        return false;
    }
    let sorted_a = sort_until(&mut sa, &rest_a, &rb, &df, need - 1);
    if sa.numbers < need || sa.agree > 0 {
        return false;
    }
    let sorted_b = sort_until(&mut sb, &rest_b, &ra, &df, need - 1);
    if sb.numbers < need || sb.agree > 0 {
        return false;
    }
    // As the ledger looks for them: none of the first rare ones inside the other text (those
    // sorted already were looked for).
    !rare_inside(&rest_a, sorted_a, &rb, &df) && !rare_inside(&rest_b, sorted_b, &ra, &df)
}

/// Whether one of the rare numbers among the first [`MAX_LOOKUPS`] of `rest`, past the first
/// `skip`, of four characters or more, is inside `other`.
fn rare_inside(
    rest: &[(&str, u32)],
    skip: usize,
    other: &Reading,
    df: &impl Fn(u32) -> u32,
) -> bool {
    let sought: Vec<&str> = rest
        .iter()
        .take(MAX_LOOKUPS)
        .skip(skip)
        .filter(|&&(w, id)| df(id) <= RARE_DF && w.len() >= 4)
        .map(|&(w, _)| w)
        .collect();
    other.any_inside(&sought)
}

mod folded;
pub(crate) use folded::Folded;
mod rescue;
pub use rescue::Rescue;

#[cfg(test)]
mod tests;
