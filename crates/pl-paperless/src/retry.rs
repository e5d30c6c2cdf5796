//! When and how often a request is tried again: bounded retries with exponential backoff and
//! jitter (the client's, and the checked retry of a note).

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::time::{Duration, Instant};

/// When and how often to try again.
#[derive(Debug, Clone)]
pub struct Retry {
    /// Retries after the first attempt.
    pub retries: u32,
    /// Delay before the first retry; doubled for each further one.
    pub base: Duration,
    /// Longest delay between two attempts.
    pub max_delay: Duration,
    /// Longest wait honoured from a `Retry-After` header.
    pub max_retry_after: Duration,
}

impl Default for Retry {
    fn default() -> Retry {
        Retry {
            retries: 5,
            base: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl Retry {
    /// Delay before retry number `n` (1-based): exponential, capped, with jitter in
    /// [50%, 100%] so many clients do not retry in step.
    pub fn backoff(&self, n: u32) -> Duration {
        let exp = self
            .base
            .saturating_mul(1u32 << (n.saturating_sub(1)).min(20));
        let d = exp.min(self.max_delay);
        let r = RandomState::new().hash_one(Instant::now()) >> 11;
        let frac = r as f64 / (1u64 << 53) as f64;
        d.mul_f64(0.5 + 0.5 * frac)
    }
}
