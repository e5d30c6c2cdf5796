//! Candidates by the rare numbers two documents share (`pl-lsh --numbers`).

use rustc_hash::FxHashMap;

use super::{Candidate, FULL_EVIDENCE};

/// Documents that may hold a number for it to propose their pairs: the ledger's wide
/// agreement's ([`crate::ledger::WIDE_DF`]).
pub const NUMBER_BUCKET: usize = crate::ledger::WIDE_DF as usize;
/// Numbers two documents must share to be a candidate by them.
pub const NUMBER_MATCHES: u32 = 2;

/// The pairs proposed by the numbers their documents share: a copy with a page added or
/// removed, or read badly, still holds its original's invoice number, dates and amounts
/// where its whole text's bands miss it. `postings` holds (number hash, document) for every
/// document of the corpus, copies included; a number held by at most [`NUMBER_BUCKET`]
/// documents in all pairs those of them that are `banded`, and two documents sharing at least
/// [`NUMBER_MATCHES`] such numbers are a candidate, with 0 bands. Sorted by (a, b), each once.
/// Memory: the postings (16 bytes each) and one counter per pair (at most
/// `NUMBER_BUCKET − 1` partners per number of a document).
pub fn number_pairs(mut postings: Vec<(u64, u64)>, banded: impl Fn(u64) -> bool) -> Vec<Candidate> {
    // Tens of millions at a million documents: sorted on every thread.
    rayon::slice::ParallelSliceMut::par_sort_unstable(&mut postings[..]);
    postings.dedup();
    let mut shared: FxHashMap<(u64, u64), u32> = FxHashMap::default();
    for run in postings.chunk_by(|x, y| x.0 == y.0) {
        if run.len() < 2 || run.len() > NUMBER_BUCKET {
            continue;
        }
        let ids: Vec<u64> = run.iter().map(|p| p.1).filter(|&d| banded(d)).collect();
        for (i, &x) in ids.iter().enumerate() {
            for &y in &ids[i + 1..] {
                *shared.entry((x, y)).or_default() += 1;
            }
        }
    }
    let mut out: Vec<Candidate> = shared
        .into_iter()
        .filter(|&(_, n)| n >= NUMBER_MATCHES)
        .map(|((a, b), _)| Candidate {
            a,
            b,
            bands: 0,
            evidence: FULL_EVIDENCE,
        })
        .collect();
    out.sort_unstable();
    out
}

/// The numbers documents `a` and `b` share, each with how many documents hold it
/// (`postings` as [`number_pairs`] takes them, sorted and deduplicated), sorted by hash.
pub fn shared_numbers(postings: &[(u64, u64)], a: u64, b: u64) -> Vec<(u64, usize)> {
    let mut out = Vec::new();
    for run in postings.chunk_by(|x, y| x.0 == y.0) {
        let holds = |d: u64| run.binary_search_by_key(&d, |p| p.1).is_ok();
        if holds(a) && holds(b) {
            out.push((run[0].0, run.len()));
        }
    }
    out
}

/// Whether the shared numbers of [`shared_numbers`] make two banded documents a candidate,
/// as [`number_pairs`] decides.
pub fn numbers_propose(shared: &[(u64, usize)]) -> bool {
    let counted = shared.iter().filter(|&&(_, n)| n <= NUMBER_BUCKET).count();
    counted >= NUMBER_MATCHES as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_sharing_two_rare_numbers_are_candidates() {
        // Numbers 1 and 2 are held by documents 10 and 20 (and 2 by a copy, 30, not banded);
        // 3 by seven documents: too many to tell anything.
        let mut postings = vec![(1, 20), (1, 10), (2, 10), (2, 20), (2, 30), (1, 10)];
        postings.extend((0..7).map(|d| (3, 40 + d)));
        postings.extend([(3, 10), (4, 10), (4, 41)]);
        let banded = |d: u64| d != 30;
        assert_eq!(
            number_pairs(postings.clone(), banded),
            vec![Candidate {
                a: 10,
                b: 20,
                bands: 0,
                evidence: FULL_EVIDENCE,
            }]
        );
        // One shared number is not enough; a bucket of seven pairs nobody.
        postings.retain(|p| p.0 != 1);
        assert!(number_pairs(postings, banded).is_empty());
        // A number in six documents still pairs them.
        let six: Vec<(u64, u64)> = (0..6).flat_map(|d| [(5, d), (6, d)]).collect();
        assert_eq!(number_pairs(six, |_| true).len(), 15);
    }
}
