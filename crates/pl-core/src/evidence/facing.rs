//! Wording that faces other wording: a block one text has in one place and the other text
//! another block in that same place.
//!
//! Another edition replaces a section: where one text has its sentences, the other has
//! different ones, of another length. The alignment splits such a section into blocks (a
//! sentence kept in between, a shared stopword), so no block of it looks long on both sides
//! at once; joined again across [`FACING_GAP`] matched words, the section is one place where
//! each text has words the other lacks. What each side has is measured by the excess of its
//! blocks over the other side's (a garbled word read as two is an excess of one): OCR's
//! damage is about as long in both texts, a page added or removed, a stamp or a cover sheet
//! is long on one side only, and two scans that lost different lines lost them in different
//! places.

use std::ops::Range;

/// Matched words between two blocks that still make them one place: about two lines of text,
/// as far as an edition's rewritten sentences sit apart within the section they replace.
pub const FACING_GAP: usize = 24;

/// The place being grown: where it ends in each text and each side's longest excess.
#[derive(Debug, Clone)]
struct Place {
    old_end: usize,
    new_end: usize,
    longest: [usize; 2],
}

/// Tracks the places of one alignment, block by block in text order.
#[derive(Debug, Default)]
pub(super) struct Facing {
    open: Option<Place>,
    most: usize,
}

impl Facing {
    /// Adds a block of the alignment away from both texts' edges (`old` of the first text,
    /// `new` of the second).
    pub(super) fn add(&mut self, old: &Range<usize>, new: &Range<usize>) {
        let excess = [
            old.len().saturating_sub(new.len()),
            new.len().saturating_sub(old.len()),
        ];
        if let Some(p) = self.open.as_mut() {
            if old.start <= p.old_end + FACING_GAP && new.start <= p.new_end + FACING_GAP {
                p.old_end = old.end;
                p.new_end = new.end;
                p.longest = [p.longest[0].max(excess[0]), p.longest[1].max(excess[1])];
                return;
            }
        }
        self.close();
        self.open = Some(Place {
            old_end: old.end,
            new_end: new.end,
            longest: excess,
        });
    }

    fn close(&mut self) {
        if let Some(p) = self.open.take() {
            self.most = self.most.max(p.longest[0].min(p.longest[1]));
        }
    }

    /// The longest excess facing another in one place: the smaller side's.
    pub(super) fn most(mut self) -> usize {
        self.close();
        self.most
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_of_both_sides_in_one_place_face_each_other() {
        let mut f = Facing::default();
        f.add(&(10..50), &(10..10));
        f.add(&(56..59), &(16..37));
        assert_eq!(f.most(), 18, "a section out, another in, a line apart");
        let mut f = Facing::default();
        f.add(&(10..50), &(10..10));
        f.add(&(120..121), &(80..101));
        assert_eq!(f.most(), 0, "lines lost in two places");
        let mut f = Facing::default();
        f.add(&(10..20), &(10..21));
        f.add(&(22..32), &(23..32));
        assert_eq!(f.most(), 1, "two garbled lines: as long on both sides");
    }
}
