use super::*;

#[test]
fn renumbered_runs_are_one_run() {
    let p = |a, b, score| ScoredPair {
        a,
        b,
        score,
        similarity: score,
        jaccard: score,
        fuzzy: score,
        copy: false,
    };
    let pairs = [
        p(1, 2, 0.9),
        p(3, 4, 0.95),
        p(5, 6, 0.9),
        p(2, 7, 0.8),
        p(8, 9, 0.9000001),
    ];
    let meta = FxHashMap::default();
    let records = |ps: &[ScoredPair]| -> Vec<GroupRecord> {
        let g = cluster_with(ps, &[], &meta, Linkage::Average);
        g.iter()
            .enumerate()
            .map(|(i, g)| g.to_record(i + 1))
            .collect()
    };
    let whole = records(&pairs);
    let mut parts = records(&[pairs[0], pairs[3], pairs[4]]);
    parts.extend(records(&[pairs[1], pairs[2]]));
    assert_ne!(parts, whole);
    assert_eq!(renumber(parts.clone()).unwrap(), whole);
    parts.push(whole[0].clone());
    assert!(renumber(parts)
        .unwrap_err()
        .to_string()
        .contains("in two groups"));
}

fn obj(text: &str) -> Obj {
    crate::fields::parse_object(text).unwrap()
}

fn doc(text: &str) -> DocRecord {
    DocRecord::from_obj(obj(text)).unwrap()
}

#[test]
fn the_primary_rule_reads_added_else_created_and_counts_filled_metadata() {
    let m = DocMeta::from_record(&doc(
        r#"{"id":1,"created":"2024-01-02T00:00:00Z","title":"a","tags":[],"correspondent":null,"archive_serial_number":7}"#,
    ));
    assert_eq!(
        m.richness, 2,
        "title and ASN; empty tags and null do not count"
    );
    assert_eq!(m.added, parse_timestamp("2024-01-02T00:00:00Z"));
    let m = DocMeta::from_record(&doc(
        r#"{"id":2,"added":"2023-05-01T00:00:00Z","created":"2024-01-02T00:00:00Z"}"#,
    ));
    assert_eq!(m.added, parse_timestamp("2023-05-01T00:00:00Z"));
    assert_eq!(
        DocMeta::from_record(&doc(r#"{"id":3}"#)),
        DocMeta::default()
    );
}

#[test]
fn scored_pairs_are_read_and_groups_written_as_documented() {
    let sp = ScoredPair::from_obj(&obj(r#"{"a":3,"b":9,"score":0.9,"copy":true}"#)).unwrap();
    assert!(sp.copy && sp.jaccard.is_nan());
    let e = ScoredPair::from_obj(&obj(r#"{"a":9,"b":3,"score":0.9}"#)).unwrap_err();
    assert_eq!(e.to_string(), "pair (9, 3) is not ordered a < b");
    let g = Group {
        pair: sp,
        primary: 3,
        members: vec![3, 9],
    };
    assert_eq!(
        serde_json::to_string(&g.to_record(4)).unwrap(),
        r#"{"group":4,"confidence":0.9,"jaccard":null,"fuzzy":null,"pair":[3,9],"primary":3,"members":[3,9]}"#
    );
}

fn p(a: u64, b: u64, score: f64) -> ScoredPair {
    ScoredPair {
        a,
        b,
        score,
        similarity: score,
        jaccard: score,
        fuzzy: score,
        copy: false,
    }
}

/// Every pair of `ids` at `score`, in order: (1, 2), (1, 3), ..., (2, 3), ...
fn clique(ids: &[u64], score: f64) -> Vec<ScoredPair> {
    let mut out = Vec::new();
    for (i, &a) in ids.iter().enumerate() {
        out.extend(ids[i + 1..].iter().map(|&b| p(a, b, score)));
    }
    out
}

fn copy(a: u64, b: u64) -> ScoredPair {
    ScoredPair {
        copy: true,
        ..p(a, b, 1.0)
    }
}

#[test]
fn connected_pairs_form_one_group() {
    let g = cluster(
        &[p(1, 2, 0.8), p(2, 3, 0.9), p(7, 8, 0.95)],
        &FxHashMap::default(),
    );
    assert_eq!(g.len(), 2);
    assert_eq!(g[0].members, vec![7, 8]);
    assert_eq!(g[1].members, vec![1, 2, 3]);
    assert_eq!((g[1].pair.a, g[1].pair.b), (2, 3));
    assert_eq!(g[1].primary, 1);
}

#[test]
fn pair_order_does_not_change_groups() {
    let pairs = [p(5, 9, 0.8), p(1, 5, 0.8), p(2, 3, 0.8)];
    let mut rev = pairs;
    rev.reverse();
    let m = FxHashMap::default();
    assert_eq!(cluster(&pairs, &m), cluster(&rev, &m));
}

#[test]
fn average_linkage_stops_chains_but_keeps_cliques() {
    let m = FxHashMap::default();
    // A chain 1-2-3-4-5: single linkage makes one group of five.
    let chain = [p(1, 2, 0.9), p(2, 3, 0.89), p(3, 4, 0.88), p(4, 5, 0.87)];
    assert_eq!(cluster_with(&chain, &[], &m, Linkage::Single).len(), 1);
    let g = cluster_with(&chain, &[], &m, Linkage::Average);
    assert!(g.iter().all(|g| g.members.len() <= 3), "{g:?}");
    // A pair refused by the linkage leaves no singleton group behind.
    let star = [p(1, 2, 0.9), p(1, 3, 0.9), p(2, 3, 0.9), p(3, 9, 0.8)];
    let g = cluster_with(&star, &[], &m, Linkage::Average);
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].members, vec![1, 2, 3]);
    // A clique of four stays one group.
    let mut clique = clique(&[1, 2, 3, 4], 0.9);
    *clique.last_mut().expect("six pairs") = p(3, 4, 0.8);
    let g = cluster_with(&clique, &[], &m, Linkage::Average);
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].members, vec![1, 2, 3, 4]);
}

fn members(g: &[Group]) -> Vec<Vec<u64>> {
    let mut m: Vec<Vec<u64>> = g.iter().map(|g| g.members.clone()).collect();
    m.sort();
    m
}

#[test]
fn a_star_of_copies_is_one_unit() {
    let m = FxHashMap::default();
    // Five copies given as a star around 1: no pair between the other four was scored.
    let star = [copy(1, 2), copy(1, 3), copy(1, 4), copy(1, 5)];
    let g = cluster_with(&star, &[], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![1, 2, 3, 4, 5]]);
    assert_eq!((g[0].pair.a, g[0].pair.b, g[0].pair.score), (1, 2, 1.0));
    // A document near the representative is near every copy: 1–6 stands for 5 pairs.
    let near = [copy(1, 2), copy(1, 3), p(1, 6, 0.9)];
    let g = cluster_with(&near, &[], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![1, 2, 3, 6]]);
    // Two copy sets linked through their representatives: 2·3 document pairs of 6.
    let two = [copy(1, 2), copy(4, 5), copy(4, 7), p(1, 4, 0.9)];
    let g = cluster_with(&two, &[], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![1, 2, 4, 5, 7]]);
}

/// A page-removed copy (3) is contained in its original (1) and in a sibling (2): both
/// pairs pass, and 1–2 alone is missing, so average linkage joins all three (2 of 2 links).
/// Held apart, 1 and 2 stay in two groups; the copy joins the stronger pair.
#[test]
fn documents_held_apart_never_share_a_group() {
    let m = FxHashMap::default();
    let pairs = [p(1, 3, 0.92), p(2, 3, 0.90)];
    let g = cluster_with(&pairs, &[], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![1, 2, 3]]);
    let g = cluster_with(&pairs, &[(1, 2)], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![1, 3]]);
    // Held apart through a copy of one of them: 4 is a copy of 2, and 1–4 is apart.
    let pairs = [copy(2, 4), p(1, 3, 0.88), p(2, 3, 0.90)];
    let g = cluster_with(&pairs, &[(1, 4)], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![2, 3, 4]]);
    // A pair apart between documents of no kept pair changes nothing; single linkage
    // ignores pairs apart.
    let pairs = [p(1, 3, 0.92), p(2, 3, 0.90)];
    let g = cluster_with(&pairs, &[(7, 9)], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![1, 2, 3]]);
    let g = cluster_with(&pairs, &[(1, 2)], &m, Linkage::Single);
    assert_eq!(members(&g), vec![vec![1, 2, 3]]);
}

/// A copy that passes with two documents held apart at scores within the margin does not
/// tell which it copies: it joins neither, and each keeps its own group.
#[test]
fn a_copy_torn_between_documents_held_apart_joins_neither() {
    let m = FxHashMap::default();
    let pairs = [p(1, 3, 0.905), p(2, 3, 0.90), p(1, 4, 0.95), p(2, 5, 0.95)];
    let g = cluster_with(&pairs, &[(1, 2)], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![1, 4], vec![2, 5]]);
    // Beyond the margin the stronger pair decides, as before.
    let clear = [p(1, 3, 0.90 + 2.0 * TORN_MARGIN), p(2, 3, 0.90)];
    let g = cluster_with(&clear, &[(1, 2)], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![1, 3]]);
    // Held apart through a copy of one of them (6 is a copy of 2): torn all the same.
    let via_copy = [copy(2, 6), p(1, 3, 0.905), p(2, 3, 0.90)];
    let g = cluster_with(&via_copy, &[(1, 6)], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![2, 6]]);
    // Not held apart: all three, as average linkage joins them.
    let g = cluster_with(&pairs[..2], &[], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![1, 2, 3]]);
}

/// `--why`'s account agrees with the groups: a torn copy is named and in no group, a kept pair
/// in one group has its score and one group number, a pair held apart says so.
#[test]
fn grouping_why_tells_the_groups_apart() {
    let pairs = [p(1, 3, 0.905), p(2, 3, 0.90), p(1, 4, 0.95), p(2, 5, 0.95)];
    let why = |a, b| grouping_why(&pairs, &[(1, 2)], Linkage::Average, (a, b));
    let torn = why(3, 1);
    assert_eq!((torn.a, torn.b, torn.kept), (3, 1, Some(0.905)));
    assert_eq!(
        (torn.torn, torn.group_a, torn.group_b),
        (vec![3], None, Some(1))
    );
    let between = |passed, held_apart| {
        Some(Between {
            pairs: 2,
            passed,
            held_apart,
        })
    };
    assert_eq!(torn.between, between(1, 0), "3 alone, 1 with 4");
    let together = why(2, 5);
    assert_eq!((together.group_a, together.group_b), (Some(2), Some(2)));
    assert!(together.torn.is_empty() && !together.held_apart && together.between.is_none());
    let held = why(1, 2);
    assert!(held.held_apart && held.kept.is_none());
    let four = Between {
        pairs: 4,
        passed: 0,
        held_apart: 1,
    };
    assert_eq!(held.between, Some(four), "[1, 4] against [2, 5]");
    // Single linkage has no torn documents: 3 joins everything.
    let single = grouping_why(&pairs, &[(1, 2)], Linkage::Single, (3, 1));
    assert_eq!(
        (single.torn.len(), single.group_a, single.group_b),
        (0, Some(1), Some(1))
    );
}

#[test]
fn only_pairs_apart_inside_a_component_are_held() {
    let kept = [(1, 2), (2, 3), (5, 6)];
    let apart = [(1, 3), (3, 5), (7, 8), (1, 9), (1, 3), (5, 6)];
    assert_eq!(apart_in_components(&kept, &apart), vec![(1, 3), (5, 6)]);
}

#[test]
fn scores_lines_are_kept_pairs_or_pairs_held_apart() {
    let line = |t: &str| ScoresLine::from_obj(&obj(t));
    assert_eq!(
        line(r#"{"a":1,"b":2,"apart":true}"#),
        Ok(ScoresLine::Apart(1, 2))
    );
    assert!(matches!(
        line(r#"{"a":1,"b":2,"score":0.9}"#),
        Ok(ScoresLine::Kept(p)) if p.score == 0.9
    ));
    for bad in [
        r#"{"a":2,"b":1,"apart":true}"#,
        r#"{"a":1,"b":2,"apart":false}"#,
        r#"{"a":1,"apart":true}"#,
    ] {
        assert!(line(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_unit_weighs_its_size_on_both_sides_of_a_merge() {
    let m = FxHashMap::default();
    let clique = clique(&[6, 7, 8, 9], 0.95);
    let units = [copy(1, 2), copy(1, 3)];
    // 1–6 stands for 3 of the 3·4 pairs between {1,2,3} and {6,7,8,9}: not half.
    let mut pairs: Vec<ScoredPair> = [&clique[..], &units[..], &[p(1, 6, 0.9)]].concat();
    let g = cluster_with(&pairs, &[], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![1, 2, 3], vec![6, 7, 8, 9]]);
    // 1–6 and 1–7: 6 of 12, half.
    pairs.push(p(1, 7, 0.85));
    let g = cluster_with(&pairs, &[], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![1, 2, 3, 6, 7, 8, 9]]);
    // The same pair given twice, or through another copy, still stands for 3 pairs.
    let pairs: Vec<ScoredPair> = [
        &clique[..],
        &units[..],
        &[p(1, 6, 0.9), p(1, 6, 0.9), p(2, 6, 0.9), p(3, 6, 0.9)],
    ]
    .concat();
    let g = cluster_with(&pairs, &[], &m, Linkage::Average);
    assert_eq!(members(&g), vec![vec![1, 2, 3], vec![6, 7, 8, 9]]);
}

/// Units of copies with random ids and sizes, and random links between units, each with
/// its own score under 1: the pairs a run without collapsing scores (every copy against
/// every copy and every linked document) and the star list a collapsing run scores.
fn full_and_star(
    sizes: &[usize],
    perm: &[u64],
    links: &[(usize, usize, f64)],
) -> (Vec<ScoredPair>, Vec<ScoredPair>) {
    let mut next = perm.iter().copied();
    let units: Vec<Vec<u64>> = sizes
        .iter()
        .map(|&k| {
            let mut u: Vec<u64> = next.by_ref().take(k).collect();
            u.sort_unstable();
            u
        })
        .collect();
    let (mut full, mut star) = (Vec::new(), Vec::new());
    for u in &units {
        for (i, &x) in u.iter().enumerate() {
            for &y in &u[i + 1..] {
                full.push(p(x, y, 1.0));
            }
            if i > 0 {
                star.push(copy(u[0], x));
            }
        }
    }
    for &(s, t, score) in links {
        let (u, v) = (&units[s], &units[t]);
        for &x in u {
            for &y in v {
                full.push(p(x.min(y), x.max(y), score));
            }
        }
        star.push(p(u[0].min(v[0]), u[0].max(v[0]), score));
    }
    (full, star)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    #[test]
    fn star_pairs_give_the_groups_of_all_pairs(
        sizes in proptest::collection::vec(1usize..5, 2..9),
        seed in proptest::prelude::any::<u64>(),
        density in 0.1f64..0.9,
    ) {
        let n: usize = sizes.iter().sum();
        let mut st = seed;
        let mut perm: Vec<u64> = (1..=n as u64).collect();
        for i in (1..n).rev() {
            let j = (crate::minhash::splitmix64(&mut st) % (i as u64 + 1)) as usize;
            perm.swap(i, j);
        }
        let mut links = Vec::new();
        for s in 0..sizes.len() {
            for t in s + 1..sizes.len() {
                let r = crate::minhash::splitmix64(&mut st);
                if (r >> 11) as f64 / (1u64 << 53) as f64 <= density {
                    // Distinct scores under 1, in random order.
                    links.push((s, t, 0.5 + (r % 1000) as f64 * 1e-4 + links.len() as f64 * 1e-7));
                }
            }
        }
        let (full, star) = full_and_star(&sizes, &perm, &links);
        let m = FxHashMap::default();
        for linkage in [Linkage::Average, Linkage::Single] {
            let key = |g: Vec<Group>| -> Vec<(Vec<u64>, u64, u64, u64, u64)> {
                g.into_iter()
                    .map(|g| (g.members, g.primary, g.pair.a, g.pair.b, g.pair.score.to_bits()))
                    .collect()
            };
            proptest::prop_assert_eq!(
                key(cluster_with(&full, &[], &m, linkage)),
                key(cluster_with(&star, &[], &m, linkage)),
                "{:?} sizes {:?} ids {:?} links {:?}", linkage, sizes, perm, links
            );
        }
    }
}

#[test]
fn primary_is_earliest_added_then_richest() {
    let mut meta = FxHashMap::default();
    meta.insert(
        1,
        DocMeta {
            added: Some(200),
            richness: 5,
        },
    );
    meta.insert(
        2,
        DocMeta {
            added: Some(100),
            richness: 0,
        },
    );
    meta.insert(
        3,
        DocMeta {
            added: Some(100),
            richness: 3,
        },
    );
    assert_eq!(choose_primary(&[1, 2, 3], &meta), 3);
    assert_eq!(
        choose_primary(&[1, 4], &meta),
        1,
        "a dated document beats an undated one"
    );
}
