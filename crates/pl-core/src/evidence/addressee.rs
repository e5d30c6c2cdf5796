//! Where a difference stands: a name substituted where a letter names its recipient (the
//! address block, the salutation) or its signer (after the closing), with clean words around
//! it, is another addressee, not OCR damage ([`super::Evidence::addressee_subs`]).
//!
//! The same letter sent to two members of a household differs in one token, the recipient's
//! first name, which today's word-by-word evidence weighs like any other word (and not at all
//! when neither name is known to the corpus). What tells it from OCR is where the word stands
//! and what stands around it: a name follows a title (`Mr.`, `Frau`), a salutation (`Dear`,
//! `Sehr geehrte`, `Hallo`) or a closing (`Sincerely`, `Mit freundlichen Grüßen`); OCR that
//! garbles it there garbles its neighbours too, or leaves a word that looks like it.
//!
//! Each document keeps its *slots* (a cue, the name words after it, and the words around):
//! found once per document ([`slots`]), at most [`MAX_SLOTS`] of them, so a pair reads a few
//! dozen words ([`substitutions`]), wherever the slots stand (a scan that read the address
//! block in another order has the same slots).

use super::{Profile, Scratch, Side};
use crate::verify::{fold_ascii, fold_into, words};

/// Words that put a recipient's name after them: titles and salutations, as normalized
/// (lowercase, no punctuation). Several in a row (`sehr geehrte frau dr`) are one cue.
const RECIPIENT_CUES: [&str; 16] = [
    "mr", "mrs", "ms", "miss", "dr", "prof", "herr", "herrn", "frau", "dear", "hallo", "hello",
    "liebe", "lieber", "geehrte", "geehrter",
];

/// Words after which a letter's signer's name stands: its closing.
const SIGNER_CUES: [&str; 7] = [
    "sincerely",
    "regards",
    "grüßen",
    "grüße",
    "gruß",
    "faithfully",
    "truly",
];

/// The first bytes of the cues, a bit each (every one is ASCII).
const CUE_FIRST: u128 = {
    let mut m = 0u128;
    let mut i = 0;
    while i < RECIPIENT_CUES.len() + SIGNER_CUES.len() {
        let cue = match i < RECIPIENT_CUES.len() {
            true => RECIPIENT_CUES[i],
            false => SIGNER_CUES[i - RECIPIENT_CUES.len()],
        };
        let first = cue.as_bytes()[0];
        assert!(first < 128, "a cue starts with an ASCII letter");
        m |= 1 << first;
        i += 1;
    }
    m
};

/// Slots a document keeps: the first ones in text order (a letter's head and its closing come
/// first in any letter, a long text's later titles are its body's). 16 bytes each.
pub const MAX_SLOTS: usize = 16;

/// Name words a slot takes after its cue: a first and a last name.
const NAME_WORDS: usize = 2;

/// Words each side of a slot (before its cue, after its names) that say whether it stands in
/// clean text.
const CONTEXT: usize = 3;

/// Letters a name needs (`Eva`, `Udo`): shorter words are initials and OCR's debris.
const NAME_LETTERS: usize = 3;

/// What a slot's name is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The recipient (a title or a salutation before it).
    Recipient,
    /// The signer (a closing before it).
    Signer,
}

/// One slot of a document: the words `before` its cue, the cue's words, its name words and the
/// words `after` them, in text order, from word `index` (at byte `offset` of the text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    offset: u32,
    index: u32,
    before: u8,
    cue: u8,
    names: u8,
    after: u8,
    kind: Kind,
}

/// Characters from which a cue is known by its OCR-folded form (`herm` is what OCR makes of
/// `herrn`); a shorter one only as it is (folded, `hi` would be `bi` and `frau` `trau`).
const FOLDED_CUE: usize = 5;

/// The cues of [`FOLDED_CUE`] characters or more OCR-folded, with their kind.
fn folded_cues() -> &'static [(Vec<char>, Kind)] {
    static CUES: std::sync::OnceLock<Vec<(Vec<char>, Kind)>> = std::sync::OnceLock::new();
    CUES.get_or_init(|| {
        let kinds = [
            (Kind::Recipient, &RECIPIENT_CUES[..]),
            (Kind::Signer, &SIGNER_CUES[..]),
        ];
        kinds
            .iter()
            .flat_map(|&(kind, cues)| {
                cues.iter()
                    .filter(|c| c.chars().count() >= FOLDED_CUE)
                    .map(move |c| {
                        let mut f = Vec::new();
                        fold_into(&[c], &mut f);
                        (f, kind)
                    })
            })
            .collect()
    })
}

/// The character `w` folds to first, read from its first two bytes when they are ASCII
/// (`None` otherwise): a sequence OCR confuses is two characters.
fn first_folded(w: &str) -> Option<char> {
    let b = w.as_bytes();
    let head = &b[..b.len().min(2)];
    if !head.is_ascii() {
        return None;
    }
    let mut first = None;
    fold_ascii(head, |c| {
        first.get_or_insert(char::from(c));
    });
    first
}

/// A bit for each letter `a`–`z` (none for another character).
fn letter_bit(c: char) -> u32 {
    match c {
        'a'..='z' => 1 << (c as u32 - 'a' as u32),
        _ => 0,
    }
}

/// The letters the [`folded_cues`] start with, a bit each ([`letter_bit`]).
fn first_letters() -> u32 {
    static LETTERS: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *LETTERS.get_or_init(|| {
        folded_cues().iter().fold(0, |m, (c, _)| {
            assert!(letter_bit(c[0]) != 0, "a cue folds to a-z first");
            m | letter_bit(c[0])
        })
    })
}

/// The kind of slot `w` opens, if it is a cue (`buf`: working memory).
fn cue_kind(w: &str, buf: &mut Vec<char>) -> Option<Kind> {
    // Longer than every cue (the longest has 10 bytes): not one.
    if w.len() > 12 {
        return None;
    }
    // Every cue starts with an ASCII letter: a word that starts with none of theirs is none.
    if w.as_bytes()
        .first()
        .is_some_and(|&b| b < 128 && (CUE_FIRST >> b) & 1 == 1)
    {
        if RECIPIENT_CUES.contains(&w) {
            return Some(Kind::Recipient);
        }
        if SIGNER_CUES.contains(&w) {
            return Some(Kind::Signer);
        }
    }
    // Too short to be known folded: not one.
    if w.len() < FOLDED_CUE || w.chars().count() < FOLDED_CUE {
        return None;
    }
    // Most words are ruled out by the letter they fold to first, before folding them whole.
    if let Some(first) = first_folded(w) {
        if first_letters() & letter_bit(first) == 0 {
            return None;
        }
    }
    fold_into(&[w], buf);
    folded_cues()
        .iter()
        .find(|(c, _)| c == buf)
        .map(|&(_, kind)| kind)
}

/// A word that can be a name: letters only, [`NAME_LETTERS`] of them or more.
fn name_like(w: &str) -> bool {
    w.chars().count() >= NAME_LETTERS && w.chars().all(char::is_alphabetic)
}

/// The slots of a normalized text (none for a text past 4 GiB: offsets are 32-bit).
pub(crate) fn slots(norm: &str) -> Vec<Slot> {
    if u32::try_from(norm.len()).is_err() {
        return Vec::new();
    }
    let all: Vec<&str> = words(norm).collect();
    let (mut out, mut buf) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < all.len() && out.len() < MAX_SLOTS {
        let Some(mut kind) = cue_kind(all[i], &mut buf) else {
            i += 1;
            continue;
        };
        // A run of cues is one, of its last cue's kind (`liebe grüße` closes a letter).
        let mut cue_end = i + 1;
        while let Some(k) = all.get(cue_end).and_then(|w| cue_kind(w, &mut buf)) {
            kind = k;
            cue_end += 1;
        }
        let names = (cue_end..all.len().min(cue_end + NAME_WORDS))
            .take_while(|&j| name_like(all[j]))
            .count();
        if names > 0 {
            let start = i.saturating_sub(CONTEXT);
            let after = (all.len() - cue_end - names).min(CONTEXT);
            let offset = all[start].as_ptr() as usize - norm.as_ptr() as usize;
            out.push(Slot {
                offset: offset as u32,
                index: start as u32,
                before: (i - start) as u8,
                cue: (cue_end - i) as u8,
                names: names as u8,
                after: after as u8,
                kind,
            });
        }
        i = cue_end + names;
    }
    out.shrink_to_fit();
    out
}

/// A name of one text's slot that the other text has nowhere, even up to OCR folding, nor as
/// two of its words glued.
struct Only<'t> {
    word: &'t str,
    id: u32,
    kind: Kind,
    /// Its place among its slot's names (a first name, a last name).
    place: usize,
    /// At most one of the words around its slot (before the cue, after the names) is missing
    /// from the other text, and two or more are there.
    clean: bool,
}

/// Whether the other text (`other`, its profile `po`) has `word` glued: two of its words glued
/// into it (`marythompson`, `herrscholz`), or it glued to a word at either end of one of its
/// words (`carolin` in `carolinludwig`).
fn glued(word: &str, (other, po): (&str, &Profile), buf: &mut Scratch) -> bool {
    let bytes = other.as_bytes();
    let boundary = |k: Option<usize>| k.and_then(|k| bytes.get(k)).is_none_or(|&c| c == b' ');
    word.char_indices()
        .skip(1)
        .any(|(k, _)| po.has_folded(&word[..k], buf) && po.has_folded(&word[k..], buf))
        || memchr::memmem::find_iter(bytes, word.as_bytes())
            .any(|at| boundary(at.checked_sub(1)) != boundary(Some(at + word.len())))
}

/// The names of `this` text's slots that `other` has nowhere ([`Only`]), each once.
fn only_names<'t>(
    (text, this): (&'t str, &Profile),
    (other_text, other): (&str, &Profile),
    buf: &mut Scratch,
) -> Vec<Only<'t>> {
    let mut out: Vec<Only> = Vec::new();
    for s in &this.slots {
        let ws: Vec<&str> = words(&text[s.offset as usize..])
            .take(usize::from(s.before + s.cue + s.names + s.after))
            .collect();
        let ids = &this.ids[s.index as usize..][..ws.len()];
        let names = usize::from(s.before + s.cue)..usize::from(s.before + s.cue + s.names);
        let context = (0..usize::from(s.before)).chain(names.end..ws.len());
        let (mut there, mut missing) = (0, 0);
        for j in context {
            if other.has(ws[j], ids[j], buf) {
                there += 1;
            } else {
                missing += 1;
            }
        }
        for (place, j) in names.enumerate() {
            let (word, id) = (ws[j], ids[j]);
            if !other.has(word, id, buf)
                && !out.iter().any(|o| o.id == id)
                && !glued(word, (other_text, other), buf)
            {
                out.push(Only {
                    word,
                    id,
                    kind: s.kind,
                    place,
                    clean: there >= 2 && missing <= 1,
                });
            }
        }
    }
    out
}

/// Whether two names look alike under OCR, once both are OCR-folded: more than half their
/// characters shared (normalized Indel similarity), or more than half of the shorter one's
/// characters in the longer in order, as a misread name does (`kevin` and `kcvln`; `jason` read
/// `kan`, its middle lost) and another name does not (`kevin` and `sandra`, `anna` and `lukas`).
fn look_alike(a: &str, b: &str) -> bool {
    let (fa, fb) = (super::folded(a), super::folded(b));
    let (la, lb) = (fa.len(), fb.len());
    let d = rapidfuzz::distance::indel::distance(fa, fb);
    let common = (la + lb - d) / 2;
    2 * common > la + lb || 2 * common > la.min(lb)
}

/// The names of `only` that can stand against another: in clean words, known to the corpus
/// (`known`), and like none of the other text's names in their place of a slot of their kind
/// that this text has nowhere (`others`: one of those is what OCR made of it).
fn standing<'o, 't>(
    only: &'o [Only<'t>],
    others: &[Only],
    known: impl Fn(u32) -> bool,
) -> Vec<&'o Only<'t>> {
    only.iter()
        .filter(|x| {
            x.clean
                && known(x.id)
                && !others
                    .iter()
                    .any(|y| y.kind == x.kind && y.place == x.place && look_alike(x.word, y.word))
        })
        .collect()
}

/// Names standing against each other in the two texts' slots ([`super::Evidence::addressee_subs`]):
/// a name of one text's slot the other text has nowhere, facing one in the same place of a
/// slot of the same kind of the other that the first has nowhere, both known to the corpus
/// (`known`), in clean words, and like none of the other side's such names under OCR
/// ([`standing`]): another addressee, however damaged the rest of the texts. Each name faces
/// one other at most.
pub fn substitutions(texts: [(&str, &Profile); 2], known: impl Fn(u32, Side) -> bool) -> usize {
    names(texts, known).subs
}

/// What the two texts' slots say ([`names`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Names {
    /// Names standing against each other ([`substitutions`]).
    pub subs: usize,
    /// Names standing alone: a name of one text's slot that could stand against another
    /// ([`standing`]) where the other text has a slot of the same kind with a name in that
    /// place, which the first text holds elsewhere (a cover sheet from the sender names him,
    /// so the letter to his wife faces nothing the alignment calls another name).
    pub unfaced: usize,
}

/// [`substitutions`] and the names standing alone ([`Names`]).
pub fn names(
    [(a, pa), (b, pb)]: [(&str, &Profile); 2],
    known: impl Fn(u32, Side) -> bool,
) -> Names {
    let mut out = Names::default();
    if pa.slots.is_empty() || pb.slots.is_empty() {
        return out;
    }
    let buf = &mut Scratch::default();
    let only_a = only_names((a, pa), (b, pb), buf);
    let only_b = only_names((b, pb), (a, pa), buf);
    let mut facing_b = standing(&only_b, &only_a, |id| known(id, Side::B));
    for x in standing(&only_a, &only_b, |id| known(id, Side::A)) {
        let facing = facing_b
            .iter()
            .position(|y| y.kind == x.kind && y.place == x.place);
        match facing {
            Some(k) => {
                facing_b.swap_remove(k);
                out.subs += 1;
            }
            None => out.unfaced += usize::from(has_place(pb, x)),
        }
    }
    out.unfaced += facing_b.iter().filter(|y| has_place(pa, y)).count();
    out.subs += titles_against([(a, pa), (b, pb)]);
    out
}

/// The gender a title gives the name after it (`mr`, `herr`: 0; `ms`, `frau`: 1).
fn title_gender(w: &str) -> Option<u8> {
    match w {
        "mr" | "herr" | "herrn" => Some(0),
        "ms" | "mrs" | "miss" | "frau" => Some(1),
        _ => None,
    }
}

/// The names a text's recipient slots put right after a title, with the title.
fn titled<'t>(text: &'t str, p: &Profile) -> Vec<(&'t str, u32)> {
    let mut out = Vec::new();
    for s in p.slots.iter().filter(|s| s.kind == Kind::Recipient) {
        let cue_end = usize::from(s.before + s.cue);
        let ws: Vec<&str> = words(&text[s.offset as usize..]).take(cue_end).collect();
        let (Some(&title), Some(&id)) = (ws.last(), p.ids.get(s.index as usize + cue_end)) else {
            continue;
        };
        if title_gender(title).is_some() {
            out.push((title, id));
        }
    }
    out
}

/// Names one text titles as one gender and the other text as the other, neither text titling
/// them so too (`Dear Ms Wilson`, `Dear Mr Wilson`: a letter to another member of the
/// household). Titles a character apart (`Mr`, `Mrs`) are what OCR makes of each other.
fn titles_against([(a, pa), (b, pb)]: [(&str, &Profile); 2]) -> usize {
    let (ta, tb) = (titled(a, pa), titled(b, pb));
    let gender = |t: &str| title_gender(t).expect("a title");
    let titles =
        |list: &[(&str, u32)], id: u32, g: u8| list.iter().any(|&(t, j)| j == id && gender(t) == g);
    let mut against: Vec<u32> = ta
        .iter()
        .filter(|&&(t, id)| {
            let g = gender(t);
            tb.iter().any(|&(u, j)| {
                j == id
                    && gender(u) != g
                    && rapidfuzz::distance::indel::distance(t.chars(), u.chars()) > 1
            }) && !titles(&tb, id, g)
                && !titles(&ta, id, 1 - g)
        })
        .map(|&(_, id)| id)
        .collect();
    against.sort_unstable();
    against.dedup();
    against.len()
}

/// Whether a text (its profile `p`) has a slot of `x`'s kind with a name in `x`'s place.
fn has_place(p: &Profile, x: &Only) -> bool {
    p.slots
        .iter()
        .any(|s| s.kind == x.kind && usize::from(s.names) > x.place)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::Vocab;

    fn profiles(a: &str, b: &str) -> (Profile, Profile) {
        let mut v = Vocab::default();
        (Profile::counted(a, &mut v), Profile::counted(b, &mut v))
    }

    fn subs(a: &str, b: &str, known: bool) -> usize {
        let (pa, pb) = profiles(a, b);
        substitutions([(a, &pa), (b, &pb)], |_, _| known)
    }

    /// The cue rule without the first-letter sieve: [`cue_kind`] must read every word so.
    fn cue_kind_unsieved(w: &str) -> Option<Kind> {
        if RECIPIENT_CUES.contains(&w) {
            return Some(Kind::Recipient);
        }
        if SIGNER_CUES.contains(&w) {
            return Some(Kind::Signer);
        }
        if w.len() > 12 || w.chars().count() < FOLDED_CUE {
            return None;
        }
        let mut f = Vec::new();
        fold_into(&[w], &mut f);
        folded_cues()
            .iter()
            .find(|(c, _)| *c == f)
            .map(|&(_, kind)| kind)
    }

    proptest::proptest! {
        /// Words OCR made of a cue (and any other word) are read as the unsieved rule reads
        /// them.
        #[test]
        fn the_first_letter_sieve_rules_out_no_cue(
            cue in 0..RECIPIENT_CUES.len() + SIGNER_CUES.len(),
            head in "(|rn|ri|vv|cl|li|ii|h|b|8|6|ß|f|t|[a-z])",
            tail in "[a-zäöüß01]{0,10}",
            whole in proptest::bool::ANY,
        ) {
            let cues: Vec<&str> = RECIPIENT_CUES.iter().chain(&SIGNER_CUES).copied().collect();
            // A cue with its first letter replaced by what OCR confuses it with, or any word.
            let w = match whole {
                true => format!("{head}{}", &cues[cue][1..]),
                false => format!("{head}{tail}"),
            };
            let mut buf = Vec::new();
            proptest::prop_assert_eq!(cue_kind(&w, &mut buf), cue_kind_unsieved(&w), "{}", w);
        }
    }

    const KEVIN: &str = "newport sports club phone 358 697 8906 mr kevin edwards 8235 oak street \
        manchester va 79991 dear mr edwards for this reason the treasurer report could not be \
        investigated sincerely charles davis board of directors";

    #[test]
    fn another_recipient_in_the_address_block_is_counted() {
        let sandra = KEVIN.replace("mr kevin", "ms sandra");
        assert_eq!(subs(KEVIN, &sandra, true), 1);
        assert_eq!(subs(&sandra, KEVIN, true), 1, "symmetric");
    }

    #[test]
    fn a_name_facing_one_the_other_text_holds_elsewhere_stands_alone() {
        // The letter to his wife, faxed with his cover sheet: his name is in her copy, so
        // only hers stands, facing his address block.
        let sandra = format!(
            "fax from kevin edwards {}",
            KEVIN.replace("mr kevin", "ms sandra")
        );
        let (pa, pb) = profiles(KEVIN, &sandra);
        let n = names([(KEVIN, &pa), (&sandra, &pb)], |_, _| true);
        assert_eq!(
            n,
            Names {
                subs: 0,
                unfaced: 1
            }
        );
        let (pa, pb) = profiles(KEVIN, KEVIN);
        assert_eq!(
            names([(KEVIN, &pa), (KEVIN, &pb)], |_, _| true),
            Names::default()
        );
    }

    #[test]
    fn a_name_titled_as_another_gender_is_another_recipient() {
        let ms = KEVIN.replace("dear mr edwards", "dear ms edwards");
        assert_eq!(subs(KEVIN, &ms, true), 1);
        assert_eq!(subs(&ms, KEVIN, true), 1, "symmetric");
        let herr = "sehr geehrter herr scholz wie besprochen senden wir die unterlagen";
        let frau = "sehr geehrte frau scholz wie besprochen senden wir die unterlagen";
        assert_eq!(
            subs(herr, frau, false),
            1,
            "known or not: a title is no name"
        );
        // A character dropped or added is OCR's (`Mrs` read `Mr`); a text that titles the
        // name both ways, or the same way as the other somewhere, says nothing.
        let mrs = KEVIN.replace("dear mr edwards", "dear mrs edwards");
        assert_eq!(subs(KEVIN, &mrs, true), 0);
        let both = format!("{ms} cc mr edwards");
        assert_eq!(subs(KEVIN, &both, true), 0);
    }

    #[test]
    fn a_recipient_in_the_salutation_is_counted() {
        let a = "unser zeichen ab 12 hallo lukas wie besprochen senden wir die unterlagen";
        let b = "unser zeichen ab 12 hallo anna wie besprochen senden wir die unterlagen";
        assert_eq!(subs(a, b, true), 1);
    }

    #[test]
    fn another_signer_is_counted() {
        let a = "the meeting is on monday sincerely charles davis board of directors";
        let b = "the meeting is on monday sincerely robert miller board of directors";
        assert_eq!(subs(a, b, true), 2, "first and last name");
    }

    #[test]
    fn a_misread_name_is_not_another() {
        for misread in ["mr kcvln", "mr kan", "mr kevinedwards"] {
            let garbled = KEVIN.replace("mr kevin", misread);
            assert_eq!(subs(KEVIN, &garbled, true), 0, "{misread}");
        }
        assert!(look_alike("jason", "kan") && !look_alike("kevin", "sandra"));
        assert!(!look_alike("anna", "lukas") && !look_alike("daniel", "elke"));
    }

    #[test]
    fn a_name_in_damaged_words_is_not_counted() {
        let sandra = KEVIN.replace(
            "phone 358 697 8906 mr kevin edwards 8235 oak street",
            "phqne 35b 6g7 89o6 ms sandra edwards 82e5 qak strcet",
        );
        assert_eq!(subs(KEVIN, &sandra, true), 0);
    }

    #[test]
    fn two_names_no_other_document_has_are_not_counted() {
        let sandra = KEVIN.replace("mr kevin", "ms sandra");
        assert_eq!(subs(KEVIN, &sandra, false), 0);
    }

    #[test]
    fn a_name_the_other_text_has_elsewhere_does_not_face_one() {
        // Kevin's letter under a cover sheet from Sandra, against Sandra's letter: Sandra is
        // in both texts.
        let sandra = KEVIN.replace("mr kevin", "ms sandra");
        let covered = format!("fax from ms sandra edwards pages 2 {KEVIN}");
        assert_eq!(subs(&covered, &sandra, true), 0);
        assert_eq!(subs(KEVIN, &sandra, true), 1, "without the cover sheet");
    }

    #[test]
    fn names_in_slots_of_two_kinds_do_not_face_each_other() {
        let a = "the meeting is on monday dear kevin the report is ready sincerely charles davis";
        let b = "the meeting is on monday dear the report is ready sincerely sandra charles davis";
        assert_eq!(subs(a, b, true), 0, "kevin a recipient, sandra a signer");
        let b = a.replace("dear kevin", "dear karl");
        assert_eq!(subs(a, &b, true), 1);
    }

    #[test]
    fn slots_are_bounded_and_read_their_words() {
        let text = "mr anna b ".repeat(40);
        let s = slots(&text);
        assert_eq!(s.len(), MAX_SLOTS);
        let first = s[0];
        assert_eq!((first.before, first.cue, first.names), (0, 1, 1));
        let s = slots("x y z w dear ms fisher we are");
        assert_eq!(s.len(), 1);
        assert_eq!(
            (s[0].before, s[0].cue, s[0].names, s[0].after),
            (3, 2, 1, 2)
        );
        assert_eq!(
            &"x y z w dear ms fisher we are"[s[0].offset as usize..][..1],
            "y"
        );
    }
}
