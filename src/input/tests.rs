//! Tests of the input stage: every sample of the shared WARC corpus against its
//! manifest, generated inputs for each recovery path, and a property test that
//! random or mutated bytes never panic a reader.

use std::collections::BTreeMap;
use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use proptest::prelude::*;

use super::*;
use crate::limits::BODY_KEEP_CAP;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/warc");

/// Counts of one drained reader, plus the captures' key fields.
#[derive(Debug, Default)]
struct Drained {
    captures: Vec<Capture>,
    skipped: BTreeMap<String, usize>,
    problems: Vec<InputProblem>,
    events: usize,
}

impl Drained {
    fn skipped_total(&self) -> usize {
        self.skipped.values().sum()
    }
}

fn drain(mut reader: Box<dyn CaptureReader>) -> Drained {
    let mut d = Drained::default();
    let mut cap = Capture::default();
    while let Some(ev) = reader.next_event(&mut cap) {
        d.events += 1;
        assert!(d.events < 1_000_000, "reader does not terminate");
        match ev {
            Event::Capture => {
                assert!(cap.body.len() <= BODY_KEEP_CAP);
                d.captures.push(cap.clone());
            }
            Event::Skipped(t) => *d.skipped.entry(t).or_default() += 1,
            Event::Problem(p) => d.problems.push(p),
        }
    }
    d
}

fn open(path: &Path) -> Result<Drained, InputProblem> {
    open_input(path, &CsvOptions::default()).map(drain)
}

fn open_bytes(bytes: Vec<u8>, hint: &str) -> Result<Drained, InputProblem> {
    open_read(Box::new(Cursor::new(bytes)), hint, &CsvOptions::default()).map(drain)
}

fn sample(name: &str) -> PathBuf {
    Path::new(CORPUS).join(name)
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn gunzip_all(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(data)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// A WARC record with the given type, URI and block.
fn record(warc_type: &str, uri: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {warc_type}\r\nWARC-Record-ID: <urn:uuid:{warc_type}-{}>\r\n\
         WARC-Target-URI: {uri}\r\nWARC-Date: 2024-05-01T00:00:00Z\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
        block.len(),
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn http_block(headers: &str, body: &[u8]) -> Vec<u8> {
    let mut b = format!("HTTP/1.1 200 OK\r\n{headers}\r\n").into_bytes();
    b.extend_from_slice(body);
    b
}

fn robots_record(i: usize) -> Vec<u8> {
    let body = format!("User-agent: *\nDisallow: /private{i}/\n");
    let uri = format!("https://host{i}.example/robots.txt");
    record(
        "response",
        &uri,
        &http_block("Content-Type: text/plain\r\n", body.as_bytes()),
    )
}

// ---------------------------------------------------------------- corpus

/// One row of the corpus manifest.
struct ManifestRow {
    file: String,
    records: usize,
    types: BTreeMap<String, usize>,
}

fn manifest() -> Vec<ManifestRow> {
    let mut rdr = ::csv::Reader::from_path(Path::new(CORPUS).join("manifest.csv")).unwrap();
    let headers = rdr.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (file, records, types) = (col("file"), col("records"), col("record_types"));
    rdr.records()
        .map(|r| {
            let r = r.unwrap();
            let types = r[types]
                .split(';')
                .filter(|t| !t.is_empty())
                .map(|t| {
                    let (k, v) = t.split_once('=').unwrap();
                    (k.to_owned(), v.parse().unwrap())
                })
                .collect();
            ManifestRow {
                file: r[file].to_owned(),
                records: r[records].parse().unwrap(),
                types,
            }
        })
        .collect()
}

#[test]
fn corpus_counts_match_manifest() {
    let rows = manifest();
    assert_eq!(rows.len(), 24, "manifest rows");
    let mut report = String::new();
    for row in rows {
        let path = sample(&row.file);
        let result = open(&path);
        if row.file.ends_with(".lz4") {
            let p = result.expect_err("lz4 must be refused");
            assert_eq!(p.code, "input_unsupported", "{}", row.file);
            report.push_str(&format!("{}: refused ({})\n", row.file, p.code));
            continue;
        }
        let d = result.unwrap_or_else(|p| panic!("{}: {p}", row.file));
        let n = |t: &str| row.types.get(t).copied().unwrap_or(0);
        // Resources in the corpus are wget logs/manifests or example pages, not robots.txt.
        let want_captures = n("response") + n("revisit");
        let want_skipped = row.records - want_captures;
        report.push_str(&format!(
            "{}: events {} captures {} skipped {:?} problems {:?}\n",
            row.file,
            d.events,
            d.captures.len(),
            d.skipped,
            d.problems.iter().map(|p| p.code).collect::<Vec<_>>()
        ));
        assert_eq!(
            d.events,
            d.captures.len() + d.skipped_total() + d.problems.len()
        );
        match row.file.as_str() {
            // File cut mid-record: the only record is a problem.
            "chatnoir-eu__chatnoir-resiliparse/clipped.warc.gz" => {
                assert_eq!(
                    (d.captures.len(), d.skipped_total()),
                    (0, 0),
                    "{}",
                    row.file
                );
                assert_eq!(d.problems.len(), 1);
                assert_eq!(d.problems[0].code, "warc_truncated_file");
            }
            // NUL padding after the response block (where warcio stops): tolerated, so
            // the request record after it, which the manifest does not count, comes out too.
            "webrecorder__warcio/example-trunc.warc" => {
                assert_eq!(d.captures.len(), want_captures, "{}", row.file);
                assert_eq!(d.skipped.get("warcinfo"), Some(&2));
                assert_eq!(d.skipped.get("request"), Some(&1));
                assert!(d.problems.is_empty(), "{:?}", d.problems);
            }
            _ => {
                assert!(d.problems.is_empty(), "{}: {:?}", row.file, d.problems);
                assert_eq!(d.captures.len(), want_captures, "{}", row.file);
                assert_eq!(d.skipped_total(), want_skipped, "{}", row.file);
                for (t, count) in &row.types {
                    if t != "response" && t != "revisit" {
                        assert_eq!(d.skipped.get(t), Some(count), "{} {t}", row.file);
                    }
                }
            }
        }
    }
    eprintln!("{report}");
}

#[test]
fn common_crawl_fields() {
    let d = open(&sample("iipc__jwarc/cc.warc.gz")).unwrap();
    assert_eq!(d.captures.len(), 1);
    let c = &d.captures[0];
    assert_eq!(c.kind, CaptureKind::Response);
    assert_eq!(c.http_status, Some(200));
    assert_eq!(c.warc_version, "WARC/1.0");
    assert!(c.target_uri.starts_with("http"), "{}", c.target_uri);
    assert_eq!(c.identified_payload_type, "text/html");
    assert!(!c.crawler_content_encoding.is_empty());
    assert!(!c.crawler_transfer_encoding.is_empty());
    // Stored decoded: not decoded again, so the body is plain HTML.
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert!(c.body.windows(5).any(|w| w.eq_ignore_ascii_case(b"<html")));
    assert_eq!(c.body_size as usize, c.body.len());

    let d = open(&sample(
        "chatnoir-eu__chatnoir-resiliparse/warcfile.warc.gz",
    ))
    .unwrap();
    let with_len = d
        .captures
        .iter()
        .filter(|c| !c.crawler_content_length.is_empty())
        .count();
    let with_enc = d
        .captures
        .iter()
        .filter(|c| !c.crawler_content_encoding.is_empty())
        .count();
    assert_eq!((with_len, with_enc), (7, 12));
    assert!(d
        .captures
        .iter()
        .all(|c| c.warnings.is_empty() && c.http_status == Some(200)));

    let d = open(&sample("iipc__webarchive-commons/mutliple-headers.warc")).unwrap();
    assert_eq!(d.captures[0].crawler_content_encoding, "br");
    assert_eq!(d.captures[0].file_offset, 0);
    assert_eq!(d.captures[0].file_length, 1661);
}

#[test]
fn chunked_robots_txt_of_archive_org() {
    let d = open(&sample("iipc__webarchive-commons/IAH-urls-wget.warc.gz")).unwrap();
    let robots: Vec<_> = d
        .captures
        .iter()
        .filter(|c| c.target_uri.ends_with("/robots.txt"))
        .collect();
    let ok = robots
        .iter()
        .find(|c| c.target_uri == "http://archive.org/robots.txt")
        .unwrap();
    assert_eq!(ok.http_status, Some(200));
    assert_eq!(ok.body.len(), 727, "{}", String::from_utf8_lossy(&ok.body));
    assert!(ok.warnings.is_empty(), "{:?}", ok.warnings);
    assert!(ok
        .body
        .windows(11)
        .any(|w| w.eq_ignore_ascii_case(b"user-agent:")));
    let moved = robots
        .iter()
        .find(|c| c.target_uri == "http://www.archive.org/robots.txt")
        .unwrap();
    assert_eq!(moved.http_status, Some(302));
    // Every chunked response decodes without a warning.
    assert!(d.captures.iter().all(|c| c.warnings.is_empty()));
}

#[test]
fn clueweb_gzip_content_encoding_is_decoded() {
    // ClueWeb left `Content-Encoding: gzip` in the headers of payloads it had already
    // decoded: decoding fails on every one, the (plain) raw bytes are kept with a warning.
    let d = open(&sample(
        "chatnoir-eu__chatnoir-resiliparse/clueweb-quirk.warc.gz",
    ))
    .unwrap();
    assert_eq!(d.captures.len(), 29);
    for c in &d.captures {
        assert_eq!(c.warc_version, "WARC/0.18");
        let codes: Vec<_> = c.warnings.iter().map(|w| w.code).collect();
        assert_eq!(codes, ["content_decoding_failed"], "{}", c.target_uri);
        assert!(!c.body.starts_with(&[0x1f, 0x8b]));
        assert!(c.body.windows(5).any(|w| w.eq_ignore_ascii_case(b"<html")));
        assert_eq!(c.body_size as usize, c.body.len());
    }
}

#[test]
fn whole_file_gzip_and_revisit() {
    let d = open(&sample(
        "webrecorder__warcio/example-bad-non-chunked.warc.gz",
    ))
    .unwrap();
    assert_eq!(d.captures.len(), 2);
    let resp = &d.captures[0];
    assert_eq!(resp.kind, CaptureKind::Response);
    assert!(resp.warnings.is_empty(), "{:?}", resp.warnings);
    assert!(resp
        .body
        .windows(5)
        .any(|w| w.eq_ignore_ascii_case(b"<html")));
    // Inside the only member: the uncompressed offset, no length.
    assert_eq!(
        (resp.file_offset, resp.file_length),
        (resp.stream_offset, 0)
    );
    assert!(resp.stream_offset > 0);
    let rev = &d.captures[1];
    assert_eq!(rev.kind, CaptureKind::Revisit);
    assert!(rev.body.is_empty() && rev.body_size == 0);
    assert_eq!(rev.http_status, Some(200));
    assert_eq!(rev.file_length, 0);
    assert_eq!(rev.file_offset, rev.stream_offset);
}

#[test]
fn members_not_aligned_with_records() {
    let path = sample("webrecorder__warcio/example-wrong-chunks.warc.gz");
    let d = open(&path).unwrap();
    assert_eq!(d.captures.len(), 1);
    let c = &d.captures[0];
    assert_eq!(c.http_status, Some(200));
    // Header and payload are in different members; the record starts the first.
    assert_eq!(c.file_offset, 0);
    let file = std::fs::read(&path).unwrap();
    let bytes = &file[c.file_offset as usize..];
    assert!(gunzip_all(bytes).starts_with(b"WARC/1.0"));
}

#[test]
fn per_record_zstd() {
    let d = open(&sample("derived/warcfile.per-record.warc.zst")).unwrap();
    let g = open(&sample(
        "chatnoir-eu__chatnoir-resiliparse/warcfile.warc.gz",
    ))
    .unwrap();
    assert_eq!(d.captures.len(), 16);
    assert_eq!(d.skipped, g.skipped);
    for (z, g) in d.captures.iter().zip(&g.captures) {
        assert_eq!(
            (&z.target_uri, &z.body, z.stream_offset),
            (&g.target_uri, &g.body, g.stream_offset)
        );
        assert!(z.file_length > 0);
    }
    let file = std::fs::read(sample("derived/warcfile.per-record.warc.zst")).unwrap();
    for c in &d.captures {
        let bytes = &file[c.file_offset as usize..(c.file_offset + c.file_length) as usize];
        assert!(zstd::decode_all(bytes).unwrap().starts_with(b"WARC/1.0"));
    }
}

#[test]
fn per_record_gzip_offsets_refetch_the_record() {
    let mut checked = 0;
    for name in [
        "chatnoir-eu__chatnoir-resiliparse/warcfile.warc.gz",
        "chatnoir-eu__chatnoir-resiliparse/clueweb-quirk.warc.gz",
        "commoncrawl__whirlwind-python/whirlwind.warc.gz",
        "iipc__jwarc/cc.warc.gz",
        "iipc__webarchive-commons/IAH-urls-wget.warc.gz",
        "webrecorder__warcio/example.warc.gz",
        "webrecorder__warcio/post-test.warc.gz",
    ] {
        let path = sample(name);
        let file = std::fs::read(&path).unwrap();
        for c in open(&path).unwrap().captures {
            assert!(c.file_length > 0, "{name} {}", c.target_uri);
            let bytes = &file[c.file_offset as usize..(c.file_offset + c.file_length) as usize];
            let rec = gunzip_all(bytes);
            assert!(rec.starts_with(b"WARC/"), "{name}");
            let id = format!("WARC-Record-ID: {}", c.record_id);
            assert!(rec.windows(id.len()).any(|w| w == id.as_bytes()), "{name}");
            checked += 1;
        }
    }
    assert!(checked > 60, "{checked}");
}

// ---------------------------------------------------------------- generated WARC

#[test]
fn corrupt_gzip_member_in_the_middle() {
    let mut file = Vec::new();
    for i in 0..5 {
        let mut member = gzip(&robots_record(i));
        if i == 2 {
            let mid = member.len() / 2;
            for b in &mut member[12..mid] {
                *b ^= 0x5a;
            }
        }
        file.extend_from_slice(&member);
    }
    let d = open_bytes(file, "x.warc.gz").unwrap();
    let uris: Vec<_> = d.captures.iter().map(|c| c.target_uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "https://host0.example/robots.txt",
            "https://host1.example/robots.txt",
            "https://host3.example/robots.txt",
            "https://host4.example/robots.txt"
        ]
    );
    assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
    assert!(d.problems[0].code.starts_with("gzip_") || d.problems[0].code == "warc_truncated_file");
    assert!(d
        .captures
        .iter()
        .all(|c| c.body.starts_with(b"User-agent: *")));
}

#[test]
fn wrong_content_length_resyncs_at_next_record() {
    // Too short by 10: the record comes out (with a warning), the junk is one problem.
    let mut r1 = robots_record(1);
    let s = String::from_utf8(r1.clone()).unwrap();
    let cl = s
        .split("Content-Length: ")
        .nth(1)
        .unwrap()
        .split('\r')
        .next()
        .unwrap();
    let n: usize = cl.parse().unwrap();
    let fixed = s.replacen(
        &format!("Content-Length: {n}"),
        &format!("Content-Length: {}", n - 10),
        1,
    );
    r1 = fixed.into_bytes();
    let file = [robots_record(0), r1, robots_record(2)].concat();
    let d = open_bytes(file, "x.warc").unwrap();
    assert_eq!(d.captures.len(), 3);
    assert_eq!(d.problems.len(), 1);
    assert_eq!(d.problems[0].code, "warc_length_mismatch");
    assert_eq!(d.captures[1].warnings[0].code, "warc_length_mismatch");
    assert_eq!(d.captures[2].target_uri, "https://host2.example/robots.txt");

    // Too long by 20: the block swallows the start of the next record, which is lost;
    // the one after is found again.
    let s = String::from_utf8(robots_record(1)).unwrap();
    let long = s.replacen(
        &format!("Content-Length: {n}"),
        &format!("Content-Length: {}", n + 20),
        1,
    );
    let file = [
        robots_record(0),
        long.into_bytes(),
        robots_record(2),
        robots_record(3),
    ]
    .concat();
    let d = open_bytes(file, "x.warc").unwrap();
    let uris: Vec<_> = d.captures.iter().map(|c| c.target_uri.as_str()).collect();
    assert_eq!(uris.len(), 3);
    assert_eq!(uris[2], "https://host3.example/robots.txt");
    assert_eq!(d.problems.len(), 1);
}

#[test]
fn crlf_quirks_and_nul_padding() {
    let rec = robots_record(7);
    let crcrlf = String::from_utf8(rec.clone())
        .unwrap()
        .replace("\r\n", "\r\r\n");
    // CR CR LF header lines change the byte count of the header but not the block.
    let mut file = b"\0\0\r\n".to_vec();
    file.extend_from_slice(rec.strip_suffix(b"\r\n\r\n").unwrap()); // no trailing CRLFs
    file.extend_from_slice(&[0; 100]);
    let hdr_end = crcrlf.find("\r\r\n\r\r\n").unwrap() + 6;
    file.extend_from_slice(&crcrlf.as_bytes()[..hdr_end]);
    file.extend_from_slice(&rec[rec.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4..]);
    let d = open_bytes(file, "x.warc").unwrap();
    assert_eq!(d.captures.len(), 2, "{:?}", d.problems);
    assert!(d.problems.is_empty());
    assert_eq!(d.captures[0].body, d.captures[1].body);
}

/// A reader of `head`, then `n` bytes of `fill`, then `tail`, without holding them.
fn streamed(head: Vec<u8>, n: u64, fill: u8, tail: Vec<u8>) -> Box<dyn Read + Send> {
    Box::new(
        Cursor::new(head)
            .chain(std::io::repeat(fill).take(n))
            .chain(Cursor::new(tail)),
    )
}

#[test]
fn body_of_100_mb_is_kept_to_the_cap() {
    const SIZE: u64 = 100 * 1024 * 1024;
    let http = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n";
    let head = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://big.example/robots.txt\r\n\
         Content-Length: {}\r\n\r\n{http}",
        SIZE + http.len() as u64
    );
    let tail = [b"\r\n\r\n".to_vec(), robots_record(1)].concat();
    let reader = open_read(
        streamed(head.into_bytes(), SIZE, b'#', tail),
        "big.warc",
        &CsvOptions::default(),
    );
    let d = drain(reader.unwrap());
    assert_eq!(d.captures.len(), 2);
    let c = &d.captures[0];
    assert_eq!(c.body.len(), BODY_KEEP_CAP);
    assert_eq!(c.body_size, SIZE);
    assert!(c.body_cut_at_cap && !c.body_size_is_lower_bound);
    assert!(c.body.capacity() < 2 * BODY_KEEP_CAP);
}

#[test]
fn gzip_bomb_is_not_inflated_past_the_cap() {
    let mut e = GzEncoder::new(Vec::new(), flate2::Compression::default());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        e.write_all(&zeros).unwrap();
    }
    let bomb = e.finish().unwrap();
    let block = http_block("Content-Encoding: gzip\r\n", &bomb);
    let d = open_bytes(
        record("response", "https://bomb.example/robots.txt", &block),
        "b.warc",
    )
    .unwrap();
    let c = &d.captures[0];
    assert_eq!(c.body.len(), BODY_KEEP_CAP);
    assert!(c.body_size_is_lower_bound && c.body_cut_at_cap);
    assert!(
        c.body_size <= (BODY_KEEP_CAP + 64 * 1024) as u64,
        "{}",
        c.body_size
    );
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn content_and_transfer_decoding() {
    let text = b"User-agent: *\nDisallow: /x\n".repeat(10);
    let chunked = {
        let mut b = Vec::new();
        for part in text.chunks(37) {
            b.extend_from_slice(format!("{:x};ext=1\r\n", part.len()).as_bytes());
            b.extend_from_slice(part);
            b.extend_from_slice(b"\r\n");
        }
        b.extend_from_slice(b"0\r\nX-Trailer: y\r\n\r\n");
        b
    };
    let deflate_zlib = {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&text).unwrap();
        e.finish().unwrap()
    };
    let deflate_raw = {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&text).unwrap();
        e.finish().unwrap()
    };
    let gz_chunked = {
        let g = gzip(&text);
        let mut b = format!("{:x}\r\n", g.len()).into_bytes();
        b.extend_from_slice(&g);
        b.extend_from_slice(b"\r\n0\r\n\r\n");
        b
    };
    let cases: Vec<(&str, Vec<u8>, Option<&str>)> = vec![
        ("Transfer-Encoding: chunked\r\n", chunked.clone(), None),
        ("Content-Encoding: x-gzip\r\n", gzip(&text), None),
        ("Content-Encoding: deflate\r\n", deflate_zlib, None),
        ("Content-Encoding: deflate\r\n", deflate_raw, None),
        (
            "Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n",
            gz_chunked,
            None,
        ),
        // Common Crawl: only the X-Crawler- form, payload already decoded.
        (
            "X-Crawler-Content-Encoding: gzip\r\nX-Crawler-Transfer-Encoding: chunked\r\n",
            text.clone(),
            None,
        ),
        // Claims gzip but is not: raw bytes kept, one warning.
        (
            "Content-Encoding: gzip\r\n",
            text.clone(),
            Some("content_decoding_failed"),
        ),
        (
            "Transfer-Encoding: chunked\r\n",
            text.clone(),
            Some("chunked_malformed"),
        ),
        (
            "Content-Encoding: compress\r\n",
            text.clone(),
            Some("content_decoding_failed"),
        ),
        (
            "Transfer-Encoding: chunked\r\n",
            chunked[..chunked.len() - 20].to_vec(),
            Some("chunked_incomplete"),
        ),
    ];
    for (headers, body, warning) in cases {
        let rec = record(
            "response",
            "http://a.example/robots.txt",
            &http_block(headers, &body),
        );
        let d = open_bytes(rec, "x.warc").unwrap();
        let c = &d.captures[0];
        let codes: Vec<_> = c.warnings.iter().map(|w| w.code).collect();
        assert_eq!(codes, warning.into_iter().collect::<Vec<_>>(), "{headers}");
        if warning == Some("chunked_incomplete") {
            assert!(text.starts_with(&c.body) && c.body.len() > 100);
        } else {
            assert_eq!(c.body, text, "{headers}");
            assert_eq!(c.body_size, text.len() as u64);
        }
    }
}

#[test]
fn resource_records_need_a_robots_uri() {
    let file = [
        record(
            "resource",
            "https://a.example/robots.txt?x=1",
            b"User-agent: *\n",
        ),
        record("resource", "https://a.example/index.html", b"<html>"),
        record("resource", "file:///robots.txt", b"x"),
        record(
            "request",
            "https://a.example/robots.txt",
            b"GET / HTTP/1.1\r\n\r\n",
        ),
        record("metadata", "https://a.example/robots.txt", b"x"),
    ]
    .concat();
    let d = open_bytes(file, "x.warc").unwrap();
    assert_eq!(d.captures.len(), 1);
    assert_eq!(d.captures[0].kind, CaptureKind::Resource);
    assert_eq!(d.captures[0].body, b"User-agent: *\n");
    assert_eq!(d.captures[0].http_status, None);
    assert_eq!(d.skipped_total(), 4);
}

#[test]
fn truncated_tail_keeps_earlier_records() {
    let mut file = [robots_record(0), robots_record(1), robots_record(2)].concat();
    file.truncate(file.len() - 30);
    let d = open_bytes(file.clone(), "x.warc").unwrap();
    assert_eq!((d.captures.len(), d.problems.len()), (2, 1));
    assert_eq!(d.problems[0].code, "warc_truncated_file");
    // The same through whole-file gzip cut short.
    let mut gz = gzip(&[robots_record(0), robots_record(1), robots_record(2)].concat());
    gz.truncate(gz.len() - 20);
    let d = open_bytes(gz, "x.warc.gz").unwrap();
    // How much of the tail is lost depends on the deflate blocks; what decoded comes out.
    assert!(!d.captures.is_empty(), "{:?}", d.problems);
    assert_eq!(d.problems.len(), 1);
}

// ---------------------------------------------------------------- CSV

#[test]
fn csv_broken_row_and_multiline_bodies() {
    let csv = "url,status,body,extra\n\
               https://a.example/robots.txt,200,\"User-agent: *\nDisallow: /a\n\",x\n\
               https://b.example/robots.txt,404,only three\n\
               https://c.example/robots.txt,200,\"say \"\"hi\"\"\r\nAllow: /\",y\r\n\
               \n\
               https://d.example/robots.txt,,plain,z";
    let d = open_bytes(csv.as_bytes().to_vec(), "dump.csv").unwrap();
    assert_eq!(d.captures.len(), 3);
    assert_eq!(d.problems.len(), 1);
    assert_eq!(d.problems[0].code, "csv_bad_row");
    let a = &d.captures[0];
    assert_eq!(
        (a.kind, a.line, a.http_status),
        (CaptureKind::CsvRow, 2, Some(200))
    );
    assert_eq!(a.body, b"User-agent: *\nDisallow: /a\n");
    assert_eq!(a.file_offset as usize, csv.find("https://a").unwrap());
    let c = &d.captures[1];
    assert_eq!(c.body, b"say \"hi\"\r\nAllow: /");
    assert_eq!(c.line, 6);
    let dd = &d.captures[2];
    assert_eq!(
        (dd.target_uri.as_str(), dd.http_status, dd.line),
        ("https://d.example/robots.txt", None, 9)
    );
    assert_eq!(dd.body, b"plain");
}

#[test]
fn csv_host_column_gzip_and_missing_columns() {
    let csv = b"host,body\nexample.com,\"User-agent: *\"\nexample.org,x\n".to_vec();
    let opts = CsvOptions {
        host_column: Some("host".into()),
        ..CsvOptions::default()
    };
    let r = open_read(Box::new(Cursor::new(gzip(&csv))), "dump.csv.gz", &opts).unwrap();
    let d = drain(r);
    assert_eq!(d.captures.len(), 2);
    assert_eq!(d.captures[0].target_uri, "https://example.com/robots.txt");
    assert_eq!(d.captures[0].body, b"User-agent: *");
    assert_eq!(d.captures[0].file_length, 0);
    // Without the host option the url column is required.
    let p = open_bytes(csv, "dump.csv").err().unwrap();
    assert_eq!(p.code, "csv_missing_column");
    // zstd-compressed CSV, sniffed by content despite the name.
    let z = zstd::encode_all(&b"url,body\nhttp://x/robots.txt,a\n"[..], 3).unwrap();
    let d = open_bytes(z, "whatever.bin").unwrap();
    assert_eq!(d.captures.len(), 1);
}

#[test]
fn csv_body_over_the_cap_streams() {
    const SIZE: u64 = 3 * 1024 * 1024;
    let r = streamed(
        b"url,body\nhttp://x/robots.txt,\"".to_vec(),
        SIZE,
        b'a',
        b"\"\nhttp://y/robots.txt,b\n".to_vec(),
    );
    let d = drain(open_read(r, "x.csv", &CsvOptions::default()).unwrap());
    assert_eq!(d.captures.len(), 2);
    assert_eq!(d.captures[0].body.len(), BODY_KEEP_CAP);
    assert_eq!(d.captures[0].body_size, SIZE);
    assert!(d.captures[0].body_cut_at_cap);
}

// ---------------------------------------------------------------- robustness

fn corpus_seeds() -> Vec<(Vec<u8>, &'static str)> {
    [
        ("webrecorder__warcio/example.warc.gz", "a.warc.gz"),
        (
            "webrecorder__warcio/example-iana.org-chunked.warc",
            "a.warc",
        ),
        ("iipc__jwarc/gzip_extra_sl.warc.gz", "a.warc.gz"),
        (
            "webrecorder__warcio/example-wrong-chunks.warc.gz",
            "a.warc.gz",
        ),
    ]
    .into_iter()
    .map(|(f, hint)| (std::fs::read(sample(f)).unwrap(), hint))
    .chain([
        (
            zstd::encode_all(&robots_record(1)[..], 1).unwrap(),
            "a.warc.zst",
        ),
        (
            b"url,status,body\nhttp://a/robots.txt,200,\"x\ny\"\n".to_vec(),
            "a.csv",
        ),
    ])
    .collect()
}

fn must_not_panic(bytes: Vec<u8>, hint: &str) {
    if let Ok(r) = open_read(Box::new(Cursor::new(bytes)), hint, &CsvOptions::default()) {
        drain(r);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096), hint in 0usize..4) {
        let hints = ["a.warc", "a.warc.gz", "a.csv", "a.warc.zst"];
        // Give the random bytes each magic in turn so every decoder sees garbage.
        let prefix: &[u8] = [&b""[..], &[0x1f, 0x8b, 8, 0][..], &b"url,body\n"[..], &[0x28, 0xb5, 0x2f, 0xfd][..]][hint];
        must_not_panic([prefix, &bytes].concat(), hints[hint]);
        must_not_panic([&b"WARC/1.0\r\n"[..], &bytes].concat(), hints[hint]);
    }

    #[test]
    fn mutated_samples_never_panic(
        seed in 0usize..6,
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        cut in any::<prop::sample::Index>(),
        splice in any::<prop::sample::Index>(),
        mode in 0u8..3,
    ) {
        let seeds = corpus_seeds();
        let (orig, hint) = &seeds[seed];
        let mut bytes = orig.clone();
        for (at, x) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x | 1;
        }
        match mode {
            0 => bytes.truncate(cut.index(bytes.len() + 1)),
            1 => {
                // Splice a slice of the original at another place.
                let (a, b) = (cut.index(orig.len()), splice.index(orig.len()));
                let (lo, hi) = (a.min(b), a.max(b));
                let at = splice.index(bytes.len() + 1);
                bytes.splice(at..at, orig[lo..hi].iter().copied());
            }
            _ => {}
        }
        must_not_panic(bytes, hint);
    }
}
