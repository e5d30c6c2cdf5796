//! One pair of documents in, its dimensions and a verdict out: the scoring cascade of
//! `pl-score`, cheapest step first.
//!
//! 1. **Score**: `(wj·S + wf·F) / (wj + wf)` where S is the Jaccard similarity of the shingle
//!    sets or (by default) the larger of it and the containment, and F the fuzzy ratio of the
//!    texts' first characters; the distinctive-token dimension may gate or scale it. A pair
//!    that cannot reach the threshold even with a perfect F (or the best the two sample
//!    lengths allow) is dropped unmeasured.
//! 2. **Verifier** ([`crate::evidence`]): the texts are aligned and every difference is
//!    sorted into OCR damage (`garbled`) and conflicts (a number, date, amount or known word
//!    one text has and the other has nowhere). A pair is kept when its conflict weight
//!    `digit_subs + word_weight · word_subs` (conflicts that stand against each other) is at most
//!    `allow + per_garbled · garbled`: a clean pair must agree exactly, a rough scan may
//!    disagree in proportion to how much OCR visibly damaged it — siblings from one template
//!    disagree in clean values with almost nothing garbled around them.
//!    A number one text writes as another value of the same digits (another sign, the
//!    decimal point elsewhere, another currency: [`crate::written::values_apart`]) drops a pair OCR did not
//!    damage ([`crate::ledger::damage`] under the rescue's `clean_damage`), whatever the
//!    order-free evidence says: the alignment reads the digits alone. So do numbers that
//!    differ in two texts whose letters are the same ([`another_number`]).
//! 3. **Order-free evidence** ([`crate::ledger`]), only for pairs the verifier rejected: the
//!    distinctive tokens of both texts compared as sets, wherever they stand. A pair whose rare
//!    numbers agree far more than any stand against each other is kept after all ([`Rescue`]):
//!    a block Tesseract read in another order, or a number it split, is not another document.
//! 4. **Fuzzy ratio**, only for pairs kept so far, stopped once the ratio needed is out of
//!    reach.

use crate::distinct::weighted_similarity;
use crate::evidence::{
    addressee_subs, evidence_until, may_match, Evidence, Profile, Side, CONSTANT_DF,
};
use crate::ledger::{damage, ledger, refuses, shares_wide, Ledger, Rescue};
use crate::score::{fuzzy_ratio_at_least, length_bound, Weights};
use crate::stamp::Unstamped;
use crate::written::{values_apart, Written};

/// Default conflicts every pair may have.
pub const DEFAULT_ALLOW: f64 = 0.5;
/// Default conflicts allowed per word of OCR damage.
pub const DEFAULT_PER_GARBLED: f64 = 0.0;
/// Default weight of a number differing in one digit against another number.
pub const DEFAULT_ONE_DIGIT_WEIGHT: f64 = 0.25;
/// Default weight of a word conflict against a digit conflict.
pub const DEFAULT_WORD_WEIGHT: f64 = 1.0;

/// Garbled words per matched word under which a scan counts as clean: there a rare word
/// standing against a known one (another name) is a conflict, as OCR makes few such words.
pub const CLEAN_DAMAGE: f64 = 0.05;

/// How the verifier weighs conflicts against damage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verifier {
    /// Conflict weight every pair may have.
    pub allow: f64,
    /// Conflict weight allowed per garbled word.
    pub per_garbled: f64,
    /// Weight of a word conflict (a digit conflict weighs 1).
    pub word_weight: f64,
    /// Weight of a number that differs in one digit (twice it in a clean scan).
    pub one_digit_weight: f64,
}

impl Default for Verifier {
    fn default() -> Self {
        Verifier {
            allow: DEFAULT_ALLOW,
            per_garbled: DEFAULT_PER_GARBLED,
            word_weight: DEFAULT_WORD_WEIGHT,
            one_digit_weight: DEFAULT_ONE_DIGIT_WEIGHT,
        }
    }
}

impl Verifier {
    /// The conflict weight of the evidence: the sum of its [`Verifier::terms`].
    pub fn weight(&self, e: &Evidence) -> f64 {
        self.parts(e)
            .iter()
            .fold(0.0, |sum, &(_, count, each)| sum + count as f64 * each)
    }

    /// Each kind of conflict: its name, count and weight. A clean scan ([`is_clean`]) weighs
    /// a one-digit misread twice and counts a rare word standing against a known one.
    fn parts(&self, e: &Evidence) -> [(&'static str, usize, f64); 6] {
        let clean = is_clean(e);
        let one_digit = if clean {
            2.0 * self.one_digit_weight
        } else {
            self.one_digit_weight
        };
        let rare = if clean { e.rare_word_subs } else { 0 };
        [
            ("number against another", e.digit_subs, 1.0),
            ("number misread in one digit", e.one_digit_subs, one_digit),
            ("known word against another", e.word_subs, self.word_weight),
            (
                "rare word against a known one, clean scan",
                rare,
                self.word_weight,
            ),
            (
                "known word outnumbered",
                e.outnumbered_subs,
                self.word_weight,
            ),
            (
                "another addressee or signer",
                e.addressee_subs,
                self.word_weight,
            ),
        ]
    }

    /// The conflict weight the evidence's damage allows.
    pub fn allowance(&self, e: &Evidence) -> f64 {
        self.allow + self.per_garbled * e.garbled as f64
    }

    /// Whether the counts so far already fail, whatever the rest of the alignment adds: true
    /// only when the allowance cannot grow (no per-garbled allowance) and the conflicts that
    /// only grow (numbers, known words; not the rare words, which a rough scan forgives) are
    /// over it. Lets the verifier stop at the first block that decides a sibling.
    pub fn settled_fail(&self, e: &Evidence) -> bool {
        self.per_garbled <= 0.0
            && e.digit_subs as f64
                + self.one_digit_weight * e.one_digit_subs as f64
                + self.word_weight * e.word_subs as f64
                > self.allow + 1e-9
    }

    /// Whether the differences are OCR's.
    pub fn passes(&self, e: &Evidence) -> bool {
        self.weight(e) <= self.allowance(e) + 1e-9
    }
}

/// The settings of the cascade.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Similarity a pair needs before its texts are compared, unless its rare numbers vouch
    /// for it ([`Dims::by_numbers`]).
    pub min_similarity: f64,
    /// Score a pair needs ([`Dims::score`]): its match probability where the policy gives
    /// one, else its similarity.
    pub threshold: f64,
    /// Weights of the similarity and fuzzy dimensions.
    pub weights: Weights,
    /// Use the larger of Jaccard and containment (else Jaccard alone).
    pub containment: bool,
    /// The verifier, or `None` to keep pairs unverified.
    pub verifier: Option<Verifier>,
    /// Drop pairs whose distinctive-token similarity is under this (0 = off).
    pub distinct_min: f64,
    /// Multiply the score by `1 − S·(1 − D)` (0 = off).
    pub distinct_penalty: f64,
    /// Keep a pair the verifier rejected when its order-free evidence says so (`None` = off).
    pub rescue: Option<Rescue>,
}

impl Default for Config {
    /// The default threshold and weights, containment and the default verifier on, the
    /// distinctive-token dimension off: [`ScoreParams::default`]'s.
    fn default() -> Config {
        ScoreParams::default().config()
    }
}

/// One document of a pair, as the cascade reads it.
#[derive(Debug, Clone, Copy)]
pub struct Doc<'a> {
    /// The normalized text's digits view (for the verifier,
    /// [`crate::normalize::digits_view`]).
    pub text: &'a str,
    /// The fuzzy sample.
    pub sample: &'a str,
    /// Characters in the sample.
    pub sample_chars: usize,
    /// Distinctive tokens with their rarity.
    pub tokens: &'a [(u64, f64)],
    /// The verifier's profile.
    pub profile: &'a Profile,
    /// Its numbers as written, signs and separators included.
    pub written: &'a Written,
    /// Documents of the corpus with this fingerprint (this text, written alike), this one
    /// included: a word is known to the verifier when a document with another text has it too
    /// (a re-upload does not make a scan's OCR noise a word).
    pub copies: u32,
}

/// Words an alignment of `x` and `y` matches when it aligned one text, not two unrelated
/// texts sharing a few words: a third of the shorter one's.
fn aligned_words(x: Doc, y: Doc) -> usize {
    x.profile.ids().len().min(y.profile.ids().len()).div_ceil(3)
}

/// What the signatures say of a pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Similarity {
    /// Jaccard similarity (estimate or exact).
    pub jaccard: f64,
    /// Containment.
    pub containment: f64,
    /// The two are one normalized text.
    pub identical: bool,
}

/// The dimensions of a scored pair.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dims {
    /// The combined similarity: Jaccard (or containment) and the fuzzy ratio, weighted.
    pub similarity: f64,
    /// Jaccard similarity.
    pub jaccard: f64,
    /// Fuzzy ratio (`None` when not measured).
    pub fuzzy: Option<f64>,
    /// Containment.
    pub containment: f64,
    /// Distinctive-token similarity (`None` when neither text has such a token).
    pub distinct: Option<f64>,
    /// The verifier's evidence (`None` when not verified).
    pub evidence: Option<Evidence>,
    /// The order-free evidence, measured for pairs the verifier rejected.
    pub ledger: Option<Ledger>,
    /// Kept on the order-free evidence against the verifier's rejection.
    pub rescued: bool,
    /// Two rare numbers in both texts: the verifier decides, whatever the score.
    pub by_numbers: bool,
    /// A number the other text writes as another value, in a pair OCR did not damage, or a
    /// word edited in texts otherwise the same ([`Evidence::words_edited`]).
    pub another_value: bool,
    /// The match probability of a verified pair ([`policy`]).
    pub probability: Option<f64>,
    /// The alignment matched a third of the shorter text or more: one text read twice, not
    /// two that share little (a pair that matches less is dropped, whatever its conflicts).
    pub one_text_aligned: bool,
    /// An exact copy (equal fingerprints: the same text as written,
    /// [`crate::normalize::fingerprint`]): its score is its similarity, 1, not an estimate.
    /// Texts read alike but written otherwise are weighed as any pair.
    pub one_text: bool,
}

impl Dims {
    /// The pair's score: its match probability where the policy gives one (a verified pair
    /// with the order-free evidence), else its similarity. What the threshold gates and a
    /// group's confidence is.
    pub fn score(&self) -> f64 {
        self.probability.unwrap_or(self.similarity)
    }
}

/// The cascade over one corpus: its settings and which words other documents use.
pub struct Scorer<'a> {
    /// Settings.
    pub config: &'a Config,
    /// Documents each word id is in ([`crate::verify::Vocab::doc_counts`]).
    pub doc_counts: &'a [u32],
    /// Keep the order-free evidence's tokens, for explanations.
    pub explain: bool,
}

impl Scorer<'_> {
    /// Scores a pair. `docs` is `None` when no texts were given (no fuzzy ratio, no
    /// verifier, no distinctive tokens); `fuzzy` says whether the fuzzy ratio is wanted.
    pub fn score(&self, sim: Similarity, docs: Option<(Doc, Doc)>, fuzzy: bool) -> Verdict {
        let cfg = self.config;
        let fuzzy = fuzzy && docs.is_some() && cfg.weights.fuzzy > 0.0;
        let mut dims = Dims {
            jaccard: sim.jaccard,
            containment: sim.containment,
            one_text: sim.identical,
            ..Dims::default()
        };
        if sim.identical {
            return self.identical(dims, docs, fuzzy);
        }
        dims.distinct = docs.and_then(|(x, y)| weighted_similarity(x.tokens, y.tokens));
        if self.distinct_gated(dims.distinct) {
            return Verdict::Dropped(dims, Reason::Distinct);
        }
        // Asked only of a pair under the minimum similarity: most pairs never need it.
        let numbers_say = std::cell::OnceCell::new();
        let say = || *numbers_say.get_or_init(|| self.by_numbers(docs));
        let cutoff = if fuzzy {
            let (x, y) = docs.expect("fuzzy needs texts");
            let needed = self.fuzzy_needed(&dims) - 1e-9;
            if needed > 1.0 || length_bound(x.sample_chars, y.sample_chars) < needed - 1e-12 {
                if !say() {
                    dims.similarity =
                        self.combine(sim.jaccard, sim.containment, Some(1.0), dims.distinct);
                    return Verdict::Dropped(dims, Reason::Similarity);
                }
                Some(0.0)
            } else {
                Some(needed)
            }
        } else {
            dims.similarity = self.combine(sim.jaccard, sim.containment, None, dims.distinct);
            if dims.similarity < cfg.min_similarity && !say() {
                return Verdict::Dropped(dims, Reason::Similarity);
            }
            None
        };
        // Only a pair aligned as one text (a third of the shorter one matched) is judged so.
        let mut aligned = false;
        if let (Some(v), Some((x, y))) = (cfg.verifier, docs) {
            let unstamped = Unstamped::of(x, y, |id, side| self.known(id, side, (x, y)));
            let (x, y) = unstamped.as_ref().map_or((x, y), |u| u.docs(x, y));
            if let Some(rescue) = self.refused(x, y) {
                dims.similarity = self.combine(sim.jaccard, sim.containment, None, dims.distinct);
                // Explaining shows what the ledger counted; the verdict is the same.
                dims.ledger = self.explain.then(|| self.ledger_of(x, y, &rescue));
                return Verdict::Dropped(dims, Reason::Numbers);
            }
            if !self.verified(v, x, y, &mut dims) {
                dims.similarity = self.combine(sim.jaccard, sim.containment, None, dims.distinct);
                return Verdict::Dropped(dims, Reason::Conflicts);
            }
            aligned = dims.one_text_aligned;
        }
        if let (Some(cutoff), Some((x, y))) = (cutoff, docs) {
            let (sx, sy) = letters::samples(x, y);
            let ratio = fuzzy_ratio_at_least(sx, sy, cutoff).or_else(|| {
                // Under the cutoff: the numbers may still judge the pair, with its ratio.
                (cutoff > 0.0 && aligned && say())
                    .then(|| fuzzy_ratio_at_least(sx, sy, 0.0))
                    .flatten()
            });
            match ratio {
                Some(f) => dims.fuzzy = Some(f),
                None => {
                    dims.similarity =
                        self.combine(sim.jaccard, sim.containment, None, dims.distinct);
                    return Verdict::Dropped(dims, Reason::Similarity);
                }
            }
        }
        dims.similarity = self.combine(sim.jaccard, sim.containment, dims.fuzzy, dims.distinct);
        dims.by_numbers = dims.similarity < cfg.min_similarity && aligned && say();
        self.gate(dims)
    }

    /// The verdict on one normalized text twice: the values comparing it with itself gives,
    /// without running the comparisons.
    fn identical(&self, mut dims: Dims, docs: Option<(Doc, Doc)>, fuzzy: bool) -> Verdict {
        let cfg = self.config;
        dims.distinct = docs.filter(|(x, _)| !x.tokens.is_empty()).map(|_| 1.0);
        dims.fuzzy = fuzzy.then_some(1.0);
        // Every word matched, nothing else.
        dims.evidence = docs
            .filter(|_| cfg.verifier.is_some())
            .map(|(x, _)| Evidence {
                matched: x.profile.ids().len(),
                ..Evidence::default()
            });
        dims.similarity = self.combine(1.0, 1.0, dims.fuzzy, dims.distinct);
        dims.one_text_aligned = dims.evidence.is_some();
        // As comparing them would weigh them.
        if let (Some(_), Some(rescue), Some((x, y))) = (cfg.verifier, cfg.rescue, docs) {
            dims.ledger = Some(self.full_ledger(x, y, &rescue));
        }
        self.gate(dims)
    }

    /// Whether the pair survives the verifier: the alignment's evidence, and the ledger's for
    /// a pair it rejects (both recorded in `dims`).
    fn verified(&self, v: Verifier, x: Doc, y: Doc, dims: &mut Dims) -> bool {
        // Explaining counts in full: the explanation does not depend on where a count stops.
        let mut e = self.align(x, y, (!self.explain).then_some(v));
        // Texts whose letters are the same are counted on until a number differs: that
        // decides them whatever else the alignment found (`another_number`).
        if e.stopped && e.numbers_replaced == 0 && letters::same_letters(x.text, y.text) {
            e = self.align(x, y, None);
        }
        // The same digits written as another value (another sign, the decimal point
        // elsewhere) in a pair OCR did not damage: two documents, whatever else agrees (OCR
        // drops a minus sign in a rough scan, where the evidence weighs as it is).
        let (values_apart, another_value) = self.another_value(x, y);
        e.values_apart = values_apart;
        // Another word where the texts are otherwise the same: another document, as a value.
        let known = |id: u32, side: Side| self.known(id, side, (x, y));
        e.words_edited = wording::words_edited(&e, x, y, known);
        let another_value =
            another_value || letters::another_number(&e, (x.text, y.text)) || e.words_edited > 0;
        // Two texts that share little are two, whatever conflicts their alignment found: every
        // word it did not match is a block one text adds, which weighs as a page added. (A
        // count stopped early is a pair that fails anyway.)
        let mut pass = v.passes(&e) && !another_value && e.matched >= aligned_words(x, y);
        // Numbers agreeing do not make another addressee's (a household's) letter a copy.
        let two_documents = another_value || e.addressee_subs > 0;
        // Another passage in a clean pair: another edition, whatever the alignment found. Asked
        // where it decides; else `held_apart` asks it of the pairs that can change a group.
        let rescue = self.config.rescue;
        let asked = pass || !two_documents && (self.explain || rescue.is_some_and(|r| r.apart));
        if asked {
            e.passage_replaced = self.another_passage(x, y, known);
            pass &= !e.passage_replaced;
        }
        // Explaining shows the order-free evidence of every pair, not only of the rejected
        // ones; it is counted in full then, so it never changes the verdict.
        if let (true, Some(rescue)) = (!pass || self.explain, rescue) {
            let l = self.ledger_of(x, y, &rescue);
            if !pass && !two_documents && !e.passage_replaced && rescue.keeps(&l) {
                e.passage_replaced = !asked && self.another_passage(x, y, known);
                pass = !e.passage_replaced;
                dims.rescued = pass;
            }
            dims.ledger = Some(l);
        }
        dims.evidence = Some(e);
        dims.another_value = another_value;
        // The match probability weighs a kept pair's order-free evidence counted in full, as
        // explaining counts it.
        if let (true, false, Some(rescue)) = (pass, self.explain, self.config.rescue) {
            dims.ledger = Some(self.full_ledger(x, y, &rescue));
        }
        // A rescued pair's words matched decide whether its numbers judge it under the
        // threshold: counted in full, so that no verdict depends on where a count stopped.
        let rescued = dims.rescued;
        if let Some(e) = dims.evidence.as_mut().filter(|e| rescued && e.stopped) {
            let values_apart = e.values_apart;
            *e = self.align(x, y, None);
            e.values_apart = values_apart;
        }
        dims.one_text_aligned = dims
            .evidence
            .as_ref()
            .is_some_and(|e| e.matched >= aligned_words(x, y));
        pass
    }

    /// How many numbers the two texts write as another value (another sign, the decimal point
    /// elsewhere, another currency), and whether that makes them two documents: a moved point
    /// or another currency in a pair OCR did not damage, a minus sign alone only where nothing
    /// else differs (OCR drops and adds them in scans otherwise clean), or dates each a month
    /// from the other's ([`crate::period`]).
    fn another_value(&self, x: Doc, y: Doc) -> (usize, bool) {
        let apart = values_apart(x.written, y.written);
        let rule = self.config.rescue.unwrap_or_default();
        let df = |id: u32| self.df(id);
        let written_otherwise = apart.moved + apart.unit > 0;
        let another = (written_otherwise && damage(x.profile, y.profile, &df) < rule.clean_damage)
            || (apart.sign > 0 && x.text == y.text)
            || crate::period::another_period(x.written, y.written);
        (apart.moved + apart.sign + apart.unit, another)
    }

    /// The alignment's evidence on a pair, stopped once `stop_for` settles it (`None`: in
    /// full).
    fn align(&self, x: Doc, y: Doc, stop_for: Option<Verifier>) -> Evidence {
        let known = |id: u32, side: Side| self.known(id, side, (x, y));
        let settled = |e: &Evidence| stop_for.is_some_and(|v| v.settled_fail(e));
        // A word the corpus never counted is in one document: no template's constant.
        let constant = |id: u32| self.df(id) >= CONSTANT_DF;
        evidence_until(
            x.text, x.profile, y.text, y.profile, known, settled, constant,
        )
    }

    /// Documents of the corpus that hold word `id` (one, this text's, for a word it never
    /// counted).
    fn df(&self, id: u32) -> u32 {
        self.doc_counts.get(id as usize).copied().unwrap_or(1)
    }

    /// Whether a document with another text than `side`'s holds word `id` (a re-upload does
    /// not make a scan's OCR noise a word).
    fn known(&self, id: u32, side: Side, (x, y): (Doc, Doc)) -> bool {
        let copies = match side {
            Side::A => x.copies,
            Side::B => y.copies,
        };
        self.df(id) > copies.max(1)
    }

    /// Whether a pair the verifier dropped is held apart ([`Reason::may_be_apart`]: another
    /// value, another addressee, another passage, or its numbers standing apart,
    /// [`Ledger::apart`]): for a scorer whose rule left it undecided ([`Rescue::apart`]
    /// false), asked for the few pairs that can change a group.
    pub fn held_apart(&self, x: Doc, y: Doc) -> bool {
        let Some(rescue) = self.config.rescue else {
            return false;
        };
        let rule = Rescue {
            apart: true,
            ..rescue
        };
        // The texts the verifier read (as in `score`): a pair held apart while scoring
        // (`--apart-all`, pl-spark) and one decided at the end are judged alike.
        let unstamped = Unstamped::of(x, y, |id, side| self.known(id, side, (x, y)));
        let (x, y) = unstamped.as_ref().map_or((x, y), |u| u.docs(x, y));
        let known = |id: u32, side: Side| self.known(id, side, (x, y));
        let counted = std::cell::OnceCell::new(); // Counted in full once, for either rule.
        let counted = || counted.get_or_init(|| self.align(x, y, None));
        self.another_value(x, y).1
            || addressee_subs([(x.text, x.profile), (y.text, y.profile)], known) > 0
            || self.ledger_of(x, y, &rule).apart
            || letters::same_letters(x.text, y.text)
                && letters::another_number(counted(), (x.text, y.text))
            || x.profile.ids().len().abs_diff(y.profile.ids().len()) <= 6
                && wording::words_edited(counted(), x, y, known) > 0
            || self.another_passage(x, y, known)
    }

    /// The rule by which the pair's numbers refuse it before the alignment ([`refuses`]),
    /// if they do.
    fn refused(&self, x: Doc, y: Doc) -> Option<Rescue> {
        let rescue = self.config.rescue?;
        let df = |id: u32| self.df(id);
        refuses(
            x.text,
            x.profile,
            y.text,
            y.profile,
            df,
            rescue.refuse_numbers,
        )
        .then_some(rescue)
    }

    /// The order-free evidence of two texts (counted in full when explaining).
    fn ledger_of(&self, x: Doc, y: Doc, rescue: &Rescue) -> Ledger {
        self.ledger_counted(x, y, rescue, self.explain)
    }

    /// The order-free evidence counted in full, its tokens kept only when explaining: what
    /// the match probability weighs, the same whether or not the run explains.
    fn full_ledger(&self, x: Doc, y: Doc, rescue: &Rescue) -> Ledger {
        let mut l = self.ledger_counted(x, y, rescue, true);
        if !self.explain {
            l.tokens = None;
            l.balance = None;
        }
        l
    }

    /// The order-free evidence, counted in full (and its tokens listed) when `full`.
    fn ledger_counted(&self, x: Doc, y: Doc, rescue: &Rescue, full: bool) -> Ledger {
        let df = |id: u32| self.df(id);
        ledger(x.text, x.profile, y.text, y.profile, df, rescue, full)
    }

    /// Whether two numbers that at most [`crate::ledger::WIDE_DF`] documents hold are in both
    /// texts (with the verifier and the ledger on) and the alignment can match a third of the
    /// shorter text ([`may_match`]): then the verifier decides the pair, whatever its score,
    /// if its alignment does match that third. A rough scan's similarity is low while its
    /// invoice number and amounts survive; a template's siblings share the template's
    /// numbers, which more documents hold.
    fn by_numbers(&self, docs: Option<(Doc, Doc)>) -> bool {
        let (Some(_), Some(_), Some((x, y))) = (self.config.verifier, self.config.rescue, docs)
        else {
            return false;
        };
        let df = |id: u32| self.df(id);
        // Long texts quoting the same numbers are not aligned in full to learn it.
        shares_wide(
            x.text,
            x.profile,
            y.profile,
            df,
            crate::lsh::NUMBER_MATCHES as usize,
        ) && may_match(x.profile, y.profile, aligned_words(x, y))
    }

    /// The verdict on a pair every earlier step kept: the distinctive tokens, the minimum
    /// similarity (or the numbers' say), then the threshold on its score, which no pair skips.
    fn gate(&self, mut dims: Dims) -> Verdict {
        if self.distinct_gated(dims.distinct) {
            return Verdict::Dropped(dims, Reason::Distinct);
        }
        if dims.similarity < self.config.min_similarity && !dims.by_numbers {
            return Verdict::Dropped(dims, Reason::Similarity);
        }
        // Weighed only for a pair every other step kept.
        let verifier = self.config.verifier;
        dims.probability = verifier.and_then(|v| Policy::fitted().of(&v, &dims));
        if dims.score() < self.config.threshold {
            Verdict::Dropped(dims, Reason::Probability)
        } else {
            Verdict::Kept(dims)
        }
    }

    fn distinct_gated(&self, distinct: Option<f64>) -> bool {
        let min = self.config.distinct_min;
        min > 0.0 && distinct.is_some_and(|d| d < min)
    }

    /// The similarity dimension: Jaccard, or the larger of it and containment.
    fn similarity(&self, jaccard: f64, containment: f64) -> f64 {
        if self.config.containment {
            jaccard.max(containment)
        } else {
            jaccard
        }
    }

    /// The factor the distinctive-token penalty applies (1 when off or without tokens).
    fn distinct_factor(&self, distinct: Option<f64>) -> f64 {
        match (self.config.distinct_penalty > 0.0, distinct) {
            (true, Some(d)) => 1.0 - self.config.distinct_penalty * (1.0 - d),
            _ => 1.0,
        }
    }

    fn combine(&self, j: f64, c: f64, fuzzy: Option<f64>, distinct: Option<f64>) -> f64 {
        self.config
            .weights
            .combine(self.similarity(j, c), fuzzy.unwrap_or(0.0))
            * self.distinct_factor(distinct)
    }

    /// The smallest fuzzy ratio with which the pair reaches the minimum similarity.
    fn fuzzy_needed(&self, dims: &Dims) -> f64 {
        let penalty = self.distinct_factor(dims.distinct);
        let t = self.config.min_similarity;
        if t <= 0.0 {
            f64::NEG_INFINITY
        } else if penalty <= 0.0 {
            f64::INFINITY
        } else {
            self.config
                .weights
                .fuzzy_needed(self.similarity(dims.jaccard, dims.containment), t / penalty)
        }
    }
}

mod explain;
mod letters;
mod params;
mod passage;
pub mod policy;
mod verdict;
mod wording;
pub use params::ScoreParams;
use policy::Policy;
pub use verdict::{Reason, Step, Verdict};

pub use explain::{is_clean, Computation, Term};

#[cfg(test)]
mod tests;
