//! The verifier: are the differences between two texts what OCR does, or what a different
//! document says?
//!
//! A rescan differs from its original by misread characters (`rn`/`m`, `0`/`O`, `1`/`l`),
//! dropped, split and merged words, and added or removed blocks (a page, a stamp, a cover
//! sheet). A sibling from the same template differs by *substitutions*: another invoice
//! number, another date, another amount, another recipient's name. The verifier aligns the two
//! word sequences (Myers diff), and for every replaced block checks whether the two sides are
//! the same text up to OCR confusions. What is not is an unexplained substitution; its weight
//! is its rarity in the corpus (the smaller of the two sides' rarest word), so a common word
//! garbled beyond repair weighs little and a swapped name or number weighs much.

use similar::{capture_diff_slices, Algorithm, DiffOp};
use xxhash_rust::xxh3::xxh3_64;

/// Character sequences OCR confuses, folded to one form before comparing (multi-character
/// ones first).
const FOLD_SEQ: [(&str, &str); 5] = [
    ("rn", "m"),
    ("ri", "n"),
    ("vv", "w"),
    ("cl", "d"),
    ("li", "h"),
];

/// Single characters OCR confuses, folded to one representative.
fn fold_char(c: char) -> char {
    match c {
        '0' => 'o',
        '1' | 'i' | '|' => 'l',
        '5' => 's',
        '8' | '6' | 'h' | 'ß' => 'b',
        '9' => 'g',
        'c' => 'e',
        'f' => 't',
        'ä' => 'a',
        'ö' => 'o',
        'ü' => 'u',
        other => other,
    }
}

/// The OCR-folded form of a text: confusable sequences and characters mapped to one form.
pub fn ocr_fold(text: &str) -> String {
    let mut s = text.to_string();
    for (from, to) in FOLD_SEQ {
        if s.contains(from) {
            s = s.replace(from, to);
        }
    }
    s.chars().map(fold_char).collect()
}

/// Is the replacement of words `x` by words `y` explained by OCR errors?
///
/// Both sides are joined without spaces (so split and merged words compare equal) and folded.
/// Equal folded forms are explained. Otherwise, with a digit on either side, at most one
/// character may be dropped or added (a substituted digit is another number); without digits,
/// the Indel distance may be 2 plus one per 16 characters.
pub fn explained(x: &[&str], y: &[&str]) -> bool {
    let (fx, fy) = (ocr_fold(&x.concat()), ocr_fold(&y.concat()));
    if fx == fy {
        return true;
    }
    let d = rapidfuzz::distance::indel::distance(fx.chars(), fy.chars());
    let digits = x
        .iter()
        .chain(y)
        .any(|w| w.bytes().any(|b| b.is_ascii_digit()));
    if digits {
        d <= 1
    } else {
        d <= 2 + (fx.chars().count() + fy.chars().count()) / 16
    }
}

/// An unexplained substitution: the two sides and their weight.
#[derive(Debug, Clone, PartialEq)]
pub struct Substitution {
    /// Words of the first text.
    pub a: String,
    /// Words of the second text.
    pub b: String,
    /// Rarity weight.
    pub weight: f64,
}

/// The unexplained substitutions between two normalized texts (words separated by single
/// spaces). `idf` gives a word hash's rarity weight. Deterministic (no time limit).
pub fn unexplained(a: &str, b: &str, idf: impl Fn(u64) -> f64) -> Vec<Substitution> {
    let wa: Vec<&str> = a.split(' ').filter(|w| !w.is_empty()).collect();
    let wb: Vec<&str> = b.split(' ').filter(|w| !w.is_empty()).collect();
    let ha: Vec<u64> = wa.iter().map(|w| xxh3_64(w.as_bytes())).collect();
    let hb: Vec<u64> = wb.iter().map(|w| xxh3_64(w.as_bytes())).collect();
    let rarest = |h: &[u64]| h.iter().map(|&x| idf(x)).fold(0.0f64, f64::max);
    let mut out = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &ha, &hb) {
        if let DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } = op
        {
            let (x, y) = (
                &wa[old_index..old_index + old_len],
                &wb[new_index..new_index + new_len],
            );
            if !explained(x, y) {
                let weight = rarest(&ha[old_index..old_index + old_len])
                    .min(rarest(&hb[new_index..new_index + new_len]));
                out.push(Substitution {
                    a: x.join(" "),
                    b: y.join(" "),
                    weight,
                });
            }
        }
    }
    out
}

/// [`unexplained`] under the better of the two alignments, so that the verdict does not depend
/// on which text is `a`: the alignment of a moved block depends on the order (from one side a
/// reordered letterhead is a deletion and an insertion, from the other a replacement of one
/// line by another). `a` is aligned against `b` first; only when that leaves more than
/// `max_weight` unexplained is `b` aligned against `a`, and the lighter of the two is returned
/// (the first on a tie). A pair passes (total weight at most `max_weight`) exactly when one of
/// the two alignments explains it, whichever side it was given on — so copies of one text get
/// the same verdict against any other document. The substitutions' `a` and `b` still name
/// `a`'s and `b`'s words.
pub fn unexplained_either(
    a: &str,
    b: &str,
    max_weight: f64,
    idf: impl Fn(u64) -> f64,
) -> Vec<Substitution> {
    let total = |subs: &[Substitution]| subs.iter().map(|s| s.weight).sum::<f64>();
    let ab = unexplained(a, b, &idf);
    let w = total(&ab);
    if w <= max_weight {
        return ab;
    }
    let ba: Vec<Substitution> = unexplained(b, a, &idf)
        .into_iter()
        .map(|s| Substitution {
            a: s.b,
            b: s.a,
            weight: s.weight,
        })
        .collect();
    if total(&ba) < w {
        ba
    } else {
        ab
    }
}

/// Hashes of the distinct words of a normalized text, sorted (for word rarity counts).
pub fn word_hashes(norm: &str, out: &mut Vec<u64>) {
    out.clear();
    out.extend(
        norm.split(' ')
            .filter(|w| !w.is_empty())
            .map(|w| xxh3_64(w.as_bytes())),
    );
    out.sort_unstable();
    out.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn un(a: &str, b: &str) -> Vec<(String, String)> {
        unexplained(a, b, |_| 1.0)
            .into_iter()
            .map(|s| (s.a, s.b))
            .collect()
    }

    #[test]
    fn ocr_confusions_are_explained() {
        assert!(un(
            "rechnung vom 01 03 2024 modern",
            "rechnurig vom 0l o3 2024 modem"
        )
        .is_empty());
        assert!(un("the upon window total 1234", "fhe upori vvindow tota1 1234").is_empty());
    }

    #[test]
    fn split_merged_and_dropped_characters_are_explained() {
        assert!(un("rechnung nummer 2012", "rech nung nummer 212").is_empty());
        assert!(un("nelson family", "nelsonfamily").is_empty());
    }

    #[test]
    fn insertions_and_deletions_are_not_substitutions() {
        assert!(
            un("a b c d", "x a b c d y z").is_empty(),
            "a page or stamp added"
        );
    }

    #[test]
    fn other_numbers_and_names_are_not_explained() {
        assert_eq!(
            un("invoice re2024001 total", "invoice re2024002 total"),
            vec![("re2024001".into(), "re2024002".into())]
        );
        assert_eq!(
            un("dear frau hannah meier", "dear herrn bernd meier").len(),
            1
        );
        assert_eq!(un("date 01012019 end", "date 14082019 end").len(), 1);
    }

    #[test]
    fn either_alignment_explains_a_moved_block() {
        // A reordered letterhead: one direction aligns it as a deletion and an insertion,
        // the other as a replacement of "phone 870 8321145" by "city of camden clerks office".
        let a = "city of camden clerks office records division 539 mill street camden pa 83623 \
                 phone 870 8321145 mr joshua ross 2196 walnut avenue";
        let b = "records division 539 mill street phone 870 8321145 camden pa 83623 city of \
                 camden clerks office mr joshua ross 2196 walnut avenue";
        let plain = |x: &str, y: &str| unexplained(x, y, |_| 1.0).len();
        assert_ne!(
            plain(a, b),
            plain(b, a),
            "the alignment depends on the order"
        );
        assert!(unexplained_either(a, b, 0.0, |_| 1.0).is_empty());
        assert!(unexplained_either(b, a, 0.0, |_| 1.0).is_empty());
        // Another number is unexplained from both sides, and named by side.
        let (x, y) = ("invoice re2024001 total", "invoice re2024002 total");
        for (p, q) in [(x, y), (y, x)] {
            let s = unexplained_either(p, q, 0.0, |_| 1.0);
            assert_eq!(s.len(), 1);
            assert_eq!((s[0].a.as_str(), s[0].b.as_str()), (&p[8..17], &q[8..17]));
        }
        // The first alignment is kept when it is within the allowance.
        let s = unexplained_either(x, y, 1.0, |_| 1.0);
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn weight_is_the_rarer_side_minimum() {
        let w = unexplained("x common y", "x zzzrare y", |h| {
            if h == xxh3_64(b"common") {
                0.5
            } else {
                9.0
            }
        });
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].weight, 0.5);
    }
}
