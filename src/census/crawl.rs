//! The Common Crawl form of the `crawl` column, `CC-MAIN-YYYY-WW`: one definition of
//! its shape for `run --crawl`, the crawl read from an input's path, and the report's
//! time order. (The queries test the same shape with `^CC-MAIN-[0-9]{4}-[0-9]{2}$`.)

/// The prefix of every Common Crawl crawl id.
const PREFIX: &str = "CC-MAIN-";

/// Whether `text` is a Common Crawl crawl id: `CC-MAIN-`, four digits, `-`, two digits.
/// Such ids sort by time.
pub fn is_crawl_id(text: &str) -> bool {
    let Some(tail) = text.strip_prefix(PREFIX).map(str::as_bytes) else {
        return false;
    };
    tail.len() == 7
        && tail[..4].iter().all(u8::is_ascii_digit)
        && tail[4] == b'-'
        && tail[5..].iter().all(u8::is_ascii_digit)
}

/// The first crawl id in a path or URL (`crawl-data/CC-MAIN-2024-10/...`).
pub fn crawl_in_path(source: &str) -> Option<&str> {
    source.match_indices(PREFIX).find_map(|(i, _)| {
        let id = source.get(i..i + PREFIX.len() + 7)?;
        is_crawl_id(id).then_some(id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crawl_ids_have_one_shape() {
        for good in ["CC-MAIN-2024-10", "CC-MAIN-0000-00"] {
            assert!(is_crawl_id(good), "{good}");
        }
        for bad in [
            "CC-MAIN-2024-1",
            "CC-MAIN-2024-100",
            "CC-MAIN-202a-10",
            "CC-MAIN-2024_10",
            "cc-main-2024-10",
            "unknown",
            "",
        ] {
            assert!(!is_crawl_id(bad), "{bad}");
        }
    }

    #[test]
    fn crawls_in_paths() {
        assert_eq!(
            crawl_in_path("s3://commoncrawl/crawl-data/CC-MAIN-2024-10/segments/x/robotstxt/CC-MAIN-20240220211055-00001.warc.gz"),
            Some("CC-MAIN-2024-10")
        );
        assert_eq!(
            crawl_in_path("data/CC-MAIN-20240220211055-00001.warc.gz"),
            None
        );
        assert_eq!(crawl_in_path("CC-MAIN-2024-1"), None);
        assert_eq!(crawl_in_path("robots.csv"), None);
        // The id is cut from the path: a longer number still names its crawl.
        assert_eq!(
            crawl_in_path("x/CC-MAIN-2024-100/y"),
            Some("CC-MAIN-2024-10")
        );
    }
}
