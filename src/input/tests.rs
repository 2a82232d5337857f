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
    open_input(path, &ReadOptions::default()).map(drain)
}

fn open_bytes(bytes: Vec<u8>, hint: &str) -> Result<Drained, InputProblem> {
    open_read(Box::new(Cursor::new(bytes)), hint, &ReadOptions::default()).map(drain)
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
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (the WARC samples): make test"
)]
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
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (the WARC samples): make test"
)]
fn common_crawl_fields() {
    let d = open(&sample("iipc__jwarc/cc.warc.gz")).unwrap();
    assert_eq!(d.captures.len(), 1);
    let c = &d.captures[0];
    assert_eq!(c.kind, CaptureKind::Response);
    assert_eq!(c.http_status, Some(200));
    assert!(c.target_uri.starts_with("http"), "{}", c.target_uri);
    assert_eq!(c.identified_payload_type, "text/html");
    assert!(!c.crawler_content_encoding.is_empty());
    // Stored decoded: not decoded again, so the body is plain HTML.
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert!(c.body.windows(5).any(|w| w.eq_ignore_ascii_case(b"<html")));
    assert_eq!(c.body_size as usize, c.body.len());

    let d = open(&sample(
        "chatnoir-eu__chatnoir-resiliparse/warcfile.warc.gz",
    ))
    .unwrap();
    let with_enc = d
        .captures
        .iter()
        .filter(|c| !c.crawler_content_encoding.is_empty())
        .count();
    assert_eq!(with_enc, 12);
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
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (the WARC samples): make test"
)]
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
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (the WARC samples): make test"
)]
fn clueweb_gzip_content_encoding_is_decoded() {
    // ClueWeb left `Content-Encoding: gzip` in the headers of payloads it had already
    // decoded: decoding fails on every one, the (plain) raw bytes are kept with a warning.
    let d = open(&sample(
        "chatnoir-eu__chatnoir-resiliparse/clueweb-quirk.warc.gz",
    ))
    .unwrap();
    assert_eq!(d.captures.len(), 29);
    for c in &d.captures {
        let codes: Vec<_> = c.warnings.iter().map(|w| w.code).collect();
        assert_eq!(codes, ["content_decoding_failed"], "{}", c.target_uri);
        assert!(!c.body.starts_with(&[0x1f, 0x8b]));
        assert!(c.body.windows(5).any(|w| w.eq_ignore_ascii_case(b"<html")));
        assert_eq!(c.body_size as usize, c.body.len());
    }
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (the WARC samples): make test"
)]
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
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (the WARC samples): make test"
)]
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
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (the WARC samples): make test"
)]
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
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (the WARC samples): make test"
)]
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

    // Too long by 20: the block runs into the next record, whose header is found inside
    // it; the damaged record ends there with a warning and every record is kept.
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
    assert_eq!(uris.len(), 4);
    assert_eq!(uris[2], "https://host2.example/robots.txt");
    assert_eq!(uris[3], "https://host3.example/robots.txt");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.captures[1].warnings[0].code, "warc_length_mismatch");
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
    file.extend_from_slice(&[0; 8]);
    let second = file.len();
    let hdr_end = crcrlf.find("\r\r\n\r\r\n").unwrap() + 6;
    file.extend_from_slice(&crcrlf.as_bytes()[..hdr_end]);
    file.extend_from_slice(&rec[rec.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4..]);
    let d = open_bytes(file.clone(), "x.warc").unwrap();
    assert_eq!(d.captures.len(), 2, "{:?}", d.problems);
    assert!(d.problems.is_empty());
    assert_eq!(d.captures[0].body, d.captures[1].body);
    // 100 NUL bytes are no terminator: both records are kept, the run is reported.
    file.splice(second..second, [0; 100]);
    let d = open_bytes(file, "x.warc").unwrap();
    assert_eq!(d.captures.len(), 2, "{:?}", d.problems);
    let codes: Vec<_> = d.problems.iter().map(|p| p.code).collect();
    assert_eq!(codes, ["warc_padding"]);
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
        &ReadOptions::default(),
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
fn csv_location_column_is_optional_and_read_as_the_location_header() {
    let csv = b"url,status,location,body\n\
        http://a.example/robots.txt,301, https://a.example/robots.txt ,\n\
        https://a.example/robots.txt,200,,\"User-agent: *\"\n"
        .to_vec();
    let r = open_read(
        Box::new(Cursor::new(csv)),
        "dump.csv",
        &ReadOptions::default(),
    )
    .unwrap();
    let d = drain(r);
    assert_eq!(d.captures.len(), 2);
    assert_eq!(d.captures[0].http_status, Some(301));
    assert_eq!(d.captures[0].http_location, "https://a.example/robots.txt");
    assert_eq!(
        d.captures[1].http_location, "",
        "an empty cell is no Location"
    );
    // Another name by option; a file without the column reads as before.
    let opts = ReadOptions {
        csv: CsvOptions {
            location_column: "moved_to".into(),
            ..CsvOptions::default()
        },
        ..ReadOptions::default()
    };
    let csv = b"url,moved_to,status,body\nhttp://b.example/robots.txt,/r.txt,302,\n".to_vec();
    let d = drain(open_read(Box::new(Cursor::new(csv)), "dump.csv", &opts).unwrap());
    assert_eq!(d.captures[0].http_location, "/r.txt");
    let csv = b"url,status,body\nhttp://b.example/robots.txt,302,\n".to_vec();
    let d = drain(open_read(Box::new(Cursor::new(csv)), "dump.csv", &opts).unwrap());
    assert_eq!(
        (d.captures.len(), d.captures[0].http_location.as_str()),
        (1, "")
    );
}

#[test]
fn csv_host_column_gzip_and_missing_columns() {
    let csv = b"host,body\nexample.com,\"User-agent: *\"\nexample.org,x\n".to_vec();
    let opts = CsvOptions {
        host_column: Some("host".into()),
        ..CsvOptions::default()
    };
    let opts = ReadOptions {
        csv: opts,
        ..ReadOptions::default()
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
    let d = drain(open_read(r, "x.csv", &ReadOptions::default()).unwrap());
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
    if let Ok(r) = open_read(Box::new(Cursor::new(bytes)), hint, &ReadOptions::default()) {
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
    #[cfg_attr(not(feature = "external-tests"), ignore = "needs ../shared/corpus/warc (the WARC samples): make test")]
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

// ---------------------------------------------------------------- damaged inputs (issue 10)

/// The URIs of the captures, in order.
fn uris(d: &Drained) -> Vec<&str> {
    d.captures.iter().map(|c| c.target_uri.as_str()).collect()
}

fn host_uri(i: usize) -> String {
    format!("https://host{i}.example/robots.txt")
}

/// `robots_record(i)` with its Content-Length changed by `delta`.
fn record_with_length_delta(i: usize, delta: i64) -> Vec<u8> {
    let s = String::from_utf8(robots_record(i)).unwrap();
    let n: i64 = s
        .split("Content-Length: ")
        .nth(1)
        .and_then(|r| r.split('\r').next())
        .unwrap()
        .parse()
        .unwrap();
    s.replacen(
        &format!("Content-Length: {n}\r"),
        &format!("Content-Length: {}\r", n + delta),
        1,
    )
    .into_bytes()
}

#[test]
fn zero_filled_record_is_a_reported_range() {
    for fill in [0u8, b'\n'] {
        let recs: Vec<Vec<u8>> = (0..5).map(robots_record).collect();
        let mut file = recs.concat();
        let start: usize = recs[..2].iter().map(Vec::len).sum();
        for b in &mut file[start..start + recs[2].len()] {
            *b = fill;
        }
        let d = open_bytes(file, "x.warc").unwrap();
        assert_eq!(
            uris(&d),
            [host_uri(0), host_uri(1), host_uri(3), host_uri(4)],
            "fill {fill}"
        );
        assert_eq!(d.events, d.captures.len() + d.problems.len());
        assert_eq!(d.problems.len(), 1, "fill {fill}: {:?}", d.problems);
        let p = &d.problems[0];
        assert_eq!(p.code, "warc_padding");
        // The run starts at the end of record 1's block (its CRLF CRLF is part of it).
        let run_start = start - 4;
        let run_len = recs[2].len() + 4;
        assert_eq!(p.offset, run_start as u64);
        assert!(
            p.message.contains(&format!("{run_len} bytes")),
            "{}",
            p.message
        );
    }
}

#[test]
fn short_padding_between_records_is_tolerated() {
    let mut file = robots_record(0);
    file.extend_from_slice(&[0; 8]);
    file.extend(robots_record(1));
    let d = open_bytes(file, "x.warc").unwrap();
    assert_eq!(uris(&d), [host_uri(0), host_uri(1)]);
    assert!(d.problems.is_empty(), "{:?}", d.problems);
}

#[test]
fn cut_in_half_and_zero_padded_reports_the_padding() {
    let recs: Vec<Vec<u8>> = (0..10).map(robots_record).collect();
    let mut file = recs.concat();
    let len = file.len();
    let cut = len / 2;
    file.truncate(cut);
    file.resize(len, 0);
    let d = open_bytes(file, "x.warc").unwrap();
    // Records wholly before the cut are intact and present.
    let mut end = 0;
    let mut intact = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        end += r.len();
        if end <= cut {
            intact.push(host_uri(i));
        }
    }
    let got = uris(&d);
    assert_eq!(&got[..intact.len()], intact.as_slice());
    // The record cut by the zeros reads zeros as its block; the rest of the zeros are
    // one reported range that runs to the end of the file.
    assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
    assert_eq!(d.problems[0].code, "warc_padding");
    assert!(
        d.problems[0].message.contains(&format!("..{len}")),
        "{}",
        d.problems[0].message
    );
}

#[test]
fn content_length_too_large_resyncs_at_the_next_header() {
    // Too long by 20, 2,000 (past several records) and 10 MB (past the end of the file).
    for delta in [20, 2_000, 10_000_000] {
        let mut recs: Vec<Vec<u8>> = (0..8).map(robots_record).collect();
        recs[1] = record_with_length_delta(1, delta);
        let d = open_bytes(recs.concat(), "x.warc").unwrap();
        let want: Vec<String> = (0..8).map(host_uri).collect();
        assert_eq!(uris(&d), want, "delta {delta}");
        assert!(d.problems.is_empty(), "delta {delta}: {:?}", d.problems);
        let codes: Vec<_> = d.captures[1].warnings.iter().map(|w| w.code).collect();
        assert_eq!(codes, ["warc_length_mismatch"], "delta {delta}");
        // The damaged record keeps exactly its own body, the others are untouched.
        for (i, c) in d.captures.iter().enumerate() {
            let body = format!("User-agent: *\nDisallow: /private{i}/\n");
            assert_eq!(c.body, body.as_bytes(), "delta {delta} record {i}");
            if i != 1 {
                assert!(c.warnings.is_empty(), "delta {delta} record {i}");
            }
        }
    }
}

#[test]
fn content_length_too_large_far_beyond_the_window() {
    // A 1 MB payload after the damaged record, then more records: the declared end is
    // out of reach of the look-ahead, so the later header itself is checked.
    let big = record(
        "resource",
        "https://big.example/robots.txt",
        &vec![b'#'; 1 << 20],
    );
    let mut recs = vec![robots_record(0), record_with_length_delta(1, 600_000)];
    recs.extend([robots_record(2), big, robots_record(3)]);
    let d = open_bytes(recs.concat(), "x.warc").unwrap();
    assert_eq!(
        uris(&d),
        [
            host_uri(0),
            host_uri(1),
            host_uri(2),
            "https://big.example/robots.txt".to_owned(),
            host_uri(3)
        ]
    );
    assert_eq!(d.captures[1].warnings[0].code, "warc_length_mismatch");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
}

#[test]
fn embedded_warc_line_with_a_correct_length_is_content() {
    // A payload that itself holds a WARC record: the declared length ends cleanly
    // (CRLF CRLF, then the next record), so it is content, not a resync point.
    let inner = robots_record(9);
    let mut payload = b"archived:\r\n".to_vec();
    payload.extend_from_slice(&inner);
    let outer = record("resource", "https://a.example/robots.txt", &payload);
    let file = [robots_record(0), outer, robots_record(1)].concat();
    let d = open_bytes(file, "x.warc").unwrap();
    assert_eq!(
        uris(&d),
        [
            host_uri(0),
            "https://a.example/robots.txt".to_owned(),
            host_uri(1)
        ]
    );
    assert_eq!(d.captures[1].body, payload);
    assert!(d.captures[1].warnings.is_empty());
    assert!(d.problems.is_empty());
}

/// Flips a byte of the CRC32 in the trailer of a gzip member.
fn bad_crc(mut member: Vec<u8>) -> Vec<u8> {
    let at = member.len() - 8;
    member[at] ^= 0xff;
    member
}

#[test]
fn bad_gzip_crc_is_one_document_with_a_warning() {
    let mut file = Vec::new();
    let mut member_at = 0;
    for i in 0..5 {
        let member = gzip(&robots_record(i));
        if i == 2 {
            member_at = file.len();
            file.extend(bad_crc(member));
        } else {
            file.extend(member);
        }
    }
    // A request record with a bad CRC: one problem, not a skip plus a problem.
    file.extend(bad_crc(gzip(&record(
        "request",
        "https://host2.example/robots.txt",
        b"GET /robots.txt HTTP/1.1\r\n\r\n",
    ))));
    file.extend(gzip(&robots_record(5)));
    let d = open_bytes(file, "x.warc.gz").unwrap();
    let want: Vec<String> = (0..6).map(host_uri).collect();
    assert_eq!(uris(&d), want);
    assert_eq!(d.events, 7, "one event per record");
    let c = &d.captures[2];
    let codes: Vec<_> = c.warnings.iter().map(|w| w.code).collect();
    assert_eq!(codes, ["gzip_crc_mismatch"]);
    assert_eq!(c.warnings[0].offset, member_at as u64);
    assert_eq!(c.body, b"User-agent: *\nDisallow: /private2/\n");
    assert!(d
        .captures
        .iter()
        .enumerate()
        .all(|(i, c)| i == 2 || c.warnings.is_empty()));
    assert_eq!(d.skipped_total(), 0);
    let codes: Vec<_> = d.problems.iter().map(|p| p.code).collect();
    assert_eq!(codes, ["gzip_crc_mismatch"]);
    assert!(
        d.problems[0].message.contains("request"),
        "{}",
        d.problems[0].message
    );
}

/// A zstd frame of `data` whose header declares a window of `2^window_log` bytes
/// (and the content size, so a decoder needs only that much memory).
fn zstd_frame_with_window(data: &[u8], window_log: u32) -> Vec<u8> {
    // Encode without a content size or single-segment flag, so the header is
    // magic, descriptor, window byte; then rewrite the header.
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    enc.include_contentsize(false).unwrap();
    enc.include_checksum(true).unwrap();
    enc.set_parameter(zstd::stream::raw::CParameter::WindowLog(10))
        .unwrap();
    std::io::copy(&mut &data[..], &mut enc).unwrap();
    let frame = enc.finish().unwrap();
    assert_eq!(frame[..4], [0x28, 0xb5, 0x2f, 0xfd]);
    let fhd = frame[4];
    assert_eq!(
        fhd & 0b1110_0011,
        0,
        "no content size, single segment or dict id"
    );
    // Frame_Content_Size_flag 3 (8 bytes), keep the checksum flag.
    let mut out = vec![0x28, 0xb5, 0x2f, 0xfd, 0b1100_0000 | (fhd & 0b100)];
    out.push(((window_log - 10) << 3) as u8);
    out.extend_from_slice(&(data.len() as u64).to_le_bytes());
    out.extend_from_slice(&frame[6..]);
    out
}

#[test]
fn zstd_long_windows_are_accepted() {
    let warc = [robots_record(0), robots_record(1)].concat();
    for log in [24, 27, 30, 31] {
        let file = zstd_frame_with_window(&warc, log);
        assert_eq!(
            zstd::decode_all(&file[..]).unwrap(),
            warc,
            "test frame {log}"
        );
        let d = open_bytes(file, "x.warc.zst").unwrap();
        assert!(d.problems.is_empty(), "window log {log}: {:?}", d.problems);
        assert_eq!(uris(&d), [host_uri(0), host_uri(1)], "window log {log}");
    }
}

#[test]
fn zstd_long_mode_stream_decodes() {
    // What `zstd --long=24` writes for a stream: a 16 MiB window and no content size.
    let mut warc = Vec::new();
    for i in 0..30_000 {
        warc.extend(robots_record(i));
    }
    assert!(warc.len() > 1 << 23);
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
    enc.long_distance_matching(true).unwrap();
    enc.window_log(24).unwrap();
    std::io::copy(&mut &warc[..], &mut enc).unwrap();
    let file = enc.finish().unwrap();
    let d = open_bytes(file, "x.warc.zst").unwrap();
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.captures.len(), 30_000);
    assert_eq!(d.captures[29_999].target_uri, host_uri(29_999));
}

#[test]
fn csv_statuses_parse_when_unambiguous_and_warn_otherwise() {
    let cells = [
        ("200", Some(200), false),
        ("404.0", Some(404), false),
        (" 404 ", Some(404), false),
        ("HTTP/1.1 404 Not Found", Some(404), false),
        ("\"HTTP/1.0 301 Moved\"", Some(301), false),
        ("", None, false),
        ("abc", None, true),
        ("-1", None, true),
        ("99999999999", None, true),
        ("404.5", None, true),
        ("1e3", None, true),
        ("0", None, true),
        ("HTTP/1.1 abc", None, true),
    ];
    let mut csv = String::from("url,status,body\n");
    for (i, (status, _, _)) in cells.iter().enumerate() {
        csv.push_str(&format!("https://h{i}.example/robots.txt,{status},x\n"));
    }
    let d = open_bytes(csv.into_bytes(), "x.csv").unwrap();
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.captures.len(), cells.len());
    for ((cell, want, invalid), c) in cells.iter().zip(&d.captures) {
        assert_eq!(c.http_status, *want, "{cell:?}");
        assert_eq!(c.status_invalid, *invalid, "{cell:?}");
        let codes: Vec<_> = c.warnings.iter().map(|w| w.code).collect();
        let expect: &[&str] = if *invalid { &["csv_bad_status"] } else { &[] };
        assert_eq!(codes, expect, "{cell:?}");
        if *invalid {
            assert!(
                c.warnings[0].message.contains("line"),
                "{}",
                c.warnings[0].message
            );
        }
    }
}

#[test]
fn csv_huge_cells_stream_in_every_column() {
    // A 104 MB cell in an unused column, then in the URL column: neither is held whole
    // (the URL is cut at its cap with a warning), and the next row is read normally.
    const SIZE: u64 = 104 * 1024 * 1024;
    let r = streamed(
        b"url,extra,body\nhttp://x/robots.txt,\"".to_vec(),
        SIZE,
        b'e',
        b"\",b1\nhttp://".to_vec(),
    );
    let r = Box::new(r.chain(std::io::repeat(b'u').take(SIZE)).chain(Cursor::new(
        b"/robots.txt,x,b2\r\nhttp://z/robots.txt,y,b3".to_vec(),
    )));
    let d = drain(open_read(r, "x.csv", &ReadOptions::default()).unwrap());
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.captures.len(), 3);
    assert_eq!(d.captures[0].body, b"b1");
    assert!(d.captures[0].warnings.is_empty());
    let c = &d.captures[1];
    assert_eq!(c.body, b"b2");
    assert_eq!(c.target_uri.len(), crate::limits::MAX_HEADER_BYTES);
    let codes: Vec<_> = c.warnings.iter().map(|w| w.code).collect();
    assert_eq!(codes, ["csv_field_cut"]);
    assert_eq!((c.line, d.captures[2].line), (3, 4));
    let row3 = 15 + 20 + SIZE + 6 + 7 + SIZE + 18;
    assert_eq!(d.captures[2].file_offset, row3);
}

#[test]
fn header_cut_by_zeros_or_by_the_next_record() {
    let recs: Vec<Vec<u8>> = (0..4).map(robots_record).collect();
    let start: usize = recs[0].len();
    // Zeros from the middle of record 1's header into its block.
    let mut file = recs.concat();
    file[start + 40..start + 300].fill(0);
    let d = open_bytes(file, "x.warc").unwrap();
    assert_eq!(uris(&d), [host_uri(0), host_uri(2), host_uri(3)]);
    let codes: Vec<_> = d.problems.iter().map(|p| p.code).collect();
    assert_eq!(codes, ["warc_bad_header"]);
    assert_eq!(d.problems[0].offset, start as u64);
    // Record 1 cut inside its header, record 2 right after: record 2 is not taken for
    // the rest of record 1's header.
    let file = [
        recs[0].clone(),
        recs[1][..60].to_vec(),
        b"\r\n".to_vec(),
        recs[2].clone(),
        recs[3].clone(),
    ]
    .concat();
    let d = open_bytes(file, "x.warc").unwrap();
    assert_eq!(uris(&d), [host_uri(0), host_uri(2), host_uri(3)]);
    assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
    assert!(d.problems[0].message.contains("another WARC/ line"));
}

#[test]
fn corrupt_member_that_ran_into_the_next_is_gone_back_over() {
    let members: Vec<Vec<u8>> = (0..5).map(|i| gzip(&robots_record(i))).collect();
    let want = [host_uri(0), host_uri(1), host_uri(3), host_uri(4)];
    // Member 2 cut short: its deflate decoder reads member 3 as its own data.
    let mut cut = members.clone();
    let half = cut[2].len() / 2;
    cut[2].truncate(half);
    // Member 2's only deflate block loses its BFINAL bit: the decoder goes on into
    // member 3 (the level-1 encoder writes one final block per small member).
    let mut open_ended = members.clone();
    open_ended[2][10] ^= 1;
    for (name, file) in [("cut", cut.concat()), ("bfinal", open_ended.concat())] {
        let d = open_bytes(file, "x.warc.gz").unwrap();
        assert_eq!(uris(&d), want, "{name}: {:?}", d.problems);
        assert_eq!(d.problems.len(), 1, "{name}: {:?}", d.problems);
    }
    // Damage before the first member of a .gz file: still read as gzip.
    let mut first = members.concat();
    first[0] ^= 0xff;
    let d = open_bytes(first, "x.warc.gz").unwrap();
    assert_eq!(
        uris(&d),
        [host_uri(1), host_uri(2), host_uri(3), host_uri(4)]
    );
    assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
}

#[test]
fn data_decoded_before_a_corrupt_point_is_kept() {
    // Whole-file gzip of many records, corrupted far into the stream: every record
    // decoded before the damage comes out, even the last ones before it.
    let plain: Vec<u8> = (0..2000).flat_map(robots_record).collect();
    let mut gz = gzip(&plain);
    let at = gz.len() * 3 / 4;
    gz[at..at + 64].fill(0);
    // What the intact prefix decodes to, independently.
    let mut prefix = Vec::new();
    let mut dec = flate2::read::GzDecoder::new(&gz[..at]);
    let _ = std::io::copy(&mut dec, &mut prefix);
    let intact = (0..2000)
        .take_while(|&i| {
            let end: usize = (0..=i).map(|j| robots_record(j).len()).sum();
            end <= prefix.len()
        })
        .count();
    assert!(intact > 1000, "{intact}");
    let d = open_bytes(gz, "x.warc.gz").unwrap();
    let got = uris(&d);
    let want: Vec<String> = (0..intact).map(host_uri).collect();
    assert_eq!(&got[..intact], want.as_slice());
}

#[test]
fn record_at_a_member_start_is_found_after_damage_without_a_line_break() {
    // Member 1 holds a record whose length runs 20 bytes into member 2 and whose data
    // does not end in a line break: member 2's record starts mid-line, but at a member
    // start, so it is still where the damaged record ends.
    let block = http_block("", b"User-agent: *\nDisallow: /x");
    let mut damaged = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://d.example/robots.txt\r\n\
         Content-Length: {}\r\n\r\n",
        block.len() + 20
    )
    .into_bytes();
    damaged.extend_from_slice(&block);
    let file = [
        gzip(&robots_record(0)),
        gzip(&damaged),
        gzip(&robots_record(2)),
        gzip(&robots_record(3)),
    ]
    .concat();
    let d = open_bytes(file, "x.warc.gz").unwrap();
    assert_eq!(
        uris(&d),
        [
            host_uri(0),
            "https://d.example/robots.txt".to_owned(),
            host_uri(2),
            host_uri(3)
        ]
    );
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.captures[1].body, b"User-agent: *\nDisallow: /x");
    assert_eq!(d.captures[1].warnings[0].code, "warc_length_mismatch");
}

#[test]
fn csv_damaged_quote_does_not_swallow_the_rows_after_it() {
    let body = |i: usize| format!("\"User-agent: *\nDisallow: /a{i}\nAllow: /b{i}\n\"");
    let rows: Vec<String> = (0..6)
        .map(|i| format!("https://h{i}.example/robots.txt,200,{}\n", body(i)))
        .collect();
    let clean = format!("url,status,body\n{}", rows.concat());
    for (name, damaged) in [
        // The opening quote of row 2's body is lost: its lines become rows.
        (
            "lost opening quote",
            clean.replacen(
                ",\"User-agent: *\nDisallow: /a2",
                ",User-agent: *\nDisallow: /a2",
                1,
            ),
        ),
        // A stray quote inside row 2's body: the real closing quote opens a field that
        // would run over row 3.
        (
            "stray quote",
            clean.replacen("Disallow: /a2", "Disallow: /\"a2", 1),
        ),
    ] {
        let d = open_bytes(damaged.into_bytes(), "x.csv").unwrap();
        let got = uris(&d);
        for i in [0, 1, 3, 4, 5] {
            let want = format!("https://h{i}.example/robots.txt");
            let c = d
                .captures
                .iter()
                .find(|c| c.target_uri == want)
                .unwrap_or_else(|| panic!("{name}: row {i} lost: {got:?}"));
            assert_eq!(
                c.body,
                body(i).trim_matches('"').as_bytes(),
                "{name}: row {i}"
            );
        }
        assert!(d.captures.len() <= 6, "{name}: {got:?}");
        assert_eq!(d.problems.len(), 1, "{name}: {:?}", d.problems);
        assert_eq!(d.problems[0].code, "csv_bad_row");
    }
}

#[test]
fn record_after_a_damaged_terminator_is_found() {
    // The LF just before record 2's version line is flipped: record 2 no longer starts a
    // line, yet it is read; the damaged byte is one reported range.
    let recs: Vec<Vec<u8>> = (0..4).map(robots_record).collect();
    let mut file = recs.concat();
    let at = recs[0].len() + recs[1].len() - 1;
    assert_eq!(file[at], b'\n');
    file[at] = b'x';
    let d = open_bytes(file, "x.warc").unwrap();
    assert_eq!(uris(&d), (0..4).map(host_uri).collect::<Vec<_>>());
    assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
}

#[test]
fn member_or_frame_cut_at_any_length_loses_only_its_record() {
    let records: Vec<Vec<u8>> = (0..5).map(robots_record).collect();
    let want = [host_uri(0), host_uri(1), host_uri(3), host_uri(4)];
    let gz: Vec<Vec<u8>> = records.iter().map(|r| gzip(r)).collect();
    let zst: Vec<Vec<u8>> = records
        .iter()
        .map(|r| zstd::encode_all(&r[..], 3).unwrap())
        .collect();
    for (units, hint) in [(gz, "x.warc.gz"), (zst, "x.warc.zst")] {
        for cut in 1..units[2].len() {
            let mut file = [units[0].clone(), units[1].clone()].concat();
            file.extend_from_slice(&units[2][..cut]);
            file.extend(units[3..].concat());
            let d = open_bytes(file, hint).unwrap();
            // Record 2 may still come out when its data decoded whole (only the end of
            // the unit was cut); then it carries the damage as a warning.
            let damaged = d.captures.iter().find(|c| c.target_uri == host_uri(2));
            let got: Vec<_> = uris(&d).into_iter().filter(|u| *u != host_uri(2)).collect();
            assert_eq!(got, want, "{hint} cut at {cut}: {:?}", d.problems);
            assert!(
                !d.problems.is_empty() || damaged.is_some_and(|c| !c.warnings.is_empty()),
                "{hint} cut at {cut}: the damage is reported: {} {:?} {:?}",
                d.events,
                d.skipped,
                d.captures
                    .iter()
                    .map(|c| (&c.target_uri, &c.warnings))
                    .collect::<Vec<_>>()
            );
            assert!(d.events <= 6, "{hint} cut at {cut}: {} events", d.events);
        }
    }
}

#[test]
fn member_whose_decoder_runs_to_the_end_gives_back_the_members_it_read() {
    // Member 2 is stored (deflate block type 0) and cut inside its first block: the
    // decoder takes members 3 and 4 as the rest of that block and meets the end of the
    // file without an error. Those members are still read, from their own starts.
    let big = record(
        "response",
        &host_uri(2),
        &http_block("", &b"Disallow: /x\n".repeat(4000)),
    );
    let mut e = GzEncoder::new(Vec::new(), flate2::Compression::none());
    e.write_all(&big).unwrap();
    let stored = e.finish().unwrap();
    let rest = [gzip(&robots_record(3)), gzip(&robots_record(4))].concat();
    // Stored, and declaring more bytes than are left after the cut.
    assert_eq!(stored[10] & 6, 0, "{:x}", stored[10]);
    let block_len = usize::from(u16::from_le_bytes([stored[11], stored[12]]));
    let cut = 15 + 1000;
    assert!(block_len > 1000 + rest.len(), "{block_len}");
    let file = [
        gzip(&robots_record(0)),
        gzip(&robots_record(1)),
        stored[..cut].to_vec(),
        rest,
    ]
    .concat();
    let d = open_bytes(file, "x.warc.gz").unwrap();
    assert_eq!(
        uris(&d),
        [host_uri(0), host_uri(1), host_uri(3), host_uri(4)],
        "{:?}",
        d.problems
    );
    assert!(!d.problems.is_empty());
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (the WARC samples): make test"
)]
fn deletion_over_a_member_boundary_keeps_the_later_members() {
    // make fuzz-inputs, seed 22, mutant 681: 1,024 bytes deleted from 402 bytes before the
    // end of one member of a per-record file. The cut member's decoder reads the rest of
    // the file without an error; the three responses after it must still come out.
    let name = "chatnoir-eu__chatnoir-resiliparse/warcfile.warc.gz";
    let file = std::fs::read(sample(name)).unwrap();
    let clean = open(&sample(name)).unwrap();
    let hit = clean
        .captures
        .iter()
        .find(|c| c.target_uri == "http://0760.jxtdw.com/area/sanxiang/")
        .unwrap();
    let at = (hit.file_offset + hit.file_length) as usize - 402;
    let damaged = [&file[..at], &file[at + 1024..]].concat();
    let d = open_bytes(damaged, name).unwrap();
    let without = |d: &Drained| -> Vec<String> {
        uris(d)
            .into_iter()
            .filter(|u| *u != hit.target_uri)
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(without(&d), without(&clean), "{:?}", d.problems);
    assert!(!d.problems.is_empty());
}

#[test]
fn damaged_first_version_line_is_still_a_warc() {
    // The first record's version line is blanked: the file is still read as WARC (not
    // as a CSV missing its columns) and only that record is lost.
    let mut file: Vec<u8> = (0..4).flat_map(robots_record).collect();
    file[3..19].fill(b'\n');
    let d = open_bytes(file, "x.warc").unwrap();
    assert_eq!(uris(&d), [host_uri(1), host_uri(2), host_uri(3)]);
    assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
}

#[test]
fn compression_magic_before_a_plain_warc_loses_no_record() {
    // Issue 22: four bytes of zstd magic (or two of gzip) written before a plain WARC made
    // the whole file one error row; now they are one problem and every record is read.
    for (magic, hint) in [
        (&[0x28, 0xb5, 0x2f, 0xfd][..], "x.warc"),
        (&[0x28, 0xb5, 0x2f, 0xfd, b'\r', b'\n'][..], "x"),
        (&[0x1f, 0x8b][..], "x.warc"),
    ] {
        let mut file = magic.to_vec();
        file.extend((0..4).flat_map(robots_record));
        let d = open_bytes(file, hint).unwrap();
        let all: Vec<String> = (0..4).map(host_uri).collect();
        assert_eq!(uris(&d), all, "{magic:x?} {hint}");
        assert_eq!(d.problems.len(), 1, "{magic:x?} {hint}: {:?}", d.problems);
        assert_eq!(d.problems[0].offset, 0, "{:?}", d.problems[0]);
    }
}

#[test]
fn compressed_csv_problems_name_their_member() {
    // Issue 22: a problem in a compressed CSV carried its decompressed position as the
    // file offset. Two gzip members: the bad row and the bad status are in the second,
    // so their rows name the second member's first byte; the messages keep the line.
    let first = b"url,status,body\nhttps://a.example/robots.txt,200,x\n".to_vec();
    let second = b"https://b.example/robots.txt,200\nhttps://c.example/robots.txt,200,y\n\
                   https://d.example/robots.txt,abc,z\n"
        .to_vec();
    let first_member = gzip(&first);
    let mut file = first_member.clone();
    file.extend(gzip(&second));
    let second_at = first_member.len() as u64;
    let d = open_bytes(file, "dump.csv.gz").unwrap();
    assert_eq!(d.captures.len(), 3);
    assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
    let bad_row = &d.problems[0];
    assert_eq!((bad_row.code, bad_row.offset), ("csv_bad_row", second_at));
    assert!(bad_row.message.contains("line 3"), "{}", bad_row.message);
    let warning = &d.captures[2].warnings[0];
    assert_eq!(
        (warning.code, warning.offset),
        ("csv_bad_status", second_at)
    );
    // Zstd frames alike; a plain CSV keeps the row's own offset.
    let mut zst = zstd::encode_all(&first[..], 3).unwrap();
    let zst_second = zst.len() as u64;
    zst.extend(zstd::encode_all(&second[..], 3).unwrap());
    let d = open_bytes(zst, "dump.csv.zst").unwrap();
    assert_eq!(d.problems[0].offset, zst_second);
    let mut plain = first.clone();
    plain.extend_from_slice(&second);
    let d = open_bytes(plain, "dump.csv").unwrap();
    assert_eq!(d.problems[0].offset, first.len() as u64);
}

/// What a streaming decoder writes of `cut`, a compressed file cut short before its
/// damage (`zstd -dc` / `gzip -dc` of the bytes before it): it stops with an error at
/// the cut, after every whole block (zstd) or symbol (deflate) before it.
fn decoded_prefix(cut: &[u8], zstd: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let ended = if zstd {
        std::io::copy(
            &mut zstd::stream::read::Decoder::new(cut).unwrap(),
            &mut out,
        )
    } else {
        std::io::copy(&mut flate2::read::GzDecoder::new(cut), &mut out)
    };
    ended.expect_err("the prefix is cut inside the stream");
    out
}

/// Does the decoder fail on `file`, a stream of `len` bytes, before its end (a decoding
/// error, not a checksum, CRC or size that does not match the data)?
fn stops_early(file: &[u8], zstd: bool, len: usize) -> bool {
    if zstd {
        let mut out = Vec::new();
        let ended = std::io::copy(
            &mut zstd::stream::read::Decoder::new(file).unwrap(),
            &mut out,
        );
        return ended.is_err() && out.len() < len;
    }
    // The deflate data after the 10-byte header `gzip()` writes.
    let mut out = vec![0; len + 1024];
    let mut inflate = flate2::Decompress::new(false);
    inflate
        .decompress(&file[10..], &mut out, flate2::FlushDecompress::Finish)
        .is_err()
}

/// How many of `units` (records or rows, in order) lie whole in the first `n` bytes.
fn whole_within(units: &[Vec<u8>], n: usize) -> usize {
    let mut end = 0;
    units
        .iter()
        .take_while(|u| {
            end += u.len();
            end <= n
        })
        .count()
}

/// One CSV row of a robots.txt dump.
fn csv_row(i: usize) -> Vec<u8> {
    format!(
        "{},200,\"User-agent: *\nDisallow: /private{i}/\n\"\n",
        host_uri(i)
    )
    .into_bytes()
}

#[test]
fn whole_file_zstd_keeps_the_records_decoded_before_the_damage() {
    // Issue 63: a file compressed as one zstd frame and damaged in the middle lost the
    // records decoded before the damage (the decoder reports no output for a call that
    // fails, and one call used to decode many blocks). WARC and CSV, zstd and gzip, a
    // bit flip and a run of LF bytes over the compressed data.
    let warc: Vec<Vec<u8>> = (0..4000).map(robots_record).collect();
    let mut csv = vec![b"url,status,body\n".to_vec()];
    csv.extend((0..4000).map(csv_row));
    for (units, name) in [(&warc, "x.warc"), (&csv, "x.csv")] {
        let plain = units.concat();
        for zstd in [true, false] {
            let compressed = if zstd {
                zstd::encode_all(&plain[..], 3).unwrap()
            } else {
                gzip(&plain)
            };
            for damage in ["flip", "lf"] {
                let damaged = |at: usize| {
                    let mut file = compressed.clone();
                    match damage {
                        "flip" => file[at] ^= 0x24,
                        _ => file[at..at + 635].fill(b'\n'),
                    }
                    file
                };
                // The first damage from the middle on that the decoder detects before
                // the end (other damage may decode to other bytes, or fail only the
                // checksum).
                let (at, file) = (compressed.len() / 2..compressed.len() - 700)
                    .map(|at| (at, damaged(at)))
                    .find(|(_, file)| stops_early(file, zstd, plain.len()))
                    .expect("damage the decoder detects");
                let case = format!("{name} zstd={zstd} {damage}");
                let prefix = decoded_prefix(&file[..at], zstd);
                let whole = whole_within(units, prefix.len());
                // The CSV header row is no capture.
                let skip = usize::from(name.ends_with(".csv"));
                let intact: Vec<String> = (0..whole - skip).map(host_uri).collect();
                assert!(intact.len() > 1000, "{case}: {}", intact.len());
                let hint = format!("{name}.{}", if zstd { "zst" } else { "gz" });
                let d = open_bytes(file, &hint).unwrap();
                let got = uris(&d);
                assert!(got.len() >= intact.len(), "{case}: {} captures", got.len());
                assert_eq!(&got[..intact.len()], intact.as_slice(), "{case}");
                // The damage is one problem at the frame's (member's) start, at the
                // decoded position reached, which its message gives.
                let code = if zstd {
                    "zstd_corrupt_frame"
                } else {
                    "gzip_corrupt_member"
                };
                let p = d.problems.iter().find(|p| p.code == code);
                let p = p.unwrap_or_else(|| panic!("{case}: {:?}", d.problems));
                assert_eq!(p.offset, 0, "{case}: {p:?}");
                let reached = p.stream_offset.expect("the decoded position");
                assert!(reached >= prefix.len() as u64, "{case}: {p:?}");
                let said = format!("decompressed stream byte {reached})");
                assert!(p.message.contains(&said), "{case}: {}", p.message);
            }
        }
    }
}

/// A response record with the given HTTP head lines and body.
fn response_with(i: usize, headers: &str, body: &[u8]) -> Vec<u8> {
    record("response", &host_uri(i), &http_block(headers, body))
}

#[test]
fn http_problems_of_compressed_inputs_name_their_member_or_frame() {
    // Issue 63: warnings found while reading a record's HTTP message carried their
    // decompressed position as the file offset (often past the end of the file). Now
    // each names the start of the member / frame holding the record (0 for a file
    // compressed as a whole) and keeps the decompressed position as its stream offset;
    // in a plain file, a byte inside the record.
    let gz_body = gzip(b"User-agent: *\nDisallow: /\n");
    let damaged = [
        (
            "chunked_malformed",
            response_with(
                1,
                "Transfer-Encoding: chunked\r\n",
                b"-5\r\nhello\r\n0\r\n\r\n",
            ),
        ),
        (
            "chunked_incomplete",
            response_with(2, "Transfer-Encoding: chunked\r\n", b"5\r\nhello\r\n"),
        ),
        (
            "content_decoding_incomplete",
            response_with(
                3,
                "Content-Encoding: gzip\r\n",
                &gz_body[..gz_body.len() / 2],
            ),
        ),
        (
            "content_decoding_failed",
            response_with(4, "Content-Encoding: deflate\r\n", b"not deflate at all"),
        ),
        (
            "http_bad_status_line",
            record(
                "response",
                &host_uri(5),
                b"HTTP/1.1 2x0 OK\r\n\r\nUser-agent: *\n",
            ),
        ),
    ];
    let mut records: Vec<Vec<u8>> = (0..12).map(robots_record).collect();
    for (i, (_, rec)) in damaged.iter().enumerate() {
        records[2 * i + 1] = rec.clone();
    }
    let plain = records.concat();
    let per_gz: Vec<Vec<u8>> = records.iter().map(|r| gzip(r)).collect();
    let per_zst: Vec<Vec<u8>> = records
        .iter()
        .map(|r| zstd::encode_all(&r[..], 3).unwrap())
        .collect();
    let layouts = [
        ("plain", plain.clone(), "x.warc"),
        ("gzip per record", per_gz.concat(), "x.warc.gz"),
        ("zstd per record", per_zst.concat(), "x.warc.zst"),
        ("gzip whole", gzip(&plain), "x.warc.gz"),
        (
            "zstd whole",
            zstd::encode_all(&plain[..], 3).unwrap(),
            "x.warc.zst",
        ),
    ];
    for (layout, file, hint) in layouts {
        let size = file.len() as u64;
        let d = open_bytes(file, hint).unwrap();
        assert_eq!(d.captures.len(), 12, "{layout}: {:?}", d.problems);
        assert!(d.problems.is_empty(), "{layout}: {:?}", d.problems);
        for (i, (code, rec)) in damaged.iter().enumerate() {
            let c = &d.captures[2 * i + 1];
            let codes: Vec<_> = c.warnings.iter().map(|w| w.code).collect();
            assert_eq!(codes, [*code], "{layout}");
            let w = &c.warnings[0];
            assert!(w.offset < size, "{layout} {code}: {w:?} in {size} bytes");
            // The record's bytes in the decompressed stream.
            let (from, to) = (c.stream_offset, c.stream_offset + rec.len() as u64);
            match layout {
                "plain" => {
                    assert!((from..to).contains(&w.offset), "{layout} {code}: {w:?}");
                    assert_eq!(w.stream_offset, None, "{layout} {code}");
                }
                _ => {
                    let unit = if layout.ends_with("whole") {
                        0
                    } else {
                        c.file_offset
                    };
                    assert_eq!(w.offset, unit, "{layout} {code}: {w:?}");
                    let at = w.stream_offset.expect("a compressed input keeps it");
                    assert!((from..to).contains(&at), "{layout} {code}: {w:?}");
                }
            }
        }
    }
}

#[test]
fn junk_before_the_first_member_of_a_compressed_csv_is_one_problem() {
    // Issue 63: damage before the header row of a compressed CSV (junk before its first
    // gzip member or zstd frame) made the whole input one row without an offset, and
    // none of its rows were read. Now the junk is a problem at byte 0 and every row is
    // read after it.
    let mut csv = b"url,status,body\n".to_vec();
    csv.extend((0..50).flat_map(csv_row));
    let want: Vec<String> = (0..50).map(host_uri).collect();
    let gzip_junk = b"\x1f\x8b".repeat(35_001);
    let nuls = [0u8; 16];
    for (junk, compressed, hint, code) in [
        (&nuls[..], gzip(&csv), "dump.csv.gz", "gzip_junk"),
        (
            &gzip_junk[..],
            gzip(&csv),
            "dump.csv.gz",
            "gzip_corrupt_member",
        ),
        (
            &nuls[..],
            zstd::encode_all(&csv[..], 3).unwrap(),
            "dump.csv.zst",
            "zstd_corrupt_frame",
        ),
    ] {
        let mut file = junk.to_vec();
        file.extend(compressed);
        let d = open_bytes(file, hint).unwrap();
        assert_eq!(uris(&d), want, "{hint} after {} junk bytes", junk.len());
        let found: Vec<_> = d.problems.iter().map(|p| (p.code, p.offset)).collect();
        assert_eq!(found, [(code, 0)], "{hint}: {:?}", d.problems);
    }
    // A whole-file zstd CSV damaged inside its header's block: no row can be read, and
    // the problem is one event with its offset, not an unreadable input.
    let mut file = zstd::encode_all(&csv[..], 3).unwrap();
    file[12..40].fill(0xff);
    let d = open_bytes(file, "dump.csv.zst").unwrap();
    assert!(d.captures.is_empty());
    let found: Vec<_> = d.problems.iter().map(|p| (p.code, p.offset)).collect();
    assert_eq!(found, [("zstd_corrupt_frame", 0)], "{:?}", d.problems);
}

/// A zstd frame of one raw block declaring `size` bytes, holding `data` (no checksum).
fn zstd_raw_frame(data: &[u8], size: usize) -> Vec<u8> {
    // Magic; descriptor: no content size, window descriptor present; window 2^17.
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38];
    let header = (size as u32) << 3 | 1; // Raw_Block, Last_Block
    f.extend_from_slice(&header.to_le_bytes()[..3]);
    f.extend_from_slice(data);
    f
}

#[test]
fn zstd_frame_that_runs_to_the_end_gives_back_the_frames_it_read() {
    // A frame whose block size is damaged takes the frames after it as its own data up
    // to the end of the file, without a decoding error: those frames are read again
    // from the first one among the bytes it read (as for a gzip member, above).
    let records: Vec<Vec<u8>> = (0..6).map(robots_record).collect();
    let frames: Vec<Vec<u8>> = records
        .iter()
        .map(|r| zstd::encode_all(&r[..], 3).unwrap())
        .collect();
    let mut file = frames[..2].concat();
    let damaged_at = file.len() as u64;
    // Record 2's frame says its raw block runs 60 KiB, past the end of the file: its
    // data (the record, then the later frames' bytes) is returned as it streams in.
    file.extend(zstd_raw_frame(&records[2], 60 * 1024));
    file.extend(frames[3..].concat());
    // The same frame with its true size is valid.
    let valid = zstd_raw_frame(&records[2], records[2].len());
    let d = open_bytes([&frames[..2].concat()[..], &valid].concat(), "x.warc.zst").unwrap();
    assert_eq!(uris(&d), [host_uri(0), host_uri(1), host_uri(2)]);
    let d = open_bytes(file, "x.warc.zst").unwrap();
    let want: Vec<String> = (0..6).map(host_uri).collect();
    assert_eq!(uris(&d), want, "{:?}", d.problems);
    let found: Vec<_> = d.problems.iter().map(|p| (p.code, p.offset)).collect();
    assert_eq!(
        found,
        [("zstd_corrupt_frame", damaged_at)],
        "{:?}",
        d.problems
    );
}

#[test]
fn problems_of_an_empty_block_are_inside_its_record() {
    // A Content-Length of 0 before a block's bytes: the record is its header alone, and
    // its missing status line is located at the record, not at the byte after it (the
    // start of the bytes that follow, reported as a problem of their own).
    let mut file: Vec<u8> = (0..2).flat_map(robots_record).collect();
    let rec = robots_record(2);
    let cl: i64 = String::from_utf8_lossy(&rec)
        .split("Content-Length: ")
        .nth(1)
        .and_then(|r| r.split('\r').next())
        .unwrap()
        .parse()
        .unwrap();
    file.extend(record_with_length_delta(2, -cl));
    file.extend((3..5).flat_map(robots_record));
    let d = open_bytes(file, "x.warc").unwrap();
    let c = d
        .captures
        .iter()
        .find(|c| c.target_uri == host_uri(2))
        .expect("the record of the empty block");
    let w = c
        .warnings
        .iter()
        .find(|w| w.code == "http_bad_status_line")
        .expect("no status line");
    let record = c.file_offset..c.file_offset + c.file_length;
    assert!(record.contains(&w.offset), "{w:?} outside {record:?}");
}
