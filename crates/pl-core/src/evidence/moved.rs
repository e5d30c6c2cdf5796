//! A block one text has in one place and the other in another, with words changed: a
//! letterhead or a header line read in another order, whose date or version is another.
//! Moved as it is, it is no conflict; moved and changed, its changes are.

use super::seen::SeenWords;
use super::{replaced_block, Evidence, Profile, Scratch, Side};
use crate::diff::Hunk;
use crate::trigram::overlap_at_least;

/// Words of a deleted block read as a moved line or header: a few lines at most. Longer
/// blocks are pages or sections, which the containment judges.
const MOVED_WORDS: std::ops::RangeInclusive<usize> = 3..=40;

/// Deleted and inserted blocks looked at, each side's first ones in text order: a header is
/// moved in one or two blocks, and a pair costs at most this many squared comparisons.
const MOVED_BLOCKS: usize = 32;

/// Weighs the words of each block moved and changed ([`moved_blocks`] of the alignment's
/// deleted and inserted blocks, `pure`) as a replaced block's conflicts, into `e`. What else
/// such a block would count (words replaced, garbled) was counted as added, as the match
/// probability was fitted.
pub(super) fn weigh_moved<'t, I: Iterator<Item = &'t str>>(
    e: &mut Evidence,
    pure: &[Hunk],
    [all_a, all_b]: [&mut SeenWords<'t, I>; 2],
    [pa, pb]: [&Profile; 2],
    known: impl Fn(u32, Side) -> bool + Copy,
    constant: impl Fn(u32) -> bool + Copy,
    buf: &mut Scratch,
) {
    for h in moved_blocks(pure, &pa.ids, &pb.ids) {
        let mut m = Evidence::default();
        let seen = [&mut *all_a, &mut *all_b];
        replaced_block(&mut m, &h, true, seen, [pa, pb], known, constant, buf);
        e.conflicts.extend(m.conflicts);
        e.digit_subs += m.digit_subs;
        e.one_digit_subs += m.one_digit_subs;
        e.word_subs += m.word_subs;
        e.rare_word_subs += m.rare_word_subs;
        e.outnumbered_subs += m.outnumbered_subs;
    }
}

/// The deleted blocks of `a` (ids `ia`) each paired with the inserted block of `b` (ids `ib`)
/// it was moved to, as a replaced block (`old` the deleted, `new` the inserted): about as
/// long (neither more than twice the other), half the shorter one's words in both, and not
/// the same words (moved as it is). Each inserted block faces one deleted block at most.
pub(super) fn moved_blocks(pure: &[Hunk], ia: &[u32], ib: &[u32]) -> Vec<Hunk> {
    let sorted = |ids: &[u32]| {
        let mut v = ids.to_vec();
        v.sort_unstable();
        v
    };
    let deleted: Vec<(&Hunk, Vec<u32>)> = pure
        .iter()
        .filter(|h| h.new.is_empty() && MOVED_WORDS.contains(&h.old.len()))
        .take(MOVED_BLOCKS)
        .map(|h| (h, sorted(&ia[h.old.clone()])))
        .collect();
    let mut inserted: Vec<Option<(&Hunk, Vec<u32>)>> = pure
        .iter()
        .filter(|h| h.old.is_empty() && h.new.len() * 2 >= *MOVED_WORDS.start())
        .take(MOVED_BLOCKS)
        .map(|h| Some((h, sorted(&ib[h.new.clone()]))))
        .collect();
    let mut out = Vec::new();
    for (d, dw) in &deleted {
        let best = inserted
            .iter()
            .enumerate()
            .filter_map(|(j, slot)| {
                let (_, iw) = slot.as_ref()?;
                let (short, long) = (dw.len().min(iw.len()), dw.len().max(iw.len()));
                let shared = overlap_at_least(dw, iw, short.div_ceil(2))?;
                (long <= 2 * short && shared < long).then_some((j, shared))
            })
            // The most words shared; of equals, the first block.
            .max_by_key(|&(j, shared)| (shared, std::cmp::Reverse(j)));
        if let Some((j, _)) = best {
            let (i, _) = inserted[j].take().expect("a block not yet paired");
            out.push(Hunk {
                old: d.old.clone(),
                new: i.new.clone(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(old: std::ops::Range<usize>, new: std::ops::Range<usize>) -> Hunk {
        Hunk { old, new }
    }

    #[test]
    fn a_deleted_block_faces_the_inserted_block_most_alike() {
        // a: [x] 1 2 3 4 [y]; b: [x] 9 9 [y] 1 2 3 5 [y] 1 2 7 8
        let ia = [0, 1, 2, 3, 4, 0];
        let ib = [0, 9, 9, 0, 1, 2, 3, 5, 0, 1, 2, 7, 8];
        let pure = [hunk(1..5, 4..4), hunk(5..5, 4..8), hunk(5..5, 9..13)];
        // Three of four words in the first inserted block, two in the second.
        assert_eq!(moved_blocks(&pure, &ia, &ib), [hunk(1..5, 4..8)]);
    }

    #[test]
    fn blocks_unlike_or_alike_are_not_moved_and_changed() {
        let ia = [1, 2, 3, 4];
        // One word of four shared: not one block.
        let unlike = [1, 7, 8, 9];
        // The same words: moved as it is, no conflict to find.
        let same = [4, 3, 2, 1];
        // Twice as long and more: a page, not a line.
        let long = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        for ib in [&unlike[..], &same, &long] {
            let pure = [hunk(0..4, 0..0), hunk(4..4, 0..ib.len())];
            assert!(moved_blocks(&pure, &ia, ib).is_empty(), "{ib:?}");
        }
        // Two words deleted: too short to say it is a line moved.
        let pure = [hunk(0..2, 0..0), hunk(2..2, 0..3)];
        assert!(moved_blocks(&pure, &ia, &[1, 2, 9]).is_empty());
    }
}
