//! The 4-byte pieces of a text that hold a digit: what rules out a number being inside it.

/// The 4-byte pieces of `bytes` that hold a digit, as numbers.
pub(super) fn digit_pieces(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes
        .windows(4)
        .filter(|g| g.iter().any(u8::is_ascii_digit))
        .map(|g| u32::from_le_bytes([g[0], g[1], g[2], g[3]]))
}

/// The `digit_grams` of a text's [`super::Profile`].
pub(super) fn digit_grams(norm: &str) -> Vec<u32> {
    let squeezed: Vec<u8> = norm.bytes().filter(|&c| c != b' ').collect();
    let mut grams: Vec<u32> = digit_pieces(&squeezed).collect();
    grams.sort_unstable();
    grams.dedup();
    // Bounded: a text of numbers alone could have four for each of its bytes.
    if grams.len() * 4 > 2 * norm.len() {
        return Vec::new();
    }
    grams.shrink_to_fit();
    grams
}
