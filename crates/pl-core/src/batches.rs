//! Batches of candidate pairs whose documents fit a memory budget, so that pl-score holds the
//! texts of one batch at a time and its memory does not grow with the corpus.
//!
//! Documents are numbered densely (`0..costs.len()`); a pair names two of them. Pairs are
//! grouped by connected component of the candidate graph (a template family, a document and
//! its rescans), and whole components are packed into batches while their documents' costs
//! fit the budget, so that each document is loaded once. A component too large for the
//! budget has its pairs put in an order, and they fill batches in that order with the
//! documents they touch until the budget is reached. Memory stays bounded, at the price of
//! loading a document once per batch it is touched in. Three orders are planned and the one
//! whose batches load the least (by cost) is kept; two put the documents breadth first over
//! the pairs (neighbours end up near one another): cut in chunks of a quarter of the budget,
//! taken chunk pair by chunk pair (a chunk's pairs among themselves load it once, and a pair
//! reaching a distant chunk loads only its two documents, not the chunk); or each pair at its
//! later document, so that the batches sweep the component (on the real texts at 256 MB,
//! 18 % less read). The third sweeps the component family by family, the families found by
//! label propagation (at a million generated documents, one component of 846,000: 22 % less
//! read than the better breadth-first order).

use crate::cluster::UnionFind;

/// Documents to hold at once and the pairs to score with them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Batch {
    /// Dense document numbers, ascending.
    pub docs: Vec<u32>,
    /// Pair numbers (indices into the input), ascending: input order.
    pub pairs: Vec<u32>,
}

/// Plans batches for `pairs` (dense document numbers) whose documents cost `costs[doc]` each,
/// holding at most `budget` at once — or the two documents of one pair, when they alone cost more.
/// Every pair is in exactly one batch, and the plan depends only on its inputs.
pub fn plan(pairs: &[(u32, u32)], costs: &[u64], budget: u64) -> Vec<Batch> {
    let n = costs.len();
    let (comps, comp_of) = components(pairs, n);
    let cost = |docs: &[u32]| docs.iter().map(|&d| costs[d as usize]).sum::<u64>();

    let mut batches: Vec<Batch> = Vec::new();
    // A pair of a packed component goes to its component's batch; a pair of a cut one is
    // placed after them, in the order that loads the fewest texts.
    let mut batch_of_comp = vec![u32::MAX; comps.len()];
    let mut open: Option<(usize, u64)> = None;
    let mut cut_comps = Vec::new();
    for (c, docs) in comps.iter().enumerate() {
        let c_cost = cost(docs);
        if c_cost > budget {
            cut_comps.push(c);
            continue;
        }
        let fits = open.is_some_and(|(_, used)| used + c_cost <= budget);
        if !fits {
            open = Some((batches.len(), 0));
            batches.push(Batch::default());
        }
        let (b, used) = open.as_mut().expect("a batch is open");
        batches[*b].docs.extend_from_slice(docs);
        *used += c_cost;
        batch_of_comp[c] = *b as u32;
    }
    let mut cut: Vec<u32> = Vec::new();
    for (i, &(a, _)) in pairs.iter().enumerate() {
        match batch_of_comp[comp_of[a as usize] as usize] {
            u32::MAX => cut.push(i as u32),
            b => batches[b as usize].pairs.push(i as u32),
        }
    }
    if !cut.is_empty() {
        let cut_docs: Vec<&[u32]> = cut_comps.iter().map(|&c| &comps[c][..]).collect();
        let adj = Adjacency::new(pairs, n);
        let loaded = |bs: &[Batch]| bs.iter().map(|b| cost(&b.docs)).sum::<u64>();
        let best = [Order::ChunkPairs, Order::Breadth, Order::Families]
            .into_iter()
            .map(|order| {
                let keys = order.keys(&cut_docs, &adj, costs, budget);
                let key = |i: u32| {
                    let (a, b) = pairs[i as usize];
                    let (x, y) = (keys[a as usize], keys[b as usize]);
                    match order {
                        Order::ChunkPairs => (x.min(y), x.max(y), i),
                        Order::Breadth | Order::Families => (x.max(y), x.min(y), i),
                    }
                };
                let mut keyed: Vec<(u32, u32, u32)> = cut.iter().map(|&i| key(i)).collect();
                keyed.sort_unstable();
                let mut bs = Vec::new();
                fill(&mut bs, &keyed, pairs, costs, budget);
                bs
            })
            .min_by_key(|bs| loaded(bs))
            .expect("two orders");
        batches.extend(best);
    }
    for b in &mut batches {
        b.docs.sort_unstable();
        b.pairs.sort_unstable();
    }
    batches
}

/// How the pairs of a component over the budget are ordered before they fill batches: each
/// order gives its documents keys, and each pair is placed by its documents' keys.
#[derive(Debug, Clone, Copy)]
enum Order {
    /// Breadth first, cut in chunks of a quarter of the budget; pairs by chunk pair (the
    /// lower chunk first): a chunk's pairs among themselves load it once.
    ChunkPairs,
    /// Breadth first; a pair by its later document: batches sweep the component.
    Breadth,
    /// By family ([`Adjacency::families`]); a pair by its later document: the batches sweep
    /// the families, and a template's siblings, candidates of one another across the corpus,
    /// are read together.
    Families,
}

impl Order {
    /// Each document's key (`u32::MAX` outside `comps`), numbered across the components in
    /// turn.
    fn keys(self, comps: &[&[u32]], adj: &Adjacency, costs: &[u64], budget: u64) -> Vec<u32> {
        let mut keys = vec![u32::MAX; costs.len()];
        let mut next = 0u32;
        for docs in comps {
            let order = match self {
                Order::Families => adj.families(docs),
                _ => adj.breadth_first(docs[0], docs.len()),
            };
            if let Order::ChunkPairs = self {
                for ch in chunk(&order, costs, budget / 4) {
                    for &d in &ch {
                        keys[d as usize] = next;
                    }
                    next += 1;
                }
            } else {
                for d in order {
                    keys[d as usize] = next;
                    next += 1;
                }
            }
        }
        keys
    }
}

/// Adds batches for `cut_pairs` (chunk pair, then pair number), in order: each batch takes
/// pairs while the documents they touch fit the budget (a first pair always fits).
fn fill(
    batches: &mut Vec<Batch>,
    cut_pairs: &[(u32, u32, u32)],
    pairs: &[(u32, u32)],
    costs: &[u64],
    budget: u64,
) {
    // The batch each document was last put in.
    let mut held_by = vec![u32::MAX; costs.len()];
    let mut used = 0u64;
    let mut current = u32::MAX;
    for &(_, _, i) in cut_pairs {
        let (a, b) = pairs[i as usize];
        let more: u64 = [a, b]
            .iter()
            .filter(|&&d| held_by[d as usize] != current)
            .map(|&d| costs[d as usize])
            .sum();
        if current == u32::MAX || used + more > budget {
            current = batches.len() as u32;
            batches.push(Batch::default());
            used = 0;
        }
        let batch = &mut batches[current as usize];
        for d in [a, b] {
            if held_by[d as usize] != current {
                held_by[d as usize] = current;
                batch.docs.push(d);
                used += costs[d as usize];
            }
        }
        batch.pairs.push(i);
    }
}

/// The candidate graph's neighbours of each document, as one array.
struct Adjacency {
    start: Vec<u32>,
    next: Vec<u32>,
}

impl Adjacency {
    fn new(pairs: &[(u32, u32)], n: usize) -> Adjacency {
        let mut start = vec![0u32; n + 1];
        for &(a, b) in pairs {
            start[a as usize + 1] += 1;
            start[b as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut next = vec![0u32; 2 * pairs.len()];
        for &(a, b) in pairs {
            for (x, y) in [(a, b), (b, a)] {
                next[fill[x as usize] as usize] = y;
                fill[x as usize] += 1;
            }
        }
        Adjacency { start, next }
    }

    /// The neighbours of document `d`.
    fn of(&self, d: u32) -> &[u32] {
        &self.next[self.start[d as usize] as usize..self.start[d as usize + 1] as usize]
    }

    /// The documents of a component by family: a few rounds of label propagation (each
    /// document takes the label most of its neighbours have, ties to the lowest), then by
    /// label.
    fn families(&self, docs: &[u32]) -> Vec<u32> {
        let mut label = vec![u32::MAX; self.start.len() - 1];
        for &d in docs {
            label[d as usize] = d;
        }
        let mut seen: Vec<u32> = Vec::new();
        for _ in 0..3 {
            for &d in docs {
                seen.clear();
                seen.extend(self.of(d).iter().map(|&e| label[e as usize]));
                seen.sort_unstable();
                let (mut best, mut best_n, mut i) = (label[d as usize], 0usize, 0);
                while i < seen.len() {
                    let j = seen[i..].iter().take_while(|&&l| l == seen[i]).count();
                    if j > best_n {
                        (best, best_n) = (seen[i], j);
                    }
                    i += j;
                }
                label[d as usize] = best;
            }
        }
        let mut order = docs.to_vec();
        order.sort_unstable_by_key(|&d| (label[d as usize], d));
        order
    }

    /// The `size` documents of `from`'s component, breadth first from it.
    fn breadth_first(&self, from: u32, size: usize) -> Vec<u32> {
        // One flag a document: a component over the budget is most of a large corpus.
        let mut seen = vec![false; self.start.len() - 1];
        let mut order = Vec::with_capacity(size);
        seen[from as usize] = true;
        order.push(from);
        let mut at = 0;
        while at < order.len() {
            let d = order[at];
            at += 1;
            for &e in self.of(d) {
                if !std::mem::replace(&mut seen[e as usize], true) {
                    order.push(e);
                }
            }
        }
        order
    }
}

/// The components of the pairs' graph over `n` documents, in the order of their first pair,
/// each with its documents ascending; and each document's component (`u32::MAX`: in none).
fn components(pairs: &[(u32, u32)], n: usize) -> (Vec<Vec<u32>>, Vec<u32>) {
    let mut uf = UnionFind::new(n);
    for &(a, b) in pairs {
        uf.union(a, b);
    }
    let mut comp_of_root = vec![u32::MAX; n];
    let mut comps: Vec<Vec<u32>> = Vec::new();
    for &(a, b) in pairs {
        for d in [a, b] {
            let r = uf.find(d) as usize;
            if comp_of_root[r] == u32::MAX {
                comp_of_root[r] = comps.len() as u32;
                comps.push(Vec::new());
            }
        }
    }
    let mut comp_of = vec![u32::MAX; n];
    for d in 0..n as u32 {
        let r = comp_of_root[uf.find(d) as usize];
        if r != u32::MAX {
            comp_of[d as usize] = r;
            comps[r as usize].push(d);
        }
    }
    (comps, comp_of)
}

/// Cuts `docs` in order into runs costing at most `limit` each (a run holds at least one).
fn chunk(docs: &[u32], costs: &[u64], limit: u64) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = Vec::new();
    let mut used = 0;
    for &d in docs {
        let c = costs[d as usize];
        match out.last_mut() {
            Some(run) if used + c <= limit => {
                run.push(d);
                used += c;
            }
            _ => {
                out.push(vec![d]);
                used = c;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every pair of `size` documents numbered from `start` in steps of two (two families
    /// interleave: even and odd numbers).
    fn interleaved_family(start: u32, size: u32) -> Vec<(u32, u32)> {
        let docs: Vec<u32> = (0..size).map(|i| start + 2 * i).collect();
        let mut out = Vec::new();
        for (i, &a) in docs.iter().enumerate() {
            for &b in &docs[i + 1..] {
                out.push((a, b));
            }
        }
        out
    }

    fn held(b: &Batch, costs: &[u64]) -> u64 {
        b.docs.iter().map(|&d| costs[d as usize]).sum()
    }

    #[test]
    fn components_that_fit_share_one_batch() {
        let pairs = [(0, 1), (2, 3), (1, 4)];
        let plan = plan(&pairs, &[1; 5], 10);
        assert_eq!(
            plan,
            vec![Batch {
                docs: vec![0, 1, 2, 3, 4],
                pairs: vec![0, 1, 2]
            }]
        );
    }

    #[test]
    fn families_joined_by_one_pair_are_read_one_after_the_other() {
        // Two families of 8 (even and odd numbers), every pair within each, and one pair
        // between them, under a budget of 9: each family read once, and the pair between.
        let mut pairs = interleaved_family(0, 8);
        pairs.extend(interleaved_family(1, 8));
        pairs.push((6, 9));
        let plan = plan(&pairs, &[1; 16], 9);
        let loaded: usize = plan.iter().map(|b| b.docs.len()).sum();
        assert!(loaded <= 18, "{loaded} loaded: {plan:?}");
        // The families order puts each family's documents together.
        let docs: Vec<u32> = (0..16).collect();
        let order = Adjacency::new(&pairs, 16).families(&docs);
        let parity: Vec<u32> = order.iter().map(|d| d % 2).collect();
        assert_eq!(parity, [[0; 8], [1; 8]].concat(), "{order:?}");
    }

    #[test]
    fn a_full_batch_closes_and_documents_are_loaded_once() {
        // Two components of cost 6 under a budget of 10: one batch each.
        let pairs = [(0, 1), (3, 4), (1, 2), (4, 5)];
        let plan = plan(&pairs, &[2; 6], 10);
        assert_eq!(plan.len(), 2);
        assert_eq!(plan[0].docs, vec![0, 1, 2]);
        assert_eq!(plan[0].pairs, vec![0, 2]);
        assert_eq!(plan[1].docs, vec![3, 4, 5]);
        assert_eq!(plan[1].pairs, vec![1, 3]);
    }

    #[test]
    fn a_component_over_the_budget_is_cut_into_chunk_pairs() {
        // A chain 0-1-2-3-4-5 costing 6 under a budget of 4: chunks of 2.
        let pairs: Vec<(u32, u32)> = (0..5).map(|i| (i, i + 1)).collect();
        let plan = plan(&pairs, &[1; 6], 4);
        for b in &plan {
            assert!(held(b, &[1; 6]) <= 4, "{b:?}");
        }
        let mut seen: Vec<u32> = plan.iter().flat_map(|b| b.pairs.clone()).collect();
        seen.sort_unstable();
        assert_eq!(seen, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_document_over_the_budget_is_held_alone_with_its_partner() {
        let plan = plan(&[(0, 1)], &[100, 1], 10);
        assert_eq!(plan.len(), 1);
        assert_eq!(plan[0].docs, vec![0, 1]);
    }

    #[test]
    fn a_cut_component_in_scattered_numbers_loads_each_document_once() {
        // Two families of six, their numbers interleaved (even, odd), joined by one pair,
        // over a budget of 12: the component is cut, but in breadth-first order each family
        // is two chunks, and the batches fill with what their pairs touch.
        let mut pairs = interleaved_family(0, 6);
        pairs.extend(interleaved_family(1, 6));
        pairs.push((0, 1));
        let costs = [1; 12];
        let plan = plan(&pairs, &costs, 12);
        let loaded: usize = plan.iter().map(|b| b.docs.len()).sum();
        assert_eq!(loaded, 12, "{plan:?}");
        let scored: usize = plan.iter().map(|b| b.pairs.len()).sum();
        assert_eq!(scored, pairs.len());
    }

    #[test]
    fn documents_that_pair_with_every_other_are_loaded_once_a_batch() {
        // Twelve leaves (0..12), each paired with both hubs (12, 13), which pair together: over
        // a budget of 8, two batches hold the hubs and six leaves each. Breadth first from leaf
        // 0, cut in chunks, the hubs' pairs scatter over more batches.
        let mut pairs: Vec<(u32, u32)> = vec![(12, 13)];
        for leaf in 0..12 {
            pairs.extend([(leaf, 12), (leaf, 13)]);
        }
        let plan = plan(&pairs, &[1; 14], 8);
        let loaded: usize = plan.iter().map(|b| b.docs.len()).sum();
        assert_eq!((plan.len(), loaded), (2, 16), "{plan:?}");
    }

    proptest! {
        #[test]
        fn every_pair_once_with_both_documents_within_budget(
            raw in proptest::collection::vec((0u32..40, 0u32..40), 0..120),
            costs in proptest::collection::vec(1u64..8, 40),
            budget in 8u64..60,
        ) {
            let pairs: Vec<(u32, u32)> = raw.into_iter().filter(|(a, b)| a != b).collect();
            let plan = plan(&pairs, &costs, budget);
            let bound = budget.max(2 * costs.iter().max().copied().unwrap_or(0));
            let mut count = vec![0; pairs.len()];
            for b in &plan {
                prop_assert!(held(b, &costs) <= bound, "{:?} over {}", b, bound);
                prop_assert!(b.pairs.windows(2).all(|w| w[0] < w[1]));
                for &p in &b.pairs {
                    count[p as usize] += 1;
                    let (x, y) = pairs[p as usize];
                    prop_assert!(b.docs.binary_search(&x).is_ok() && b.docs.binary_search(&y).is_ok());
                }
            }
            prop_assert!(count.iter().all(|&c| c == 1));
        }
    }
}
