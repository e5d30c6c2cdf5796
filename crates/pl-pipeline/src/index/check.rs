//! One document checked against the index without adding it (pl-check).

use std::collections::BTreeMap;

use anyhow::Result;
use pl_core::lsh::Candidate;
use pl_core::text_records::ScoreRecord;
use rusqlite::OptionalExtension;
use serde_json::Value;

use super::rescore::Counts;
use super::{sql, Index, Prepared, Tx};

impl Index {
    /// The near-duplicates in the index of a document not (or not yet) in it: its
    /// candidates (band buckets shared, or the same text) scored as pl-score would once the
    /// document were added. Kept pairs' records, best first.
    pub fn check(&mut self, p: &Prepared) -> Result<Vec<NearDuplicate>> {
        let tx = sql(&self.dir, self.conn.transaction())?;
        let ix = Tx {
            tx: &tx,
            dir: &self.dir,
            engine: &self.engine,
        };
        let mut cands: BTreeMap<(u64, u64), (u32, bool)> = BTreeMap::new();
        let all = self.engine.banding.bands as u32;
        for (other, bands) in ix.lookup(p.id, &p.keys)? {
            cands.insert((p.id.min(other), p.id.max(other)), (bands, false));
        }
        if self.engine.numbers && p.sig.is_some() {
            let stored = ix.stored(p.id)?.map(|(s, _)| s);
            let counts = Counts {
                tx: &ix,
                extra: Some(p),
                stored_extra: stored.as_ref(),
            };
            for other in ix.number_partners(p.id, &p.numbers, &counts)? {
                cands
                    .entry((p.id.min(other), p.id.max(other)))
                    .or_insert((0, false));
            }
        }
        if let Some(s) = &p.sig {
            for (other, sig) in ix.same_text(p.fp)? {
                if other != p.id && sig.as_deref() == Some(&s.sig[..]) {
                    cands.insert((p.id.min(other), p.id.max(other)), (all, true));
                }
            }
        }
        let list: Vec<(Candidate, bool)> = cands
            .into_iter()
            .map(|((a, b), (bands, copy))| (Candidate::scored(a, b, bands), copy))
            .collect();
        let recs = ix.score(&list, Some(p), None)?.kept;
        drop(tx);
        let mut out: Vec<NearDuplicate> = recs
            .into_iter()
            .map(|(a, b, line)| NearDuplicate {
                id: if a == p.id { b } else { a },
                pair: serde_json::from_str(&line).expect("a record just written"),
            })
            .collect();
        out.sort_by(|x, y| {
            y.pair
                .score
                .total_cmp(&x.pair.score)
                .then_with(|| x.id.cmp(&y.id))
        });
        Ok(out)
    }

    /// [`Index::check`], the near-duplicates of another owner than the document's left out
    /// unless `across_owners` or the index was built with `--across-owners` (a document
    /// without owner is an owner of its own, as [`pl_core::owners`] has it): those kept, and
    /// how many were left out.
    pub fn check_owned(
        &mut self,
        p: &Prepared,
        across_owners: bool,
    ) -> Result<(Vec<NearDuplicate>, usize)> {
        let all = self.check(p)?;
        if across_owners || self.params.across_owners {
            return Ok((all, 0));
        }
        let mut st = sql(
            &self.dir,
            self.conn
                .prepare_cached("SELECT owner FROM docs WHERE id=?1"),
        )?;
        let mut kept = Vec::with_capacity(all.len());
        let n = all.len();
        for d in all {
            let owner: Option<i64> = sql(
                &self.dir,
                st.query_row([d.id as i64], |r| r.get(0))
                    .optional()
                    .map(Option::flatten),
            )?;
            if owner.map(|o| o as u64) == p.owner {
                kept.push(d);
            }
        }
        let left_out = n - kept.len();
        Ok((kept, left_out))
    }
}

/// A near-duplicate of a checked document ([`Index::check`]): the other document and their
/// scored pair, as pl-score writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct NearDuplicate {
    /// The other document.
    pub id: u64,
    /// The pair's scores.
    pub pair: ScoreRecord,
}

impl NearDuplicate {
    /// pl-check's record of it: the other document's `id`, then the pair's fields but its two
    /// ids.
    pub fn to_record(&self) -> serde_json::Map<String, Value> {
        let mut d = serde_json::Map::new();
        d.insert("id".into(), self.id.into());
        let Value::Object(mut fields) =
            serde_json::to_value(&self.pair).expect("a score record serializes")
        else {
            unreachable!("a score record is an object")
        };
        fields.shift_remove("a");
        fields.shift_remove("b");
        d.extend(fields);
        d
    }
}
