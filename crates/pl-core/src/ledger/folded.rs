//! A text's numbers OCR-folded, for the ledger's near matches: folded and sorted once per
//! document, not once per pair.

use crate::verify::{edits_within, fold_char};

/// A text's numbers OCR-folded, in one buffer: each one's span and [`counts_sig`].
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Folded {
    chars: Vec<char>,
    spans: Vec<(u32, u32, u64)>,
}

impl Folded {
    /// Bytes it holds on the heap.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.chars.capacity() * 4 + self.spans.capacity() * 16
    }

    /// Adds the number `w`.
    pub(crate) fn push(&mut self, w: &str) {
        let start = self.chars.len();
        self.chars.extend(w.chars().map(fold_char));
        let sig = counts_sig(&self.chars[start..]);
        self.spans
            .push((start as u32, self.chars.len() as u32, sig));
    }

    /// Sorts the numbers by length and drops repeats, once every number is in: a near match
    /// then reads only the numbers of a length within its tolerance.
    pub(crate) fn finish(&mut self) {
        let chars = std::mem::take(&mut self.chars);
        let of = |&(start, end, _): &(u32, u32, u64)| &chars[start as usize..end as usize];
        self.spans
            .sort_unstable_by(|x, y| of(x).len().cmp(&of(y).len()).then_with(|| of(x).cmp(of(y))));
        self.spans.dedup_by(|x, y| of(x) == of(y));
        for span in &mut self.spans {
            let start = self.chars.len() as u32;
            self.chars.extend_from_slice(of(span));
            *span = (start, self.chars.len() as u32, span.2);
        }
        self.chars.shrink_to_fit();
        self.spans.shrink_to_fit();
    }

    /// Whether one of the numbers is at most `tol` edits from `folded` (OCR-folded
    /// characters): only those within `tol` of its length are compared.
    pub(crate) fn has_near(&self, folded: &[char], tol: usize) -> bool {
        let n = folded.len();
        let sig = counts_sig(folded);
        let len = |&(start, end, _): &(u32, u32, u64)| (end - start) as usize;
        let from = self.spans.partition_point(|s| len(s) + tol < n);
        self.spans[from..]
            .iter()
            .take_while(|s| len(s) <= n + tol)
            .any(|&(start, end, other)| {
                counts_apart(sig, other) <= 2 * tol
                    && edits_within(folded, &self.chars[start as usize..end as usize], tol)
                        .is_some()
            })
    }
}

/// How many times each character occurs, in 16 buckets of 4 bits (by code modulo 16, counts
/// saturating at 15): an edit changes the counts by at most 2 in all, so two strings whose
/// signatures are further apart than twice an edit tolerance ([`counts_apart`]) are further
/// apart than it; collisions and saturation only bring signatures closer.
pub(crate) fn counts_sig(chars: &[char]) -> u64 {
    let mut sig = 0u64;
    for &c in chars {
        let shift = (c as u32 % 16) * 4;
        if (sig >> shift) & 0xf < 0xf {
            sig += 1 << shift;
        }
    }
    sig
}

/// The sum over the 16 buckets of the two signatures' count differences.
pub(crate) fn counts_apart(a: u64, b: u64) -> usize {
    (0..16)
        .map(|i| {
            let (x, y) = ((a >> (i * 4)) & 0xf, (b >> (i * 4)) & 0xf);
            x.abs_diff(y) as usize
        })
        .sum()
}

#[cfg(test)]
mod tests;
