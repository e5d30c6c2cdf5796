//! What a profile holds on the heap: what a held document's profile really costs, for the
//! budget of the texts held at once (pl-score's `--text-memory`).

use super::Profile;

impl Profile {
    /// Bytes its addressee slots take at most.
    pub const MAX_SLOT_BYTES: usize =
        super::addressee::MAX_SLOTS * std::mem::size_of::<super::addressee::Slot>();

    /// Bytes it holds on the heap: what a held document's profile really costs.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        (self.ids.capacity() + self.distinct.capacity() + self.counts.capacity()) * 4
            + self.folded.capacity() * 8
            + self.folded_times.capacity()
            + self.numbers.as_ref().map_or(0, |n| n.capacity() * 8)
            + self.folded_numbers.heap_bytes()
            + self.digit_grams.capacity() * 4
            + self.slots.capacity() * size_of::<super::addressee::Slot>()
            + self.stamps.capacity() * size_of::<crate::stamp::Stamp>()
    }
}
