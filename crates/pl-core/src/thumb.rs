//! The page images of pl-report's review page (Paperless's thumbnails): which bytes count as
//! one (WebP, PNG or JPEG by their content type and by their first bytes, within a size), the
//! `data:` address a static page embeds, the `/thumb/ID` path a served page asks for, and the
//! bounded cache `--serve` keeps them in.

use std::collections::{BTreeMap, VecDeque};

/// The image types a page image may have: what Paperless serves (WebP, or PNG and JPEG of
/// older libraries). Anything else (an HTML login page, SVG, which can hold script) is
/// refused.
pub const IMAGE_TYPES: [&str; 3] = ["image/webp", "image/png", "image/jpeg"];

/// The largest page image embedded or served, in bytes. Paperless's thumbnails are about 400
/// pixels wide, WebP, typically 5 to 60 KiB.
pub const MAX_IMAGE: usize = 512 << 10;

/// Why a document's page image is not shown (the page says so in its place).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    /// The answer's content type is not one of [`IMAGE_TYPES`].
    #[error("not an image ({0})")]
    NotImage(String),
    /// The bytes are not what their content type says (or no image at all).
    #[error("the bytes are not a WebP, PNG or JPEG image")]
    NotImageBytes,
    /// Over [`MAX_IMAGE`] (or the cap given).
    #[error("over {0} KiB")]
    TooLarge(usize),
    /// What fetching it said (not found, timed out, ...).
    #[error("{0}")]
    Fetch(String),
}

/// The type of `bytes` by their first bytes, when one of [`IMAGE_TYPES`].
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else {
        None
    }
}

/// The type an answer's image is served or embedded with: its `content_type` (parameters and
/// case aside) must be one of [`IMAGE_TYPES`], its bytes must be an image of those types (the
/// type by the bytes is the one given: Paperless labels every thumbnail WebP), and at most
/// `max` bytes.
pub fn check_image(
    content_type: &str,
    bytes: &[u8],
    max: usize,
) -> Result<&'static str, Unavailable> {
    let declared = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if !IMAGE_TYPES.contains(&declared.as_str()) {
        let shown: String = content_type.chars().take(60).collect();
        return Err(Unavailable::NotImage(if shown.is_empty() {
            "no content type".into()
        } else {
            shown
        }));
    }
    if bytes.len() > max {
        return Err(Unavailable::TooLarge(max >> 10));
    }
    sniff(bytes).ok_or(Unavailable::NotImageBytes)
}

/// A `data:` address of an image, for a page that works offline.
pub fn data_uri(image_type: &str, bytes: &[u8]) -> String {
    format!("data:{image_type};base64,{}", crate::sha256::base64(bytes))
}

/// The document id of a served page's image path, `/thumb/ID` (decimal digits only, no sign,
/// no leading zero, no query).
pub fn thumb_path_id(path: &str) -> Option<u64> {
    let digits = path.strip_prefix("/thumb/")?;
    let plain = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !(digits.len() > 1 && digits.starts_with('0'));
    plain.then(|| digits.parse().ok()).flatten()
}

/// What `--serve` keeps of a document's page image: the image (its type and bytes), or why
/// there is none.
pub type Cached = Result<(&'static str, Vec<u8>), Unavailable>;

/// The page images `--serve` has fetched, at most `budget` bytes of images (each entry also
/// counts [`ENTRY_COST`] bytes, so a cache of misses is bounded too); the oldest entry goes
/// first when a new one would pass it.
#[derive(Debug)]
pub struct ImageCache {
    budget: usize,
    used: usize,
    entries: BTreeMap<u64, Cached>,
    order: VecDeque<u64>,
}

/// What an entry costs besides its image's bytes (the id, the map's and the queue's slots, a
/// reason's text).
pub const ENTRY_COST: usize = 256;

fn cost(c: &Cached) -> usize {
    ENTRY_COST + c.as_ref().map_or(0, |(_, b)| b.len())
}

impl ImageCache {
    /// An empty cache holding at most `budget` bytes.
    pub fn new(budget: usize) -> ImageCache {
        ImageCache {
            budget,
            used: 0,
            entries: BTreeMap::new(),
            order: VecDeque::new(),
        }
    }

    /// Document `id`'s entry, if kept.
    pub fn get(&self, id: u64) -> Option<&Cached> {
        self.entries.get(&id)
    }

    /// Bytes held (images and [`ENTRY_COST`] per entry).
    pub fn used(&self) -> usize {
        self.used
    }

    /// Keeps `entry` for `id` (replacing an older one), dropping the oldest entries as long as
    /// the budget would be passed; an entry larger than the whole budget is not kept.
    pub fn put(&mut self, id: u64, entry: Cached) {
        let c = cost(&entry);
        if let Some(old) = self.entries.remove(&id) {
            self.used -= cost(&old);
            self.order.retain(|&x| x != id);
        }
        if c > self.budget {
            return;
        }
        while self.used + c > self.budget {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some(old) = self.entries.remove(&oldest) {
                self.used -= cost(&old);
            }
        }
        self.used += c;
        self.entries.insert(id, entry);
        self.order.push_back(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WEBP: &[u8] =
        b"RIFF\x1a\0\0\0WEBPVP8L\x0d\0\0\0/\0\0\0\x10\x07\x10\x11\x11\x88\x88\xfe\x07\0";
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn only_webp_png_and_jpeg_pass_by_type_and_by_bytes() {
        assert_eq!(check_image("image/webp", WEBP, MAX_IMAGE), Ok("image/webp"));
        assert_eq!(
            check_image("Image/PNG; q=1", PNG, MAX_IMAGE),
            Ok("image/png")
        );
        assert_eq!(
            check_image("image/jpeg", b"\xff\xd8\xff\xe0xx", MAX_IMAGE),
            Ok("image/jpeg")
        );
        // Paperless labels every thumbnail WebP: the bytes say what it is.
        assert_eq!(check_image("image/webp", PNG, MAX_IMAGE), Ok("image/png"));
        for t in [
            "text/html; charset=utf-8",
            "image/svg+xml",
            "application/json",
            "",
        ] {
            assert!(
                matches!(
                    check_image(t, PNG, MAX_IMAGE),
                    Err(Unavailable::NotImage(_))
                ),
                "{t}"
            );
        }
        assert_eq!(
            check_image("image/webp", b"<svg onload=alert(1)>", MAX_IMAGE),
            Err(Unavailable::NotImageBytes)
        );
        assert_eq!(
            check_image("image/png", b"", MAX_IMAGE),
            Err(Unavailable::NotImageBytes)
        );
        assert_eq!(
            check_image("image/png", PNG, PNG.len() - 1),
            Err(Unavailable::TooLarge((PNG.len() - 1) >> 10))
        );
        assert_eq!(
            Unavailable::NotImage("text/html".into()).to_string(),
            "not an image (text/html)"
        );
    }

    #[test]
    fn data_uris_and_paths() {
        assert_eq!(data_uri("image/png", b"ab"), "data:image/png;base64,YWI=");
        assert_eq!(thumb_path_id("/thumb/42"), Some(42));
        assert_eq!(thumb_path_id("/thumb/0"), Some(0));
        for p in [
            "/thumb/",
            "/thumb/042",
            "/thumb/+4",
            "/thumb/4/",
            "/thumb/4x",
            "/thumbs/4",
            "/thumb/99999999999999999999",
        ] {
            assert_eq!(thumb_path_id(p), None, "{p}");
        }
    }

    #[test]
    fn the_cache_stays_within_its_budget_dropping_the_oldest() {
        let img = |n: usize| -> Cached { Ok(("image/png", vec![0; n])) };
        let mut c = ImageCache::new(3 * (ENTRY_COST + 100));
        c.put(1, img(100));
        c.put(2, img(100));
        c.put(3, Err(Unavailable::Fetch("not found".into())));
        assert_eq!(c.used(), 3 * ENTRY_COST + 200);
        c.put(4, img(100));
        assert!(c.get(1).is_none(), "the oldest went");
        assert!(c.get(2).is_some() && c.get(4).is_some());
        assert!(c.used() <= 3 * (ENTRY_COST + 100));
        // Replacing an entry counts it once.
        c.put(4, img(50));
        assert_eq!(c.get(4).unwrap().as_ref().unwrap().1.len(), 50);
        assert_eq!(c.used(), 3 * ENTRY_COST + 150);
        // An entry over the whole budget is not kept, and drops nothing.
        c.put(5, img(10_000));
        assert!(c.get(5).is_none());
        assert_eq!(c.used(), 3 * ENTRY_COST + 150);
        // Many entries: never over the budget.
        for id in 10..1000 {
            c.put(id, img(id as usize % 300));
            assert!(c.used() <= 3 * (ENTRY_COST + 100));
        }
    }
}
