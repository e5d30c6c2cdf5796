//! The profile of a text with some of its words taken out (a stamp only one text of a pair
//! holds, with the garble it overprints: [`crate::stamp::Unstamped`], made for each pair),
//! made from the whole text's profile instead of reading the shorter text again: the pair
//! reads what [`Profile::read`] of the shorter text gives, at the cost of the words taken out
//! (and one pass over the words for the numbers and the slots), not of folding and hashing
//! every word again.

use xxhash_rust::xxh3::xxh3_64;

use super::{addressee, digit_pieces, fold_hash, Profile, Scratch};
use crate::ledger::is_number;

/// Sorts `hashes` and drops repeats, giving how many times each one was there (saturating at
/// `u8::MAX`): the profile's folded words and their [`Profile::folded_times`].
pub(super) fn counted_set(hashes: &mut Vec<u64>) -> Vec<u8> {
    hashes.sort_unstable();
    let mut times: Vec<u8> = Vec::new();
    let mut kept = 0;
    for i in 0..hashes.len() {
        if kept > 0 && hashes[kept - 1] == hashes[i] {
            times[kept - 1] = times[kept - 1].saturating_add(1);
        } else {
            hashes[kept] = hashes[i];
            times.push(1);
            kept += 1;
        }
    }
    hashes.truncate(kept);
    times
}

impl Profile {
    /// The profile of this profile's text (its words `words`) without the words `drop` marks,
    /// which joined by single spaces are `text`: what [`Profile::read`]`(text, false)` with
    /// the kept words' ids gives, but for its digit pieces, which may hold more than the
    /// shorter text has (those of the words taken out): it then rules out less, never a number
    /// that is there. Reads the text again only when this profile cannot say (it was made
    /// this way itself, or a folded form is there more times than it counts).
    pub(crate) fn without(&self, words: &[&str], drop: &[bool], text: &str) -> Profile {
        debug_assert_eq!(words.len(), self.ids.len(), "a profile of another text");
        let ids: Vec<u32> = self
            .ids
            .iter()
            .zip(drop)
            .filter(|&(_, &d)| !d)
            .map(|(&id, _)| id)
            .collect();
        let Some((folded, folded_times)) = self.folded_without(words, drop) else {
            let mut p = Profile::read(text, false);
            p.set_ids(ids);
            return p;
        };
        let (distinct, counts) = self.counts_without(drop);
        let kept = || {
            words
                .iter()
                .zip(drop)
                .filter(|&(_, &d)| !d)
                .map(|(w, _)| *w)
        };
        let mut numbers = u32::try_from(text.len()).ok().map(|_| Vec::new());
        let mut folded_numbers = crate::ledger::Folded::default();
        let mut seen = rustc_hash::FxHashSet::default();
        let mut offset = 0;
        for (i, w) in kept().enumerate() {
            if is_number(w) {
                folded_numbers.push(w);
                // As `set_ids` keeps them: each number's first place.
                if let Some(at) = numbers.as_mut().filter(|_| seen.insert(ids[i])) {
                    at.push((offset as u32, i as u32));
                }
            }
            offset += w.len() + 1;
        }
        folded_numbers.finish();
        if let Some(at) = numbers.as_mut() {
            at.shrink_to_fit();
        }
        Profile {
            ids,
            distinct,
            counts,
            folded,
            folded_times,
            text_hash: xxh3_64(text.as_bytes()),
            numbers,
            folded_numbers,
            digit_grams: self.digit_grams_without(kept(), drop),
            slots: addressee::slots(text),
            stamps: Vec::new(),
        }
    }

    /// The distinct ids and their counts once the words `drop` marks are taken out.
    fn counts_without(&self, drop: &[bool]) -> (Vec<u32>, Vec<u32>) {
        let mut gone: Vec<u32> = self
            .ids
            .iter()
            .zip(drop)
            .filter(|&(_, &d)| d)
            .map(|(&id, _)| id)
            .collect();
        gone.sort_unstable();
        let (mut distinct, mut counts) = (Vec::new(), Vec::new());
        let mut g = gone.iter().peekable();
        for (&id, &n) in self.distinct.iter().zip(&self.counts) {
            let mut n = n;
            while let Some(&x) = g.next_if(|&&x| x <= id) {
                if x == id {
                    n -= 1;
                }
            }
            if n > 0 {
                distinct.push(id);
                counts.push(n);
            }
        }
        distinct.shrink_to_fit();
        counts.shrink_to_fit();
        (distinct, counts)
    }

    /// The folded words and their times once the words `drop` marks are taken out: a folded
    /// form stays while a kept word has it. Empty times in the result: it is not taken apart
    /// again. `None` when this profile cannot say (no times, or one saturated and as many
    /// taken out).
    fn folded_without(&self, words: &[&str], drop: &[bool]) -> Option<(Vec<u64>, Vec<u8>)> {
        if self.folded_times.len() != self.folded.len() {
            return None;
        }
        let mut buf = Scratch::default();
        let mut gone: Vec<u64> = words
            .iter()
            .zip(drop)
            .filter(|&(_, &d)| d)
            .map(|(w, _)| fold_hash(w, &mut buf))
            .collect();
        let gone_times = counted_set(&mut gone);
        let mut out = self.folded.clone();
        let mut emptied = Vec::new();
        for (h, &n) in gone.iter().zip(&gone_times) {
            let i = self.folded.binary_search(h).ok()?;
            match self.folded_times[i] {
                u8::MAX if n < u8::MAX => {}
                times if times < u8::MAX && times == n => emptied.push(i),
                times if times < u8::MAX && times > n => {}
                _ => return None,
            }
        }
        if !emptied.is_empty() {
            let mut e = emptied.iter().peekable();
            let mut i = 0;
            out.retain(|_| {
                let drop = e.next_if_eq(&&i).is_some();
                i += 1;
                !drop
            });
            out.shrink_to_fit();
        }
        Some((out, Vec::new()))
    }

    /// The digit pieces of the text of the words `kept` (the others marked by `drop`): this
    /// text's, and those across each place words were taken out. Empty (nothing ruled out)
    /// when this text's are.
    fn digit_grams_without<'w>(
        &self,
        kept: impl Iterator<Item = &'w str>,
        drop: &[bool],
    ) -> Vec<u32> {
        if self.digit_grams.is_empty() || !drop.contains(&true) {
            return self.digit_grams.clone();
        }
        // The kept text without its spaces, and where two words that were apart now meet.
        let (mut squeezed, mut joins) = (Vec::new(), Vec::new());
        let mut was = drop
            .iter()
            .enumerate()
            .filter(|&(_, &d)| !d)
            .map(|(i, _)| i);
        let mut last: Option<usize> = None;
        for w in kept {
            let i = was.next().expect("one index per kept word");
            if last.is_some_and(|l| l + 1 != i) {
                joins.push(squeezed.len());
            }
            squeezed.extend_from_slice(w.as_bytes());
            last = Some(i);
        }
        let mut across: Vec<u32> = joins
            .iter()
            .flat_map(|&j| {
                let piece = &squeezed[j.saturating_sub(3)..(j + 3).min(squeezed.len())];
                digit_pieces(piece).collect::<Vec<_>>()
            })
            .collect();
        across.sort_unstable();
        across.dedup();
        let mut grams = Vec::with_capacity(self.digit_grams.len() + across.len());
        let (mut a, mut b) = (self.digit_grams.iter().peekable(), across.iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(&&x), Some(&&y)) if x < y => a.next(),
                (Some(&&x), Some(&&y)) if x > y => b.next(),
                (Some(_), Some(_)) => {
                    b.next();
                    a.next()
                }
                (Some(_), None) => a.next(),
                (None, Some(_)) => b.next(),
                (None, None) => break,
            };
            grams.extend(next);
        }
        grams
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::{words, Vocab};

    /// The profile of `text` without the words `drop` marks, made from its own profile and by
    /// reading the shorter text: every part equal, but the digit pieces, which hold at least
    /// the shorter text's (or are empty, nothing ruled out).
    fn check(text: &str, drop: &[bool]) -> Result<(), String> {
        let mut vocab = Vocab::default();
        let whole = Profile::counted(text, &mut vocab);
        let w: Vec<&str> = words(text).collect();
        let kept: Vec<&str> = w
            .iter()
            .zip(drop)
            .filter(|(_, &d)| !d)
            .map(|(t, _)| *t)
            .collect();
        let short = kept.join(" ");
        let made = whole.without(&w, drop, &short);
        let ids = whole
            .ids()
            .iter()
            .zip(drop)
            .filter(|(_, &d)| !d)
            .map(|(&i, _)| i);
        let mut read = Profile::read(&short, false);
        read.set_ids(ids.collect());
        let same = |what: &str, eq: bool| {
            eq.then_some(())
                .ok_or(format!("{what} differ: {made:?} {read:?}"))
        };
        same("ids", made.ids == read.ids)?;
        same(
            "distinct",
            made.distinct == read.distinct && made.counts == read.counts,
        )?;
        same("folded", made.folded == read.folded)?;
        same("text_hash", made.text_hash == read.text_hash)?;
        same("numbers", made.numbers == read.numbers)?;
        same("folded_numbers", made.folded_numbers == read.folded_numbers)?;
        same(
            "slots",
            made.slots == read.slots && made.stamps == read.stamps,
        )?;
        let sound = made.digit_grams.is_empty()
            || read
                .digit_grams
                .iter()
                .all(|g| made.digit_grams.binary_search(g).is_ok());
        same("digit pieces", sound)
    }

    #[test]
    fn a_text_without_a_stamp_is_profiled_as_read() {
        let text = "dear mr kevin edwards eingegangen 20022021 bm rechnung 4711 vom 2021 \
            cat eat rnodern modern 0ct oct 12 345 sincerely anna becker 4711";
        let n = words(text).count();
        for start in 0..n {
            for len in 1..4.min(n - start + 1) {
                let drop: Vec<bool> = (0..n).map(|i| (start..start + len).contains(&i)).collect();
                check(text, &drop).unwrap();
            }
        }
        check(text, &vec![true; n]).unwrap();
        check(text, &vec![false; n]).unwrap();
    }

    #[test]
    fn a_folded_form_there_more_times_than_counted_is_read_again() {
        // `cat` folds as `eat`: 300 of them saturate its count, and taking all out is asked
        // of the text itself.
        let text = format!(
            "{} rechnung 12 {} 2021",
            "cat ".repeat(300),
            "eat ".repeat(2)
        );
        let n = words(&text).count();
        let drop: Vec<bool> = (0..n).map(|i| i < 300).collect();
        check(&text, &drop).unwrap();
        let drop: Vec<bool> = (0..n).map(|i| i < 10 || i == n - 1).collect();
        check(&text, &drop).unwrap();
    }

    proptest::proptest! {
        /// Any text, any words taken out.
        #[test]
        fn any_text_without_any_words_is_profiled_as_read(
            text in proptest::collection::vec(
                "(mr|dear|sincerely|herrn|cat|eat|rn|m|0ct|oct|12|1234|a1b2|20022021|kopie|x)",
                1..40,
            ),
            drop in proptest::collection::vec(proptest::bool::weighted(0.3), 40),
        ) {
            let text = text.join(" ");
            let n = words(&text).count();
            proptest::prop_assert_eq!(check(&text, &drop[..n]), Ok(()));
        }
    }
}
