//! Groups in the index: the stored pairs clustered, whole components at a time, as
//! pl-cluster clusters them: a pair whose documents have different owners is stored (a
//! check reports it with `--across-owners`) but links nothing, as pl-cluster without
//! `--across-owners` ([`pl_core::owners`]).

use pl_core::owners::Owner;

use super::*;

impl Tx<'_> {
    /// Clusters every stored pair (a first build): every group replaced.
    pub(super) fn cluster_all(&self) -> Result<usize> {
        self.exec("DELETE FROM groups", [])?;
        self.exec("DELETE FROM members", [])?;
        let mut pairs = self.pairs_where("", [])?;
        pairs.sort_unstable_by_key(|p| (p.a, p.b));
        let apart = self.rows("SELECT a, b FROM apart", [], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64))
        })?;
        self.store_groups(&pairs, &apart)
    }

    /// Clusters again the connected components of the stored pairs that hold any of
    /// `touched`: their old groups (those of documents that left too) are replaced, every
    /// other group stays as stored. Costs the touched components, not the library. The
    /// groups stored in all, and the documents the touched components hold.
    pub(super) fn recluster(&self, touched: Vec<u64>) -> Result<(usize, usize)> {
        let mut seen: FxHashSet<u64> = touched.iter().copied().collect();
        let mut stack: Vec<u64> = seen.iter().copied().collect();
        let mut pairs = Vec::new();
        // Each pair is read once, from its `a`, when that document is reached.
        while let Some(id) = stack.pop() {
            for p in self.pairs_where("WHERE a=?1", [id as i64])? {
                if seen.insert(p.b) {
                    stack.push(p.b);
                }
                pairs.push(p);
            }
            for other in self.ids("SELECT a FROM pairs WHERE b=?1", [id as i64])? {
                if seen.insert(other) {
                    stack.push(other);
                }
            }
        }
        let mut old: Vec<u64> = Vec::new();
        for &id in &seen {
            old.extend(self.ids("SELECT first FROM members WHERE id=?1", [id as i64])?);
        }
        old.sort_unstable();
        old.dedup();
        for first in old {
            self.exec("DELETE FROM groups WHERE first=?1", [first as i64])?;
            self.exec("DELETE FROM members WHERE first=?1", [first as i64])?;
        }
        // pl-score's order, of the ids as u64 (SQLite would order the stored i64).
        pairs.sort_unstable_by_key(|p| (p.a, p.b));
        // The pairs held apart inside the components.
        let mut apart = Vec::new();
        for &a in &seen {
            for b in self.ids("SELECT b FROM apart WHERE a=?1", [a as i64])? {
                if seen.contains(&b) {
                    apart.push((a, b));
                }
            }
        }
        Ok((self.store_groups(&pairs, &apart)?, seen.len()))
    }

    /// The documents a stored pair joins to `id`.
    pub(super) fn partners(&self, id: u64) -> Result<Vec<u64>> {
        self.ids(
            "SELECT b FROM pairs WHERE a=?1 UNION ALL SELECT a FROM pairs WHERE b=?1",
            [id as i64],
        )
    }

    /// The stored pairs `filter` (an SQL `WHERE` clause, or nothing) selects, as clustering
    /// reads them.
    pub(super) fn pairs_where(
        &self,
        filter: &str,
        args: impl rusqlite::Params,
    ) -> Result<Vec<ScoredPair>> {
        // The similarity is read from the stored record (a pair stored before records had one
        // is ordered by its score, which was its similarity then).
        let query = format!(
            "SELECT a, b, score, jaccard, fuzzy, copy, \
             COALESCE(json_extract(rec, '$.similarity'), score) FROM pairs {filter}"
        );
        self.rows(&query, args, |r| {
            Ok(ScoredPair {
                a: r.get::<_, i64>(0)? as u64,
                b: r.get::<_, i64>(1)? as u64,
                score: r.get(2)?,
                similarity: r.get(6)?,
                jaccard: r.get(3)?,
                fuzzy: r.get(4)?,
                copy: r.get(5)?,
            })
        })
    }

    /// Clusters `pairs` (whole components, in pl-score's order; those across owners left
    /// out) with the pairs held `apart` among them, and stores their groups, each under its
    /// smallest member, its record without the number (given when written); the number of
    /// groups stored in all.
    pub(super) fn store_groups(&self, pairs: &[ScoredPair], apart: &[(u64, u64)]) -> Result<usize> {
        let mut ids: Vec<u64> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut meta: FxHashMap<u64, DocMeta> = FxHashMap::default();
        let mut owners: FxHashMap<u64, Owner> = FxHashMap::default();
        for id in ids {
            let m: (Option<i64>, u32, Option<i64>) = sql(
                self.dir,
                self.tx
                    .prepare_cached("SELECT added, richness, owner FROM docs WHERE id=?1")
                    .and_then(|mut s| {
                        s.query_row([id as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    }),
            )?;
            meta.insert(
                id,
                DocMeta {
                    added: m.0,
                    richness: m.1,
                },
            );
            owners.insert(id, m.2.map(|o| o as u64));
        }
        let (pairs, left_out) = if self.engine.across_owners {
            (pairs.to_vec(), 0)
        } else {
            pl_core::owners::same_owner(pairs.to_vec(), &owners)
        };
        // Held apart within the components of the pairs left, as pl-cluster holds them.
        let apart = if left_out == 0 {
            apart.to_vec()
        } else {
            let kept: Vec<(u64, u64)> = pairs.iter().map(|p| (p.a, p.b)).collect();
            pl_core::cluster::apart_in_components(&kept, apart)
        };
        for g in cluster_with(&pairs, &apart, &meta, self.engine.linkage) {
            let rec = g.to_record(0);
            let json = serde_json::to_string(&rec)?;
            let rest = json
                .strip_prefix("{\"group\":0,")
                .ok_or_else(|| anyhow!("a group record that does not start with its number"))?;
            let first = g.members[0] as i64;
            self.exec(
                "INSERT INTO groups(first, confidence, rec) VALUES (?1, ?2, ?3)",
                params![first, rec.confidence, rest],
            )?;
            for &m in &g.members {
                self.exec(
                    "INSERT INTO members(id, first) VALUES (?1, ?2)",
                    params![m as i64, first],
                )?;
            }
        }
        Ok(self.count_of("groups")? as usize)
    }
}
