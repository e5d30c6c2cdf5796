//! Grouping scored pairs: union-find, a confidence per group, and a primary to keep.

use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

use crate::fields::{get_u64, get_unit, FieldError, Obj};
use crate::score::round6;
use crate::text_records::{DocRecord, GroupRecord};
use crate::time::parse_timestamp;

/// A pair that passed the score threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredPair {
    /// Smaller id.
    pub a: u64,
    /// Larger id.
    pub b: u64,
    /// Its score: the match probability (pl-score's), what a group's confidence is.
    pub score: f64,
    /// How alike the two texts are (pl-score's `similarity`; the score where a method has
    /// none): average linkage merges the most alike first. The probability says whether two
    /// documents are one, not which of several copies is closest, and it saturates near 1.
    pub similarity: f64,
    /// Jaccard dimension.
    pub jaccard: f64,
    /// Fuzzy dimension.
    pub fuzzy: f64,
    /// The two documents are one normalized text (pl-lsh's `"copy":true` star pairs): they
    /// are joined before anything else and merge with other groups as one unit.
    pub copy: bool,
}

/// What is wrong with a line of pl-score's output.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PairError {
    /// A field missing or out of range.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// Ids not in order.
    #[error("pair ({0}, {1}) is not ordered a < b")]
    Unordered(u64, u64),
    /// `apart` other than `true`.
    #[error("\"apart\" is {0}, not true")]
    NotApart(String),
}

/// One line of pl-score's output: a kept pair, or two documents held apart (`"apart":true`:
/// [`crate::scorer::Reason::may_be_apart`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScoresLine {
    /// A pair that passed scoring.
    Kept(ScoredPair),
    /// Smaller id, larger id.
    Apart(u64, u64),
}

impl ScoresLine {
    /// Reads a line of pl-score's output: a pair held apart has `"apart":true` and no score.
    pub fn from_obj(o: &Obj) -> Result<ScoresLine, PairError> {
        match o.get("apart") {
            None => ScoredPair::from_obj(o).map(ScoresLine::Kept),
            Some(Value::Bool(true)) => {
                let (a, b) = (get_u64(o, "a")?, get_u64(o, "b")?);
                if a >= b {
                    return Err(PairError::Unordered(a, b));
                }
                Ok(ScoresLine::Apart(a, b))
            }
            Some(v) => Err(PairError::NotApart(v.to_string())),
        }
    }
}

/// The pairs held `apart` (`a < b`) whose two documents the `kept` pairs connect, sorted,
/// each once: the only ones that can change a group. Costs 8 bytes per document of the kept
/// pairs, beyond the lists.
pub fn apart_in_components(kept: &[(u64, u64)], apart: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut dense: FxHashMap<u64, u32> = FxHashMap::default();
    for &(a, b) in kept {
        for id in [a, b] {
            let n = dense.len() as u32;
            dense.entry(id).or_insert(n);
        }
    }
    let mut uf = UnionFind::new(dense.len());
    for (a, b) in kept {
        uf.union(dense[a], dense[b]);
    }
    let mut held: Vec<(u64, u64)> = apart
        .iter()
        .filter(|(a, b)| match (dense.get(a), dense.get(b)) {
            (Some(&x), Some(&y)) => uf.find(x) == uf.find(y),
            _ => false,
        })
        .copied()
        .collect();
    held.sort_unstable();
    held.dedup();
    held
}

/// What the primary rule looks at for one document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocMeta {
    /// When the document was added (seconds since the epoch, UTC), from `added`, else `created`.
    pub added: Option<i64>,
    /// How many metadata fields are filled (title, correspondent, document type, tags, ASN).
    pub richness: u32,
}

impl ScoredPair {
    /// Reads a scored pair record (pl-score's, pl-trigram's): ids ordered `a < b`, a score
    /// from 0 to 1; `jaccard` and `fuzzy` NaN when the method has no such dimension.
    pub fn from_obj(o: &Obj) -> Result<ScoredPair, PairError> {
        let (a, b) = (get_u64(o, "a")?, get_u64(o, "b")?);
        if a >= b {
            return Err(PairError::Unordered(a, b));
        }
        let score = get_unit(o, "score")?;
        // Methods without these dimensions (the trigram index) leave them out: null in groups.
        let dim = |k: &str| o.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
        let similarity = match o.get("similarity") {
            Some(_) => get_unit(o, "similarity")?,
            None => score,
        };
        Ok(ScoredPair {
            a,
            b,
            score,
            similarity,
            jaccard: dim("jaccard"),
            fuzzy: dim("fuzzy"),
            copy: o.get("copy").and_then(Value::as_bool).unwrap_or(false),
        })
    }
}

impl DocMeta {
    /// What the primary rule reads from a docs or norm record: `added` (else `created`), and
    /// how many of title, correspondent, document type, tags and ASN are filled.
    pub fn from_record(d: &DocRecord) -> DocMeta {
        let date = |v: Option<&Value>| v.and_then(Value::as_str).and_then(parse_timestamp);
        let filled = |v: &&Option<&Value>| match v {
            None | Some(Value::Null) => false,
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Array(a)) => !a.is_empty(),
            Some(_) => true,
        };
        DocMeta {
            added: date(d.added()).or_else(|| date(d.created())),
            richness: [
                d.title(),
                d.correspondent(),
                d.document_type(),
                d.tags(),
                d.archive_serial_number(),
            ]
            .iter()
            .filter(filled)
            .count() as u32,
        }
    }
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

impl Group {
    /// The group record numbered `number` (docs/FORMATS.md, groups): the strongest pair's
    /// score as the confidence, its dimensions (null where NaN), the primary and the members.
    pub fn to_record(&self, number: usize) -> GroupRecord {
        let dim = |x: f64| Some(round6(x)).filter(|x| !x.is_nan());
        GroupRecord {
            group: number as u64,
            confidence: round6(self.pair.score),
            jaccard: dim(self.pair.jaccard),
            fuzzy: dim(self.pair.fuzzy),
            pair: Some([self.pair.a, self.pair.b]),
            primary: self.primary,
            members: self.members.clone(),
            rest: Obj::new(),
        }
    }
}

/// Disjoint sets of dense numbers; the smaller root wins a union.
pub(crate) struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    /// `n` singletons.
    pub(crate) fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n as u32).collect(),
        }
    }

    pub(crate) fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }
    pub(crate) fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            // The smaller root wins, so the result does not depend on pair order.
            let (lo, hi) = (ra.min(rb), ra.max(rb));
            self.parent[hi as usize] = lo;
        }
    }
}

/// Merges the most alike pairs first while at least half of the document pairs between two groups
/// passed; marks the pairs that joined nothing as unused (they are not a group's confidence).
///
/// Copy pairs join their documents first, unconditionally, into units: pl-lsh pairs each copy
/// of a text with one representative only, so the pairs between the other copies, and between
/// them and other documents, were never scored. A pair linking unit U to unit V stands for all
/// |U|·|V| document pairs between them (the copies of a text score alike against any
/// document), and two groups merge when these add up to at least half of the product of their
/// document counts. For the full list of pairs (every copy scored against every document) and
/// its star list, this gives the same groups whenever the scores between distinct units do
/// not tie with each other or with 1.0; with no copy pairs it is plain average linkage. Two
/// groups with a pair of `apart` documents between them never merge, and a document torn
/// between two such ([`torn_documents`]) joins nothing.
fn average_linkage(
    pairs: &[ScoredPair],
    apart: &[(u64, u64)],
    index: &FxHashMap<u64, u32>,
    uf: &mut UnionFind,
    used: &mut [bool],
) {
    let n = index.len();
    // The copies join into units first, there.
    let torn = torn_documents(pairs, apart, index, uf);
    let joins = |p: &ScoredPair| p.copy || !(torn.contains(&p.a) || torn.contains(&p.b));
    // Units are the union-find roots after the copies; `weight` is a unit's document count.
    let mut weight = vec![0usize; n];
    for d in 0..n as u32 {
        weight[uf.find(d) as usize] += 1;
    }
    let kept = pairs.iter().filter(|p| !p.copy && joins(p));
    let adj = unit_graph(kept.map(|p| (p.a, p.b)), index, uf);
    // The units held apart from each unit (documents in no kept pair cannot merge anyway).
    let held = unit_graph(apart.iter().copied(), index, uf);
    // The units of each group, and its document count, by the group's root.
    let mut units: Vec<Vec<u32>> = (0..n as u32)
        .map(|i| {
            if weight[i as usize] > 0 {
                vec![i]
            } else {
                Vec::new()
            }
        })
        .collect();
    let mut docs = weight.clone();
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by(|&x, &y| {
        let (p, q) = (&pairs[x], &pairs[y]);
        q.similarity
            .total_cmp(&p.similarity)
            .then((p.a, p.b).cmp(&(q.a, q.b)))
    });
    used.iter_mut().for_each(|u| *u = false);
    for i in order.into_iter().filter(|&i| joins(&pairs[i])) {
        let (a, b) = (index[&pairs[i].a], index[&pairs[i].b]);
        let (ra, rb) = (uf.find(a), uf.find(b));
        if ra == rb {
            used[i] = true;
            continue;
        }
        let (small, big) = if units[ra as usize].len() <= units[rb as usize].len() {
            (ra, rb)
        } else {
            (rb, ra)
        };
        let links: usize = units[small as usize]
            .iter()
            .map(|&u| {
                adj[u as usize]
                    .iter()
                    .filter(|&&v| uf.find(v) == big)
                    .map(|&v| weight[u as usize] * weight[v as usize])
                    .sum::<usize>()
            })
            .sum();
        let possible = docs[small as usize] * docs[big as usize];
        let kept_apart = units[small as usize]
            .iter()
            .any(|&u| held[u as usize].iter().any(|&v| uf.find(v) == big));
        if 2 * links >= possible && !kept_apart {
            uf.union(ra, rb);
            let root = uf.find(ra);
            let other = if root == ra { rb } else { ra };
            let moved = std::mem::take(&mut units[other as usize]);
            units[root as usize].extend(moved);
            docs[root as usize] += std::mem::take(&mut docs[other as usize]);
            used[i] = true;
        }
    }
}

/// How close to its best pair's similarity a document's pair with another side must be for the
/// document to count as torn between the two (`torn_documents`).
pub const TORN_MARGIN: f64 = 0.01;

/// The documents torn between two documents held apart: each passed with both, at scores
/// within [`TORN_MARGIN`] of its best, so its text does not tell which one it copies (a copy
/// with the page removed that told two editions apart). Joining either would be a guess, and
/// a wrong one a false group: such a document joins no group. Joins the copy pairs'
/// documents into units in `uf` first: two documents are held apart when their units are. Costs a list entry per pair end and
/// two set entries per pair held apart; a document's check walks, for each partner within
/// the margin, the shorter of its partners and that partner's units held apart.
fn torn_documents(
    pairs: &[ScoredPair],
    apart: &[(u64, u64)],
    index: &FxHashMap<u64, u32>,
    uf: &mut UnionFind,
) -> FxHashSet<u64> {
    for p in pairs.iter().filter(|p| p.copy) {
        uf.union(index[&p.a], index[&p.b]);
    }
    let mut torn = FxHashSet::default();
    if apart.is_empty() {
        return torn;
    }
    let mut unit = |id: u64| index.get(&id).map(|&i| uf.find(i));
    let mut held: FxHashMap<u32, FxHashSet<u32>> = FxHashMap::default();
    for &(a, b) in apart {
        if let (Some(x), Some(y)) = (unit(a), unit(b)) {
            held.entry(x).or_default().insert(y);
            held.entry(y).or_default().insert(x);
        }
    }
    let mut partners: FxHashMap<u64, Vec<(f64, u64)>> = FxHashMap::default();
    for p in pairs.iter().filter(|p| !p.copy) {
        partners.entry(p.a).or_default().push((p.similarity, p.b));
        partners.entry(p.b).or_default().push((p.similarity, p.a));
    }
    for (&d, list) in &mut partners {
        list.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        let top = list[0].0;
        let near: FxHashSet<u32> = list
            .iter()
            .take_while(|(s, _)| *s >= top - TORN_MARGIN)
            .filter_map(|&(_, id)| unit(id))
            .collect();
        // The smaller side of each look-up is walked: at most min(held, near) a partner.
        let split = near.iter().filter_map(|x| held.get(x)).any(|h| {
            if h.len() <= near.len() {
                h.iter().any(|y| near.contains(y))
            } else {
                near.iter().any(|y| h.contains(y))
            }
        });
        if split {
            torn.insert(d);
        }
    }
    torn
}

/// The units each unit is linked to by the document pairs `edges` (those of documents not in
/// `index` left out): one link per pair of units, however many document pairs were given.
fn unit_graph(
    edges: impl Iterator<Item = (u64, u64)>,
    index: &FxHashMap<u64, u32>,
    uf: &mut UnionFind,
) -> Vec<Vec<u32>> {
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); index.len()];
    for (a, b) in edges {
        if let (Some(&x), Some(&y)) = (index.get(&a), index.get(&b)) {
            let (u, v) = (uf.find(x), uf.find(y));
            if u != v {
                adj[u as usize].push(v);
                adj[v as usize].push(u);
            }
        }
    }
    for a in &mut adj {
        a.sort_unstable();
        a.dedup();
    }
    adj
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
    cluster_with(pairs, &[], meta, Linkage::Single)
}

/// [`cluster`] with a choice of linkage, and the pairs of documents held apart (`a < b`),
/// which average linkage never puts in one group (single linkage ignores them).
pub fn cluster_with(
    pairs: &[ScoredPair],
    apart: &[(u64, u64)],
    meta: &FxHashMap<u64, DocMeta>,
    linkage: Linkage,
) -> Vec<Group> {
    let (ids, index) = dense_ids(pairs);
    let mut uf = UnionFind::new(ids.len());
    let mut used = vec![true; pairs.len()];
    match linkage {
        Linkage::Single => {
            for p in pairs {
                uf.union(index[&p.a], index[&p.b]);
            }
        }
        Linkage::Average => average_linkage(pairs, apart, &index, &mut uf, &mut used),
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
        group_order(
            (round6(x.pair.score), x.members[0]),
            (round6(y.pair.score), y.members[0]),
        )
    });
    groups
}

/// The documents of `pairs`, sorted, and each one's place among them.
fn dense_ids(pairs: &[ScoredPair]) -> (Vec<u64>, FxHashMap<u64, u32>) {
    let mut ids: Vec<u64> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    ids.sort_unstable();
    ids.dedup();
    let index = ids
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i as u32))
        .collect();
    (ids, index)
}

/// Why two documents are or are not in one group, after pl-score's verdict on their pair:
/// what `make why` shows last.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GroupingWhy {
    /// The first document, as asked.
    pub a: u64,
    /// The second.
    pub b: u64,
    /// The pair's score, when pl-score kept it.
    pub kept: Option<f64>,
    /// Whether pl-score held the two apart.
    pub held_apart: bool,
    /// Of the two, those torn between documents held apart: they join no group
    /// ([`TORN_MARGIN`]).
    pub torn: Vec<u64>,
    /// The first one's group number in pl-cluster's output (`None`: in no group).
    pub group_a: Option<usize>,
    /// The second one's.
    pub group_b: Option<usize>,
    /// When they are not in one group: the document pairs between their two groups (a
    /// document in none counting as a group of one), how many of them pl-score kept and how
    /// many it held apart. Average linkage merges two groups when at least half of those
    /// pairs passed (a pair with one copy of a text standing for each copy) and none is held
    /// apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub between: Option<Between>,
}

/// The document pairs between two groups ([`GroupingWhy::between`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Between {
    /// Document pairs between the two groups.
    pub pairs: usize,
    /// Of them, those pl-score kept.
    pub passed: usize,
    /// Those it held apart.
    pub held_apart: usize,
}

/// [`GroupingWhy`] for documents `a` and `b`, clustering as [`cluster_with`] does.
pub fn grouping_why(
    pairs: &[ScoredPair],
    apart: &[(u64, u64)],
    linkage: Linkage,
    (a, b): (u64, u64),
) -> GroupingWhy {
    let groups = cluster_with(pairs, apart, &FxHashMap::default(), linkage);
    let group_of = |id: u64| {
        groups
            .iter()
            .position(|g| g.members.contains(&id))
            .map(|i| i + 1)
    };
    let (group_a, group_b) = (group_of(a), group_of(b));
    let members = |g: Option<usize>, id: u64| -> FxHashSet<u64> {
        g.map_or_else(
            || [id].into_iter().collect(),
            |n| groups[n - 1].members.iter().copied().collect(),
        )
    };
    let between = (group_a.is_none() || group_a != group_b).then(|| {
        let (ma, mb) = (members(group_a, a), members(group_b, b));
        let across = |x: u64, y: u64| {
            (ma.contains(&x) && mb.contains(&y)) || (ma.contains(&y) && mb.contains(&x))
        };
        Between {
            pairs: ma.len() * mb.len(),
            passed: pairs.iter().filter(|p| across(p.a, p.b)).count(),
            held_apart: apart.iter().filter(|&&(x, y)| across(x, y)).count(),
        }
    });
    let key = (a.min(b), a.max(b));
    let mut torn = Vec::new();
    if linkage == Linkage::Average {
        let (_, index) = dense_ids(pairs);
        let all = torn_documents(pairs, apart, &index, &mut UnionFind::new(index.len()));
        torn = [key.0, key.1]
            .into_iter()
            .filter(|id| all.contains(id))
            .collect();
    }
    GroupingWhy {
        a,
        b,
        kept: pairs.iter().find(|p| (p.a, p.b) == key).map(|p| p.score),
        held_apart: apart.contains(&key),
        torn,
        group_a,
        group_b,
        between,
    }
}

/// The order of groups: by confidence as written (the strongest pair's score to 6 places),
/// highest first; ties by the smallest member id. Each argument is (confidence, smallest id).
fn group_order(x: (f64, u64), y: (f64, u64)) -> std::cmp::Ordering {
    y.0.total_cmp(&x.0).then(x.1.cmp(&y.1))
}

/// A document in two groups of runs that should have split the documents between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("document {0} is in two groups")]
pub struct InTwoGroups(pub u64);

/// The groups of several runs over disjoint sets of pairs (no document in two groups, as
/// when each run had whole connected components) in the order one run over all the pairs
/// writes them, numbered from 1. A document in two groups is refused.
pub fn renumber(mut groups: Vec<GroupRecord>) -> Result<Vec<GroupRecord>, InTwoGroups> {
    let mut seen: Vec<u64> = groups
        .iter()
        .flat_map(|g| g.members.iter().copied())
        .collect();
    seen.sort_unstable();
    if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
        return Err(InTwoGroups(w[0]));
    }
    let first = |g: &GroupRecord| g.members.iter().copied().min().unwrap_or(u64::MAX);
    groups.sort_by(|x, y| group_order((x.confidence, first(x)), (y.confidence, first(y))));
    for (i, g) in groups.iter_mut().enumerate() {
        g.group = i as u64 + 1;
    }
    Ok(groups)
}

#[cfg(test)]
mod tests;
