//! A shortest edit script between two sequences, as the changed regions between the runs
//! they share.
//!
//! The longest common subsequence is computed bit-parallel (Hyyrö's row recurrence, 64 cells
//! per machine word, as rapidfuzz computes LCS lengths), with every row kept so that the walk
//! back can read any cell as a popcount. The verifier's word sequences are a few hundred
//! words that differ in dozens of places, where Myers' O((N + M) · D) search spends its time
//! on branches; here a row of 300 words is five additions.

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::ops::Range;

/// A changed region: `old` of the first sequence stands where `new` of the second does. One
/// of the two may be empty (a deletion or an insertion); between two hunks the sequences
/// agree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// Indexes into the first sequence.
    pub old: Range<usize>,
    /// Indexes into the second sequence.
    pub new: Range<usize>,
}

thread_local! {
    /// The working memory of the last call, reused: the verifier aligns millions of pairs, and
    /// allocating a dozen kilobytes for each cost more than filling them.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

#[derive(Default)]
struct Scratch {
    /// Each symbol of `a`: where its bit mask starts in `masks`.
    slot: FxHashMap<u64, usize>,
    masks: Vec<u64>,
    rows: Vec<u64>,
}

/// The changed regions of a shortest edit script turning `a` into `b` (insertions and
/// deletions only), in order. Equal elements are matched as late as the script allows, and
/// within a region deletions come before insertions, the same way every time.
pub fn hunks<K: Copy + Eq + Into<u64>>(a: &[K], b: &[K]) -> Vec<Hunk> {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[pre..], &b[pre..]);
    let suf = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - suf], &b[..b.len() - suf]);
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return if n + m == 0 {
            Vec::new()
        } else {
            vec![Hunk {
                old: pre..pre + n,
                new: pre..pre + m,
            }]
        };
    }
    SCRATCH.with(|scratch| {
        let Scratch { slot, masks, rows } = &mut *scratch.borrow_mut();
        walk(a, b, pre, slot, masks, rows)
    })
}

/// [`hunks`] of `a` and `b`, which differ in their first and last elements and are `pre`
/// elements into the sequences given, with `slot`, `masks` and `rows` as working memory.
fn walk<K: Copy + Eq + Into<u64>>(
    a: &[K],
    b: &[K],
    pre: usize,
    slot: &mut FxHashMap<u64, usize>,
    masks: &mut Vec<u64>,
    rows: &mut Vec<u64>,
) -> Vec<Hunk> {
    let (n, m) = (a.len(), b.len());
    let words = bit_masks(a, slot, masks);
    // rows[j * words..]: the state after b[..j]; a zero bit i means a[i] ends a common
    // subsequence one longer than a[..i] had, so LCS(a[..i], b[..j]) counts the zeros below i.
    rows.clear();
    rows.resize((m + 1) * words, !0);
    for (j, k) in b.iter().enumerate() {
        let (done, next) = rows.split_at_mut((j + 1) * words);
        let (prev, next) = (&done[j * words..], &mut next[..words]);
        match slot.get(&(*k).into()) {
            None => next.copy_from_slice(prev),
            Some(&at) => step(prev, &masks[at..at + words], next),
        }
    }
    let lcs = |j: usize, i: usize| -> u32 {
        let row = &rows[j * words..(j + 1) * words];
        let full: u32 = row[..i / 64].iter().map(|w| (!w).count_ones()).sum();
        let part = if i % 64 == 0 {
            0
        } else {
            (!row[i / 64] & ((1u64 << (i % 64)) - 1)).count_ones()
        };
        full + part
    };
    let mut out = Vec::new();
    // The region being collected, walking back: a[i..x1] stands where b[j..y1] does.
    let mut open: Option<(usize, usize)> = None;
    let (mut i, mut j) = (n, m);
    let mut close = |open: &mut Option<(usize, usize)>, i: usize, j: usize| {
        if let Some((x1, y1)) = open.take() {
            out.push(Hunk {
                old: pre + i..pre + x1,
                new: pre + j..pre + y1,
            });
        }
    };
    while i > 0 || j > 0 {
        if i > 0 && j > 0 && a[i - 1] == b[j - 1] {
            close(&mut open, i, j);
            i -= 1;
            j -= 1;
            continue;
        }
        open.get_or_insert((i, j));
        if j > 0 && (i == 0 || lcs(j - 1, i) == lcs(j, i)) {
            j -= 1;
        } else {
            i -= 1;
        }
    }
    close(&mut open, 0, 0);
    out.reverse();
    out
}

/// The positions of each element of `a` as a bit mask over `a`, `words` machine words long,
/// each starting at `slot[element]` in `masks`; returns `words`.
fn bit_masks<K: Copy + Into<u64>>(
    a: &[K],
    slot: &mut FxHashMap<u64, usize>,
    masks: &mut Vec<u64>,
) -> usize {
    let words = a.len().div_ceil(64);
    slot.clear();
    masks.clear();
    for (i, k) in a.iter().enumerate() {
        let at = *slot.entry((*k).into()).or_insert_with(|| {
            masks.resize(masks.len() + words, 0);
            masks.len() - words
        });
        masks[at + i / 64] |= 1 << (i % 64);
    }
    words
}

/// One row of the recurrence: the state after one more element of `b`, whose positions in
/// `a` are `mask`.
fn step(prev: &[u64], mask: &[u64], next: &mut [u64]) {
    let mut carry = false;
    for w in 0..prev.len() {
        let (s, u) = (prev[w], prev[w] & mask[w]);
        let (sum, c1) = s.overflowing_add(u);
        let (sum, c2) = sum.overflowing_add(u64::from(carry));
        carry = c1 || c2;
        next[w] = sum | (s - u);
    }
}

/// The changed regions of two texts' words, in order: long texts are aligned piece by piece
/// between anchors ([`anchored_hunks`]), so that a pair decided at its first differing block
/// pays for that block's piece only; shorter ones get the shortest edit script.
pub fn word_hunks<'s>(a: &'s [u32], b: &'s [u32]) -> Box<dyn Iterator<Item = Hunk> + 's> {
    if a.len().max(b.len()) >= ANCHORED_WORDS {
        Box::new(anchored_hunks(a, b))
    } else {
        Box::new(hunks(a, b).into_iter())
    }
}

/// Words of the longer text from which [`word_hunks`] aligns between anchors: every letter,
/// invoice and scan of a few pages gets the shortest edit script.
pub const ANCHORED_WORDS: usize = 2000;

/// The changed regions of two long sequences, found between anchors and yielded in order as
/// the caller asks for them: the elements that occur exactly once in each sequence, taken in
/// the longest run that is in order in both (patience diff's anchors), cut the sequences
/// into pieces that [`hunks`] aligns one at a time. An alignment stopped at its first
/// deciding region then costs that region's piece, not n·m; where the sequences share no
/// anchor it is [`hunks`] itself. The script is shortest within each piece, not always over
/// the whole (an anchor may match a word the shortest script would not).
pub fn anchored_hunks<'s, K: Copy + Eq + Into<u64>>(
    a: &'s [K],
    b: &'s [K],
) -> impl Iterator<Item = Hunk> + 's {
    let mut pieces = Vec::new();
    let (mut from_a, mut from_b) = (0, 0);
    for (i, j) in anchors(a, b) {
        if i > from_a || j > from_b {
            pieces.push((from_a..i, from_b..j));
        }
        (from_a, from_b) = (i + 1, j + 1);
    }
    if from_a < a.len() || from_b < b.len() {
        pieces.push((from_a..a.len(), from_b..b.len()));
    }
    pieces.into_iter().flat_map(move |(ra, rb)| {
        let (oa, ob) = (ra.start, rb.start);
        hunks(&a[ra], &b[rb]).into_iter().map(move |h| Hunk {
            old: h.old.start + oa..h.old.end + oa,
            new: h.new.start + ob..h.new.end + ob,
        })
    })
}

/// The positions `(i, j)` of the elements that occur once in `a` and once in `b`, the longest
/// run of them increasing in both (by `i`, then the first such run found), in order.
fn anchors<K: Copy + Into<u64>>(a: &[K], b: &[K]) -> Vec<(usize, usize)> {
    // Per element: occurrences in a, its position there, occurrences in b, its position.
    let mut seen: FxHashMap<u64, (u32, usize, u32, usize)> = FxHashMap::default();
    for (i, k) in a.iter().enumerate() {
        let e = seen.entry((*k).into()).or_insert((0, i, 0, 0));
        e.0 += 1;
    }
    for (j, k) in b.iter().enumerate() {
        if let Some(e) = seen.get_mut(&(*k).into()) {
            e.2 += 1;
            e.3 = j;
        }
    }
    let mut once: Vec<(usize, usize)> = seen
        .into_values()
        .filter(|e| e.0 == 1 && e.2 == 1)
        .map(|e| (e.1, e.3))
        .collect();
    once.sort_unstable();
    longest_increasing(&once)
}

/// The longest subsequence of `pairs` (sorted by their first) whose seconds increase:
/// patience sorting, each pile's top and each element's predecessor kept.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut tops: Vec<usize> = Vec::new();
    let mut before = vec![usize::MAX; pairs.len()];
    for (x, &(_, j)) in pairs.iter().enumerate() {
        let pile = tops.partition_point(|&t| pairs[t].1 < j);
        if pile > 0 {
            before[x] = tops[pile - 1];
        }
        if pile == tops.len() {
            tops.push(x);
        } else {
            tops[pile] = x;
        }
    }
    let mut run = Vec::with_capacity(tops.len());
    let mut at = tops.last().copied().unwrap_or(usize::MAX);
    while at != usize::MAX {
        run.push(pairs[at]);
        at = before[at];
    }
    run.reverse();
    run
}

/// The length of a longest common subsequence of `a` and `b`: what [`hunks`] leaves matched,
/// computed on one row (the shorter sequence's bits) instead of all of them.
pub fn lcs_len<K: Copy + Eq + Into<u64>>(a: &[K], b: &[K]) -> usize {
    let (a, b) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if a.is_empty() {
        return 0;
    }
    SCRATCH.with(|scratch| {
        let Scratch { slot, masks, rows } = &mut *scratch.borrow_mut();
        let words = bit_masks(a, slot, masks);
        rows.clear();
        rows.resize(2 * words, !0);
        let (mut prev, mut next) = rows.split_at_mut(words);
        for k in b {
            if let Some(&at) = slot.get(&(*k).into()) {
                step(prev, &masks[at..at + words], next);
                std::mem::swap(&mut prev, &mut next);
            }
        }
        let ones: usize = prev.iter().map(|w| w.count_ones() as usize).sum();
        // Bits past the end of `a` stay set.
        words * 64 - ones
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rebuilds `b` from `a` and the hunks, and counts the edits.
    fn apply(a: &[u8], b: &[u8], hunks: &[Hunk]) -> (Vec<u8>, usize) {
        let (mut out, mut at, mut edits) = (Vec::new(), 0, 0);
        for h in hunks {
            assert!(h.old.start >= at, "hunks in order");
            assert!(!h.old.is_empty() || !h.new.is_empty(), "no empty hunk");
            out.extend_from_slice(&a[at..h.old.start]);
            out.extend_from_slice(&b[h.new.clone()]);
            edits += h.old.len() + h.new.len();
            at = h.old.end;
        }
        out.extend_from_slice(&a[at..]);
        (out, edits)
    }

    /// The fewest insertions and deletions, by the textbook LCS table.
    fn edit_distance(a: &[u8], b: &[u8]) -> usize {
        let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in 0..a.len() {
            for j in 0..b.len() {
                lcs[i + 1][j + 1] = if a[i] == b[j] {
                    lcs[i][j] + 1
                } else {
                    lcs[i][j + 1].max(lcs[i + 1][j])
                };
            }
        }
        a.len() + b.len() - 2 * lcs[a.len()][b.len()]
    }

    proptest::proptest! {
        /// The hunks turn `a` into `b`, with as few edits as possible, and the text between
        /// them is shared.
        #[test]
        fn hunks_are_a_shortest_edit_script(a in "[abc]{0,30}", b in "[abc]{0,30}") {
            let (a, b) = (a.as_bytes(), b.as_bytes());
            let h = hunks(a, b);
            let (rebuilt, edits) = apply(a, b, &h);
            proptest::prop_assert_eq!(&rebuilt[..], b);
            proptest::prop_assert_eq!(edits, edit_distance(a, b));
            for w in h.windows(2) {
                proptest::prop_assert!(w[0].old.end < w[1].old.start);
                proptest::prop_assert_eq!(w[1].old.start - w[0].old.end, w[1].new.start - w[0].new.end);
                proptest::prop_assert_eq!(&a[w[0].old.end..w[1].old.start], &b[w[0].new.end..w[1].new.start]);
            }
        }
    }

    proptest::proptest! {
        /// Sequences longer than one machine word: the carry between words of a row.
        #[test]
        fn long_sequences_get_a_shortest_edit_script(
            a in proptest::collection::vec(0u8..4, 0..200),
            b in proptest::collection::vec(0u8..4, 0..200),
        ) {
            let (rebuilt, edits) = apply(&a, &b, &hunks(&a, &b));
            proptest::prop_assert_eq!(rebuilt, b.clone());
            proptest::prop_assert_eq!(edits, edit_distance(&a, &b));
        }
    }

    proptest::proptest! {
        /// The longest common subsequence's length is what the edit script leaves matched.
        #[test]
        fn lcs_len_is_what_the_hunks_leave_matched(
            a in proptest::collection::vec(0u8..5, 0..150),
            b in proptest::collection::vec(0u8..5, 0..150),
        ) {
            let changed: usize = hunks(&a, &b).iter().map(|h| h.old.len()).sum();
            proptest::prop_assert_eq!(lcs_len(&a, &b), a.len() - changed);
            proptest::prop_assert_eq!(lcs_len(&b, &a), a.len() - changed);
        }
    }

    proptest::proptest! {
        /// Anchored hunks turn `a` into `b`, in order, with the text between them shared;
        /// never fewer edits than the shortest script.
        #[test]
        fn anchored_hunks_are_an_edit_script(
            a in proptest::collection::vec(0u8..12, 0..80),
            b in proptest::collection::vec(0u8..12, 0..80),
        ) {
            let h: Vec<Hunk> = anchored_hunks(&a, &b).collect();
            let (rebuilt, edits) = apply(&a, &b, &h);
            proptest::prop_assert_eq!(rebuilt, b.clone());
            proptest::prop_assert!(edits >= edit_distance(&a, &b));
            for w in h.windows(2) {
                proptest::prop_assert!(w[0].old.end < w[1].old.start);
                proptest::prop_assert_eq!(&a[w[0].old.end..w[1].old.start], &b[w[0].new.end..w[1].new.start]);
            }
        }
    }

    #[test]
    fn anchors_are_the_longest_run_of_unique_words_in_order() {
        // 1, 2, 5 are once in each; 3 is twice in b; 4 and 2 cross over 5.
        let a = [1u8, 9, 2, 3, 4, 5];
        let b = [1u8, 3, 5, 2, 3, 4];
        assert_eq!(anchors(&a, &b), vec![(0, 0), (2, 3), (4, 5)]);
        let hs: Vec<Hunk> = anchored_hunks(&a, &b).collect();
        assert_eq!(apply(&a, &b, &hs).0, b.to_vec());
    }

    #[test]
    fn a_replaced_word_is_one_hunk() {
        let h = hunks(&[1u32, 2, 3, 4], &[1, 9, 3, 4]);
        assert_eq!(
            h,
            vec![Hunk {
                old: 1..2,
                new: 1..2
            }]
        );
        assert!(hunks(&[1u32, 2], &[1, 2]).is_empty());
        assert_eq!(
            hunks::<u8>(&[], &[7]),
            vec![Hunk {
                old: 0..0,
                new: 0..1
            }]
        );
    }
}
