//! criterion micro-benchmarks of the hot kernels on one synthetic ~300-word document (and a
//! rescan of it): normalize, word 3-gram shingles, both MinHash schemes, LSH band keys, the
//! fuzzy ratio and the scorer (verifier included) on a rescan and on a template sibling. `cargo bench -p pl-core --bench kernels`.
//! Cross-tool kernel ratios (against rensa) are in BENCH.md, from examples/kernels.rs.

use criterion::{criterion_group, criterion_main, Criterion};
use pl_core::evidence::Profile;
use pl_core::lsh::Banding;
use pl_core::minhash::{MinHasher, Scheme, DEFAULT_SEED};
use pl_core::normalize::normalize;
use pl_core::score::{fuzzy_ratio, fuzzy_sample};
use pl_core::scorer::{Config, Doc, Scorer, Similarity};
use pl_core::shingle::shingles;
use pl_core::verify::Vocab;
use std::hint::black_box;

/// A deterministic letter-like text of `words` words from a 2,000-word vocabulary.
fn text(words: usize, seed: u64) -> String {
    let mut st = seed;
    (0..words)
        .map(|_| {
            let r = pl_core::minhash::splitmix64(&mut st);
            format!("Wort{}äx", r % 2000)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn kernels(c: &mut Criterion) {
    let raw = text(300, 1);
    let mut norm = String::new();
    normalize(&raw, &mut norm);
    // A rescan: two words misread.
    let rescan = norm.replacen("wort1", "vvort1", 2);
    let mut set = Vec::new();
    shingles(&norm, 3, &mut set);

    c.bench_function("normalize 300 words", |b| {
        let mut out = String::new();
        b.iter(|| normalize(black_box(&raw), &mut out))
    });
    c.bench_function("shingles word 3-grams, 300 words", |b| {
        let mut out = Vec::new();
        b.iter(|| shingles(black_box(&norm), 3, &mut out))
    });
    bench_minhash_and_bands(c, &set);
    let (x, y) = (
        fuzzy_sample(&norm, 10_000, false).into_owned(),
        fuzzy_sample(&rescan, 10_000, false).into_owned(),
    );
    c.bench_function(&format!("fuzzy ratio, {} chars", x.len()), |b| {
        b.iter(|| fuzzy_ratio(black_box(&x), black_box(&y)))
    });
    bench_scorer(c, norm, rescan);
}

/// Both MinHash schemes on the shingle set `set`, and the LSH band keys of its classic
/// signature.
fn bench_minhash_and_bands(c: &mut Criterion, set: &[u64]) {
    for (scheme, name) in [(Scheme::Classic, "classic"), (Scheme::Oph, "oph")] {
        let h = MinHasher::with_scheme(256, DEFAULT_SEED, scheme);
        let mut sig = vec![0u32; 256];
        c.bench_function(
            &format!("minhash {name} K=256, {} shingles", set.len()),
            |b| b.iter(|| h.signature(black_box(set), &mut sig)),
        );
    }
    let h = MinHasher::new(256, DEFAULT_SEED);
    let mut sig = vec![0u32; 256];
    h.signature(set, &mut sig);
    let banding = Banding::new(256, 32).expect("256 = 32 x 8");
    c.bench_function("lsh 32 band keys", |b| {
        b.iter(|| (0..32).fold(0u64, |acc, band| acc ^ banding.key(black_box(&sig), band)))
    });
}

/// The scorer, verifier included, on `norm` against its rescan and against a template
/// sibling made of it.
fn bench_scorer(c: &mut Criterion, norm: String, rescan: String) {
    // A sibling: the same text with a dozen numbers changed.
    let sibling = (0..12).fold(norm.clone(), |t, i| {
        t.replacen(&format!("wort{}", 100 + i), &format!("{}", 4711 + i), 1)
    });
    let mut vocab = Vocab::default();
    let profiles: Vec<Profile> = [&norm, &rescan, &sibling]
        .iter()
        .map(|t| Profile::counted(t, &mut vocab))
        .collect();
    let config = Config {
        threshold: 0.5,
        ..Config::default()
    };
    let scorer = Scorer {
        config: &config,
        doc_counts: vocab.doc_counts(),
        explain: false,
    };
    let doc = |t: &'static str, p| Doc {
        text: t,
        sample: t,
        sample_chars: t.chars().count(),
        tokens: &[],
        profile: p,
        written: Box::leak(Box::new(pl_core::written::Written::default())),
        copies: 1,
    };
    let (norm, rescan, sibling): (&'static str, &'static str, &'static str) = (
        Box::leak(norm.into_boxed_str()),
        Box::leak(rescan.into_boxed_str()),
        Box::leak(sibling.into_boxed_str()),
    );
    let sim = Similarity {
        jaccard: 0.9,
        containment: 0.9,
        identical: false,
    };
    for (name, other, p) in [
        ("rescan", rescan, &profiles[1]),
        ("sibling", sibling, &profiles[2]),
    ] {
        c.bench_function(&format!("scorer, 300-word {name}"), |b| {
            b.iter(|| {
                scorer.score(
                    black_box(sim),
                    Some((doc(norm, &profiles[0]), doc(other, p))),
                    true,
                )
            })
        });
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
