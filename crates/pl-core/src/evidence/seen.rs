//! A text's words read only as far as the alignment needs them.

use crate::verify::words;

/// A text's words from its start as far as a block has needed them: a pair decided at its
/// first differing block does not split the rest of its texts.
pub(super) struct SeenWords<'a, I: Iterator<Item = &'a str>> {
    rest: I,
    words: Vec<&'a str>,
}

pub(super) fn seen_words(text: &str) -> SeenWords<'_, impl Iterator<Item = &str>> {
    SeenWords {
        rest: words(text),
        words: Vec::new(),
    }
}

impl<'a, I: Iterator<Item = &'a str>> SeenWords<'a, I> {
    /// The words from the start up to `end` (or the text's end).
    pub(super) fn upto(&mut self, end: usize) -> &[&'a str] {
        self.range(0..end)
    }

    /// Words `r` (as many of them as the text has).
    pub(super) fn range(&mut self, r: std::ops::Range<usize>) -> &[&'a str] {
        while self.words.len() < r.end {
            match self.rest.next() {
                Some(w) => self.words.push(w),
                None => break,
            }
        }
        &self.words[r.start.min(self.words.len())..r.end.min(self.words.len())]
    }
}
