//! Grouping scored pairs: union-find, a confidence per group, and a primary to keep.

use rustc_hash::FxHashMap;

/// A pair that passed the score threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredPair {
    /// Smaller id.
    pub a: u64,
    /// Larger id.
    pub b: u64,
    /// Combined score.
    pub score: f64,
    /// Jaccard dimension.
    pub jaccard: f64,
    /// Fuzzy dimension.
    pub fuzzy: f64,
}

/// What the primary rule looks at for one document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocMeta {
    /// When the document was added (seconds since the epoch, UTC), from `added`, else `created`.
    pub added: Option<i64>,
    /// How many metadata fields are filled (title, correspondent, document type, tags, ASN).
    pub richness: u32,
}

/// A group of documents that are duplicates of each other.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The group's strongest pair.
    pub pair: ScoredPair,
    /// The document to keep.
    pub primary: u64,
    /// All members, ascending.
    pub members: Vec<u64>,
}

struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }
    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // The smaller root wins, so the result does not depend on pair order.
            let (lo, hi) = (ra.min(rb), ra.max(rb));
            self.parent[hi as usize] = lo;
        }
    }
}

/// Merges strongest pairs first while at least half of the pairs between two groups passed;
/// marks the pairs that joined nothing as unused (they are not a group's confidence).
fn average_linkage(
    pairs: &[ScoredPair],
    index: &FxHashMap<u64, u32>,
    uf: &mut UnionFind,
    used: &mut [bool],
) {
    let n = index.len();
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
    for p in pairs {
        let (a, b) = (index[&p.a], index[&p.b]);
        adj[a as usize].push(b);
        adj[b as usize].push(a);
    }
    let mut members: Vec<Vec<u32>> = (0..n as u32).map(|i| vec![i]).collect();
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by(|&x, &y| {
        let (p, q) = (&pairs[x], &pairs[y]);
        q.score
            .total_cmp(&p.score)
            .then((p.a, p.b).cmp(&(q.a, q.b)))
    });
    used.iter_mut().for_each(|u| *u = false);
    for i in order {
        let (a, b) = (index[&pairs[i].a], index[&pairs[i].b]);
        let (ra, rb) = (uf.find(a), uf.find(b));
        if ra == rb {
            used[i] = true;
            continue;
        }
        let (small, big) = if members[ra as usize].len() <= members[rb as usize].len() {
            (ra, rb)
        } else {
            (rb, ra)
        };
        let links: usize = members[small as usize]
            .iter()
            .map(|&m| {
                adj[m as usize]
                    .iter()
                    .filter(|&&o| uf.find(o) == big)
                    .count()
            })
            .sum();
        let possible = members[small as usize].len() * members[big as usize].len();
        if 2 * links >= possible {
            uf.union(ra, rb);
            let root = uf.find(ra);
            let other = if root == ra { rb } else { ra };
            let moved = std::mem::take(&mut members[other as usize]);
            members[root as usize].extend(moved);
            used[i] = true;
        }
    }
}

/// The primary rule: the earliest added document (one with a date before one without),
/// then the one with more metadata, then the lowest id.
pub fn choose_primary(members: &[u64], meta: &FxHashMap<u64, DocMeta>) -> u64 {
    let none = DocMeta::default();
    *members
        .iter()
        .min_by_key(|id| {
            let m = meta.get(id).unwrap_or(&none);
            (
                m.added.is_none(),
                m.added,
                std::cmp::Reverse(m.richness),
                **id,
            )
        })
        .expect("a group has members")
}

/// How pairs become groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    /// Union-find: everything connected through any chain of pairs is one group. One false
    /// pair merges two groups, and a family of monthly bills can chain into one.
    Single,
    /// Pairs are taken strongest first, and two groups merge only when at least half of all
    /// the pairs between their members passed scoring. A chain A–B–C–D, where A and D are
    /// nothing alike, stops growing; a real group, whose members all match, is unaffected.
    Average,
}

/// Joins pairs into groups by `linkage`, sorted by confidence (strongest pair's score),
/// highest first; ties by the smallest member id.
pub fn cluster(pairs: &[ScoredPair], meta: &FxHashMap<u64, DocMeta>) -> Vec<Group> {
    cluster_with(pairs, meta, Linkage::Single)
}

/// [`cluster`] with a choice of linkage.
pub fn cluster_with(
    pairs: &[ScoredPair],
    meta: &FxHashMap<u64, DocMeta>,
    linkage: Linkage,
) -> Vec<Group> {
    let mut ids: Vec<u64> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    ids.sort_unstable();
    ids.dedup();
    let index: FxHashMap<u64, u32> = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i as u32))
        .collect();
    let mut uf = UnionFind {
        parent: (0..ids.len() as u32).collect(),
    };
    let mut used = vec![true; pairs.len()];
    match linkage {
        Linkage::Single => {
            for p in pairs {
                uf.union(index[&p.a], index[&p.b]);
            }
        }
        Linkage::Average => average_linkage(pairs, &index, &mut uf, &mut used),
    }
    let pairs: Vec<ScoredPair> = pairs
        .iter()
        .zip(&used)
        .filter(|(_, u)| **u)
        .map(|(p, _)| *p)
        .collect();
    let pairs = &pairs[..];
    let mut members: FxHashMap<u32, Vec<u64>> = FxHashMap::default();
    for (i, &id) in ids.iter().enumerate() {
        let root = uf.find(i as u32);
        members.entry(root).or_default().push(id);
    }
    let mut best: FxHashMap<u32, ScoredPair> = FxHashMap::default();
    for p in pairs {
        let root = uf.find(index[&p.a]);
        let e = best.entry(root).or_insert(*p);
        if (p.score, std::cmp::Reverse((p.a, p.b))) > (e.score, std::cmp::Reverse((e.a, e.b))) {
            *e = *p;
        }
    }
    // A document whose every pair was refused by the linkage stands alone: no group.
    let mut groups: Vec<Group> = members
        .into_iter()
        .filter(|(_, m)| m.len() >= 2)
        .map(|(root, members)| Group {
            pair: best[&root],
            primary: choose_primary(&members, meta),
            members,
        })
        .collect();
    groups.sort_by(|x, y| {
        y.pair
            .score
            .total_cmp(&x.pair.score)
            .then(x.members[0].cmp(&y.members[0]))
    });
    groups
}

/// Parses an RFC 3339 timestamp (`2026-01-16T08:00:00+01:00`, `...Z`, fractions allowed)
/// or a plain date (`2026-01-15`, taken as midnight UTC) into seconds since the epoch.
pub fn parse_timestamp(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    if b.len() == 10 {
        return Some(days * 86_400);
    }
    if b.len() < 19 || !matches!(b[10], b'T' | b' ') {
        return None;
    }
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        rest = &frac[digits..];
    }
    let offset = match rest {
        "" | "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let hm = rest[1..].replace(':', "");
            if hm.len() != 4 || !hm.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            sign * (hm[0..2].parse::<i64>().ok()? * 3600 + hm[2..4].parse::<i64>().ok()? * 60)
        }
    };
    Some(days * 86_400 + h * 3600 + mi * 60 + sec - offset)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(a: u64, b: u64, score: f64) -> ScoredPair {
        ScoredPair {
            a,
            b,
            score,
            jaccard: score,
            fuzzy: score,
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
        assert_eq!(cluster_with(&chain, &m, Linkage::Single).len(), 1);
        let g = cluster_with(&chain, &m, Linkage::Average);
        assert!(g.iter().all(|g| g.members.len() <= 3), "{g:?}");
        // A pair refused by the linkage leaves no singleton group behind.
        let star = [p(1, 2, 0.9), p(1, 3, 0.9), p(2, 3, 0.9), p(3, 9, 0.8)];
        let g = cluster_with(&star, &m, Linkage::Average);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].members, vec![1, 2, 3]);
        // A clique of four stays one group.
        let clique = [
            p(1, 2, 0.9),
            p(1, 3, 0.9),
            p(1, 4, 0.9),
            p(2, 3, 0.9),
            p(2, 4, 0.9),
            p(3, 4, 0.8),
        ];
        let g = cluster_with(&clique, &m, Linkage::Average);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].members, vec![1, 2, 3, 4]);
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

    #[test]
    fn parses_timestamps() {
        assert_eq!(parse_timestamp("1970-01-02"), Some(86_400));
        assert_eq!(parse_timestamp("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(parse_timestamp("1970-01-01T00:00:10.123456Z"), Some(10));
        assert_eq!(
            parse_timestamp("2026-02-01T10:22:33.123456+01:00"),
            Some(1_769_937_753)
        );
        assert_eq!(parse_timestamp("yesterday"), None);
        assert_eq!(parse_timestamp("2026-13-01"), None);
    }
}
