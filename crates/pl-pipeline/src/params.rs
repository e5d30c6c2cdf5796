//! Checks of the pipeline's parameters that every stage taking them shares.

use crate::error::UsageError;

/// Refuses --min-words 0 (a usage error), as pl-shingle, pl-minhash and pl-index do.
pub fn check_min_words(n: usize) -> anyhow::Result<()> {
    if n == 0 {
        return Err(UsageError("--min-words must be at least 1".into()).into());
    }
    Ok(())
}

/// Refuses weights that weigh nothing (a usage error), as pl-score and pl-index do.
pub fn check_weights(jaccard: f64, fuzzy: f64) -> anyhow::Result<()> {
    if jaccard + fuzzy <= 0.0 {
        return Err(UsageError("--jaccard-weight and --fuzzy-weight are both 0".into()).into());
    }
    Ok(())
}
