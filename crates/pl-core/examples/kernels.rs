//! The hot kernels timed on a real corpus, for the benchmark driver (scripts/bench/run.sh):
//! the physical limit (tokenize and hash every word 3-gram once), the classic and the
//! one-permutation MinHash on the same shingle sets, with 1 and 2 threads, and the classic
//! kernel fed the shingle strings (what rensa's `RMinHash.update` is given).
//!
//!     cargo run --release -p pl-core --example kernels -- NORM_NDJSON >> results.tsv
//!
//! Prints one TSV line per kernel: label, threads, best seconds of 3, documents, text bytes.

use std::time::Instant;

use pl_core::minhash::{MinHasher, Scheme, DEFAULT_SEED};
use pl_core::shingle::shingles;
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

const NGRAM: usize = 3;
const PERMS: usize = 256;
const MIN_WORDS: u64 = 20;

fn best_of_3(mut f: impl FnMut() -> u64) -> f64 {
    let mut best = f64::INFINITY;
    let mut check = 0u64;
    for _ in 0..3 {
        let t = Instant::now();
        check = check.wrapping_add(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    // Printed to stderr so the work cannot be optimized away.
    eprintln!("kernels: checksum {check:x}");
    best
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: kernels NORM_NDJSON");
    let norms = read_norms(&path);
    let report = Report {
        docs: norms.len(),
        bytes: norms.iter().map(String::len).sum(),
    };

    let sets: Vec<Vec<u64>> = norms
        .iter()
        .map(|n| {
            let mut out = Vec::new();
            shingles(n, NGRAM, &mut out);
            out
        })
        .collect();
    let t = best_of_3(|| {
        let mut out = Vec::new();
        norms.iter().fold(0, |acc, n| {
            shingles(n, NGRAM, &mut out);
            acc ^ out.len() as u64
        })
    });
    report.line("tokenize+hash word 3-grams (physical limit)", 1, t);

    for (scheme, name) in [(Scheme::Classic, "classic"), (Scheme::Oph, "oph")] {
        let h = MinHasher::with_scheme(PERMS, DEFAULT_SEED, scheme);
        for threads in [1, 2] {
            let t = pool(threads).install(|| best_of_3(|| signatures_in_parallel(&h, &sets)));
            report.line(
                &format!("MinHash {name} K=256 from shingle hashes"),
                threads,
                t,
            );
        }
    }

    // What rensa's RMinHash.update is given: the shingle strings. Hash each, then the kernel.
    let strings = shingle_strings(&norms);
    for (scheme, name) in [(Scheme::Classic, "classic"), (Scheme::Oph, "oph")] {
        let h = MinHasher::with_scheme(PERMS, DEFAULT_SEED, scheme);
        let t = best_of_3(|| {
            let (mut sig, mut hs) = (vec![0u32; PERMS], Vec::new());
            strings.iter().fold(0, |acc, s| {
                hs.clear();
                hs.extend(s.iter().map(|x| xxh3_64(x.as_bytes())));
                h.signature(&hs, &mut sig);
                acc ^ u64::from(sig[0])
            })
        });
        report.line(&format!("MinHash {name} K=256 from shingle strings"), 1, t);
    }
}

/// The norm texts of the documents of at least [`MIN_WORDS`] words in the norm NDJSON.
fn read_norms(path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("readable norm NDJSON");
    text.lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            (v["words"].as_u64()? >= MIN_WORDS).then(|| v["norm"].as_str().map(String::from))?
        })
        .collect()
}

/// The corpus timed, named on every TSV line.
struct Report {
    docs: usize,
    bytes: usize,
}

impl Report {
    /// Prints one kernel's TSV line: label, threads, best seconds, documents, text bytes.
    fn line(&self, label: &str, threads: usize, s: f64) {
        println!("{label}\t{threads}\t{s:.6}\t{}\t{}", self.docs, self.bytes);
    }
}

/// A rayon pool of `n` threads.
fn pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("thread pool")
}

/// The signatures of every shingle set, on the current pool's threads; their first minima
/// xor-ed, as a checksum.
fn signatures_in_parallel(h: &MinHasher, sets: &[Vec<u64>]) -> u64 {
    sets.par_iter()
        .map_init(
            || vec![0u32; PERMS],
            |sig, s| {
                h.signature(s, sig);
                u64::from(sig[0])
            },
        )
        .reduce(|| 0, |a, b| a ^ b)
}

/// Each text's word 3-grams as strings, sorted and unique: what rensa's `RMinHash.update` is
/// given.
fn shingle_strings(norms: &[String]) -> Vec<Vec<String>> {
    norms
        .iter()
        .map(|n| {
            let w: Vec<&str> = n.split(' ').collect();
            let mut s: Vec<String> = w.windows(NGRAM).map(|g| g.join(" ")).collect();
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect()
}
