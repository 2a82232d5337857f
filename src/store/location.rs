//! Where an input (or an input list) is: a local path, an `http(s)://` URL or
//! `s3://bucket/key`, parsed once from the command line or a list line.
//!
//! `Display` gives the canonical string that lands in the `source` column and names
//! the input's part files, so the same location always prints the same way.

use std::fmt;
use std::path::{Path, PathBuf};

use super::StoreError;

/// One input location.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Location {
    /// A file or directory on the local file system, as the user wrote it.
    Local(PathBuf),
    /// An object served over HTTP or HTTPS (e.g. `https://data.commoncrawl.org/...`).
    Http(url::Url),
    /// An S3 object or prefix; `key` has no leading `/` and may be empty (the bucket root).
    S3 { bucket: String, key: String },
}

impl Location {
    /// Parses a path, an `http(s)://` URL or an `s3://bucket/key`. Other schemes
    /// (`ftp://`, `gs://`, ...) are refused rather than taken as odd local paths.
    pub fn parse(s: &str) -> Result<Location, StoreError> {
        let bad = |why: &str| StoreError::BadLocation(format!("{s:?}: {why}"));
        let Some((scheme, rest)) = s.split_once("://") else {
            if s.is_empty() {
                return Err(bad("empty"));
            }
            return Ok(Location::Local(PathBuf::from(s)));
        };
        match scheme.to_ascii_lowercase().as_str() {
            "http" | "https" => {
                let url = url::Url::parse(s).map_err(|e| bad(&e.to_string()))?;
                if url.host_str().is_none_or(str::is_empty) {
                    return Err(bad("no host"));
                }
                Ok(Location::Http(url))
            }
            "s3" | "s3a" => {
                let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
                if bucket.is_empty() {
                    return Err(bad("no bucket name"));
                }
                Ok(Location::S3 {
                    bucket: bucket.to_owned(),
                    key: key.trim_start_matches('/').to_owned(),
                })
            }
            _ => Err(bad(
                "unsupported scheme (use a local path, http://, https:// or s3://)",
            )),
        }
    }

    /// Resolves one line of an input list: a line with a scheme stands alone; a
    /// relative line is joined to `base` when given (a base is a directory: a
    /// missing trailing `/` is implied), else it is a local path as written.
    pub fn resolve(line: &str, base: Option<&Location>) -> Result<Location, StoreError> {
        let line = line.trim();
        if line.contains("://") {
            return Location::parse(line);
        }
        match base {
            None => Location::parse(line),
            Some(Location::Local(dir)) => Ok(Location::Local(dir.join(line))),
            Some(Location::Http(url)) => {
                let mut dir = url.clone();
                if !dir.path().ends_with('/') {
                    let path = format!("{}/", dir.path());
                    dir.set_path(&path);
                }
                let joined = dir
                    .join(line)
                    .map_err(|e| StoreError::BadLocation(format!("{line:?} against {url}: {e}")))?;
                Ok(Location::Http(joined))
            }
            Some(Location::S3 { bucket, key }) => {
                let mut joined = key.trim_end_matches('/').to_owned();
                if !joined.is_empty() {
                    joined.push('/');
                }
                joined.push_str(line.trim_start_matches('/'));
                Ok(Location::S3 {
                    bucket: bucket.clone(),
                    key: joined,
                })
            }
        }
    }

    /// True for locations reached through an object store (HTTP or S3).
    pub fn is_remote(&self) -> bool {
        !matches!(self, Location::Local(_))
    }

    /// The local path, for [`Location::Local`].
    pub fn as_local(&self) -> Option<&Path> {
        match self {
            Location::Local(path) => Some(path),
            _ => None,
        }
    }

    /// The last segment of the path or key: the file name used as a format hint.
    pub fn file_name(&self) -> String {
        let tail = |s: &str| s.rsplit('/').next().unwrap_or_default().to_owned();
        match self {
            Location::Local(path) => path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            Location::Http(url) => tail(url.path()),
            Location::S3 { key, .. } => tail(key),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Local(path) => write!(f, "{}", path.display()),
            Location::Http(url) => f.write_str(url.as_str()),
            Location::S3 { bucket, key } => write!(f, "s3://{bucket}/{key}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Location {
        Location::parse(s).expect(s)
    }

    #[test]
    fn parses_the_three_forms() {
        assert_eq!(
            p("data/a.warc.gz"),
            Location::Local("data/a.warc.gz".into())
        );
        assert_eq!(
            p("s3://commoncrawl/crawl-data/x.gz"),
            Location::S3 {
                bucket: "commoncrawl".into(),
                key: "crawl-data/x.gz".into()
            }
        );
        assert_eq!(
            p("s3://bucket"),
            Location::S3 {
                bucket: "bucket".into(),
                key: String::new()
            }
        );
        match p("HTTPS://Data.CommonCrawl.org/crawl-data/a%20b.gz") {
            Location::Http(url) => {
                assert_eq!(url.host_str(), Some("data.commoncrawl.org"));
                assert_eq!(url.path(), "/crawl-data/a%20b.gz");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn refuses_what_it_cannot_reach() {
        for bad in [
            "",
            "s3:///key",
            "ftp://host/file",
            "gs://bucket/key",
            "http://",
        ] {
            let err = Location::parse(bad).expect_err(bad);
            assert_eq!(err.code(), "remote_bad_location", "{bad}");
        }
    }

    #[test]
    fn display_is_canonical() {
        assert_eq!(p("s3://b/k/x.gz").to_string(), "s3://b/k/x.gz");
        assert_eq!(p("s3a://b//k").to_string(), "s3://b/k");
        assert_eq!(
            p("https://data.commoncrawl.org").to_string(),
            "https://data.commoncrawl.org/"
        );
        assert_eq!(p("dir/x.csv").to_string(), "dir/x.csv");
    }

    #[test]
    fn list_lines_resolve_against_the_base() {
        let line = "crawl-data/CC-MAIN-2024-22/segments/1/robotstxt/a.warc.gz";
        let http = p("https://data.commoncrawl.org/");
        assert_eq!(
            Location::resolve(line, Some(&http)).map(|l| l.to_string()),
            Ok(format!("https://data.commoncrawl.org/{line}"))
        );
        // A base without its trailing slash is still a directory.
        let sub = p("http://127.0.0.1:8080/mirror");
        assert_eq!(
            Location::resolve("a.warc.gz", Some(&sub)).map(|l| l.to_string()),
            Ok("http://127.0.0.1:8080/mirror/a.warc.gz".to_owned())
        );
        let s3 = p("s3://commoncrawl/");
        assert_eq!(
            Location::resolve(line, Some(&s3)).map(|l| l.to_string()),
            Ok(format!("s3://commoncrawl/{line}"))
        );
        let s3_prefix = p("s3://bucket/pre");
        assert_eq!(
            Location::resolve("/x.gz", Some(&s3_prefix)).map(|l| l.to_string()),
            Ok("s3://bucket/pre/x.gz".to_owned())
        );
        // Absolute lines ignore the base; without a base lines are local paths.
        assert_eq!(
            Location::resolve("s3://other/k", Some(&http)).map(|l| l.to_string()),
            Ok("s3://other/k".to_owned())
        );
        assert_eq!(
            Location::resolve(" rel/a.gz ", None),
            Ok(Location::Local("rel/a.gz".into()))
        );
        assert_eq!(
            Location::resolve("a.gz", Some(&p("base/dir"))),
            Ok(Location::Local("base/dir/a.gz".into()))
        );
    }

    #[test]
    fn file_names_are_the_last_segment() {
        assert_eq!(p("https://h/a/b.warc.gz").file_name(), "b.warc.gz");
        assert_eq!(p("s3://b/k/c.csv.gz").file_name(), "c.csv.gz");
        assert_eq!(p("d/e.warc").file_name(), "e.warc");
    }
}
