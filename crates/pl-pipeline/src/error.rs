//! Errors a tool turns into its exit status (pl-cli's `main_with`).

/// A usage error (bad combination of flags): exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// The job ran, but some of it was refused on purpose (pl-apply: documents it would not
/// touch): exit 3, so that a script notices.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);
