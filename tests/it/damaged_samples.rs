//! Damaged samples end to end (issue 63): the eight files of
//! `../shared/reviews/damaged-inputs/` (behind `external-tests`), and the same classes of
//! damage built here from `data-samples/` so that plain `cargo test` covers them too.
//!
//! Each test runs the binary on one file and checks the documents kept against what an
//! independent decoder gives of the undamaged bytes (`zstd -dc` / `gzip -dc` of the
//! prefix before the damage, by the zstd and flate2 crates; records found by walking
//! the WARC headers or parsing the CSV here), and every input row of `errors`: its
//! `file_offset` is a byte of the file, the start of the gzip member or zstd frame
//! holding the problem (found here by decoding the file unit by unit), and its
//! `stream_offset` lies inside that unit's data and inside the record it is about.

use std::io::{Read, Write};
use std::ops::Range;

use sha1::Digest;

use crate::support::{bin, ids, ints, read_table, repo, scratch, shared, strings};

// ---------------------------------------------------------------- running

/// A document: URL, content SHA-1, stream offset, file offset.
#[derive(Debug, Clone)]
struct Doc {
    id: String,
    url: String,
    sha1: Option<String>,
    stream_offset: u64,
    file_offset: u64,
}

/// An input row of `errors`.
#[derive(Debug, Clone)]
struct Problem {
    doc_id: Option<String>,
    code: String,
    file_offset: Option<u64>,
    stream_offset: Option<u64>,
    message: String,
}

struct Run {
    size: u64,
    docs: Vec<Doc>,
    problems: Vec<Problem>,
}

impl Run {
    fn urls(&self) -> Vec<&str> {
        self.docs.iter().map(|d| d.url.as_str()).collect()
    }

    fn doc(&self, id: &str) -> &Doc {
        self.docs
            .iter()
            .find(|d| d.id == id)
            .unwrap_or_else(|| panic!("no document {id}"))
    }

    /// The problems as (code, file_offset).
    fn located(&self) -> Vec<(&str, Option<u64>)> {
        self.problems
            .iter()
            .map(|p| (p.code.as_str(), p.file_offset))
            .collect()
    }

    /// Every problem names a byte of the file.
    fn assert_offsets_in_file(&self) {
        for p in &self.problems {
            let at = p
                .file_offset
                .unwrap_or_else(|| panic!("no file_offset: {p:?}"));
            assert!(at < self.size, "{p:?} outside a {}-byte file", self.size);
        }
    }
}

/// Runs `robots-census run` on `file` (named `name`) and reads the tables back.
fn run(test: &str, name: &str, file: &[u8]) -> Run {
    let dir = scratch(&format!("damaged-samples-{test}"));
    let input = dir.join(name);
    std::fs::write(&input, file).expect("write input");
    let out = dir.join("out");
    let output = bin()
        .args(["run", "--quiet", "--out"])
        .arg(&out)
        .arg(&input)
        .output()
        .expect("run robots-census");
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{test}: {:?} {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let documents = read_table(&out, "documents");
    let docs = ids(&documents, "doc_id")
        .into_iter()
        .zip(strings(&documents, "url"))
        .zip(strings(&documents, "content_sha1"))
        .zip(ints(&documents, "stream_offset"))
        .zip(ints(&documents, "file_offset"))
        .map(|((((id, url), sha1), so), fo)| Doc {
            id: id.expect("doc_id"),
            url: url.unwrap_or_default(),
            sha1,
            stream_offset: so.expect("stream_offset") as u64,
            file_offset: fo.expect("file_offset") as u64,
        })
        .collect();
    let errors = read_table(&out, "errors");
    let problems = ids(&errors, "doc_id")
        .into_iter()
        .zip(strings(&errors, "code"))
        .zip(ints(&errors, "file_offset"))
        .zip(ints(&errors, "stream_offset"))
        .zip(strings(&errors, "message"))
        .zip(strings(&errors, "origin"))
        .filter(|(_, origin)| origin.as_deref() == Some("input"))
        .map(|(((((doc_id, code), fo), so), message), _)| Problem {
            doc_id,
            code: code.unwrap_or_default(),
            file_offset: fo.map(|o| o as u64),
            stream_offset: so.map(|o| o as u64),
            message: message.unwrap_or_default(),
        })
        .collect();
    Run {
        size: file.len() as u64,
        docs,
        problems,
    }
}

// ---------------------------------------------------------------- independent decoding

/// One gzip member or zstd frame: its bytes in the file, its data in the stream.
#[derive(Debug, Clone)]
struct Unit {
    file: Range<u64>,
    data: Range<u64>,
}

/// The members of an intact multi-member gzip file, and its data.
fn gzip_units(file: &[u8]) -> (Vec<Unit>, Vec<u8>) {
    let (mut units, mut plain) = (Vec::new(), Vec::new());
    let mut at = 0;
    while at < file.len() {
        let mut rest = &file[at..];
        let mut data = Vec::new();
        flate2::bufread::GzDecoder::new(&mut rest)
            .read_to_end(&mut data)
            .expect("an intact gzip member");
        let end = file.len() - rest.len();
        let out = plain.len() as u64;
        units.push(Unit {
            file: at as u64..end as u64,
            data: out..out + data.len() as u64,
        });
        plain.extend(data);
        at = end;
    }
    (units, plain)
}

/// The frames of an intact zstd file, and its data.
fn zstd_units(file: &[u8]) -> (Vec<Unit>, Vec<u8>) {
    let (mut units, mut plain) = (Vec::new(), Vec::new());
    let mut at = 0;
    while at < file.len() {
        let len =
            zstd::zstd_safe::find_frame_compressed_size(&file[at..]).expect("an intact zstd frame");
        let data = zstd::decode_all(&file[at..at + len]).expect("a frame that decodes");
        let out = plain.len() as u64;
        units.push(Unit {
            file: at as u64..(at + len) as u64,
            data: out..out + data.len() as u64,
        });
        plain.extend(data);
        at += len;
    }
    (units, plain)
}

/// What a streaming decoder writes of `cut`, a compressed file cut before its damage
/// (`zstd -dc` / `gzip -dc` of those bytes): it ends with an error at the cut.
fn decoded_prefix(cut: &[u8], zstd: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let ended = if zstd {
        std::io::copy(
            &mut zstd::stream::read::Decoder::new(cut).expect("zstd decoder"),
            &mut out,
        )
    } else {
        std::io::copy(&mut flate2::read::GzDecoder::new(cut), &mut out)
    };
    ended.expect_err("the prefix is cut inside the stream");
    out
}

/// One WARC record found by walking the headers of a decompressed stream.
#[derive(Debug, Clone)]
struct Record {
    range: Range<u64>,
    warc_type: String,
    uri: String,
}

/// The complete records at the start of `data` (a WARC stream, maybe cut short).
fn warc_records(data: &[u8]) -> Vec<Record> {
    let mut records = Vec::new();
    let mut at = 0;
    while data[at..].starts_with(b"WARC/") {
        let Some(head_len) = data[at..].windows(4).position(|w| w == b"\r\n\r\n") else {
            break;
        };
        let head = String::from_utf8_lossy(&data[at..at + head_len]);
        let field = |name: &str| {
            head.lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
                .map(|v| v.trim().to_owned())
                .unwrap_or_default()
        };
        let length: usize = field("Content-Length").parse().expect("Content-Length");
        let end = at + head_len + 4 + length + 4;
        if end > data.len() {
            break;
        }
        records.push(Record {
            range: at as u64..end as u64,
            warc_type: field("WARC-Type"),
            uri: field("WARC-Target-URI"),
        });
        at = end;
    }
    records
}

/// The URIs of the records that are documents (responses: the samples hold no
/// revisit or robots.txt resource records).
fn response_uris(records: &[Record]) -> Vec<&str> {
    records
        .iter()
        .filter(|r| r.warc_type == "response")
        .map(|r| r.uri.as_str())
        .collect()
}

/// The rows of a CSV dump (url, SHA-1 of the body) whose line end lies in `data`; the
/// last row of a stream cut short is left out, whole or not.
fn csv_rows(data: &[u8], cut: bool) -> Vec<(String, String)> {
    let mut rdr = ::csv::ReaderBuilder::new().from_reader(data);
    let headers = rdr.byte_headers().expect("header row").clone();
    let col = |name: &[u8]| {
        headers
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {}", name.escape_ascii()))
    };
    let (url, body) = (col(b"url"), col(b"body"));
    let mut rows: Vec<(String, String)> = rdr
        .byte_records()
        .map(|r| {
            let r = r.expect("a CSV row");
            // content_sha1 is of the parsed bytes: at most 512,000 (schemas/README.md).
            let parsed = r[body].get(..512_000).unwrap_or(&r[body]);
            let sha = sha1::Sha1::digest(parsed);
            let hex = sha.iter().map(|b| format!("{b:02x}")).collect();
            (String::from_utf8_lossy(&r[url]).into_owned(), hex)
        })
        .collect();
    if cut {
        rows.pop();
    }
    rows
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).expect("gzip");
    e.finish().expect("gzip")
}

fn zstd(data: &[u8]) -> Vec<u8> {
    zstd::encode_all(data, 3).expect("zstd")
}

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(repo().join("data-samples").join(name)).expect("data-samples file")
}

fn review_file(name: &str) -> Vec<u8> {
    let path = shared().join("reviews/damaged-inputs").join(name);
    std::fs::read(path).expect("../shared/reviews/damaged-inputs file")
}

/// `MultiGzDecoder` of a multi-member gzip file.
fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(data)
        .read_to_end(&mut out)
        .expect("gzip -dc");
    out
}

// ---------------------------------------------------------------- checks

/// A file compressed as one zstd frame or gzip member, damaged from byte `at` on: every
/// record decoded from the bytes before `at` is a document, with nothing after it (no
/// later unit), and the damage is one problem at the unit's start (0) whose stream
/// offset and message give the decoded position reached.
fn check_whole_file(run: &Run, file: &[u8], at: usize, zstd: bool, csv: bool) {
    let prefix = decoded_prefix(&file[..at], zstd);
    let (want, got): (Vec<String>, Vec<String>) = if csv {
        let rows = csv_rows(&prefix, true);
        let got = run
            .docs
            .iter()
            .map(|d| format!("{} {}", d.url, d.sha1.as_deref().unwrap_or("")))
            .collect();
        (rows.iter().map(|(u, s)| format!("{u} {s}")).collect(), got)
    } else {
        let records = warc_records(&prefix);
        let want = response_uris(&records)
            .iter()
            .map(|u| u.to_string())
            .collect();
        (want, run.urls().iter().map(|u| u.to_string()).collect())
    };
    // The CSV sample has 26 rows, the WARC sample 304 responses.
    assert!(want.len() >= 5, "a real prefix: {} records", want.len());
    assert_eq!(got, want, "the documents are the records before the damage");
    let code = if zstd {
        "zstd_corrupt_frame"
    } else {
        "gzip_corrupt_member"
    };
    let breaks: Vec<&Problem> = run.problems.iter().filter(|p| p.code == code).collect();
    assert_eq!(breaks.len(), 1, "{:?}", run.problems);
    let p = breaks[0];
    assert_eq!(p.file_offset, Some(0), "{p:?}");
    let reached = p.stream_offset.expect("the decoded position reached");
    assert!(reached >= prefix.len() as u64, "{p:?}");
    let said = format!("decompressed stream byte {reached})");
    assert!(p.message.contains(&said), "{}", p.message);
    run.assert_offsets_in_file();
}

/// A file whose units are all intact (the damage is inside HTTP messages): every
/// response is a document, and every problem is a warning on its document, located at
/// the start of the unit whose data holds its stream offset, which lies inside that
/// document's record. Returns the codes of the warnings.
fn check_http_warnings(run: &Run, units: &[Unit], plain: &[u8]) -> Vec<String> {
    let records = warc_records(plain);
    assert_eq!(
        records.last().map(|r| r.range.end),
        Some(plain.len() as u64),
        "the walk reached the end"
    );
    assert_eq!(run.urls(), response_uris(&records));
    run.assert_offsets_in_file();
    assert!(!run.problems.is_empty());
    for p in &run.problems {
        let doc = run.doc(p.doc_id.as_deref().expect("a warning of a document"));
        let at = p.stream_offset.expect("a compressed input keeps it");
        let unit = units
            .iter()
            .find(|u| u.data.contains(&at))
            .expect("a unit holds the stream offset");
        assert_eq!(p.file_offset, Some(unit.file.start), "{p:?} in {unit:?}");
        let record = records
            .iter()
            .find(|r| r.range.contains(&at))
            .expect("a record holds it");
        assert_eq!(record.range.start, doc.stream_offset, "{p:?}: its document");
        assert_eq!(record.uri, doc.url);
        if unit.data.start == doc.stream_offset {
            // A record that starts its member or frame: the document names it too.
            assert_eq!(p.file_offset, Some(doc.file_offset), "{p:?}: {doc:?}");
        }
    }
    run.problems.iter().map(|p| p.code.clone()).collect()
}

/// A compressed CSV with junk before its first member / frame: every row is a document
/// and the junk is one problem at byte 0.
fn check_junk_before_csv(run: &Run, data: &[u8], code: &str) {
    let rows = csv_rows(data, false);
    let got: Vec<(String, String)> = run
        .docs
        .iter()
        .map(|d| (d.url.clone(), d.sha1.clone().unwrap_or_default()))
        .collect();
    assert_eq!(got, rows);
    assert_eq!(run.located(), [(code, Some(0))], "{:?}", run.problems);
}

// ---------------------------------------------------------------- building damage

/// The plain WARC of the bundled Common Crawl sample, cut into its records.
fn sample_records() -> Vec<Vec<u8>> {
    let plain = gunzip(&sample("cc-robotstxt-sample.warc.gz"));
    warc_records(&plain)
        .iter()
        .map(|r| plain[r.range.start as usize..r.range.end as usize].to_vec())
        .collect()
}

/// `record` (a response) with its HTTP head given `header` and its body replaced by
/// `body`, the WARC Content-Length set to match.
fn with_http(record: &[u8], header: &str, body: &[u8]) -> Vec<u8> {
    let head_len = record
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("head")
        + 4;
    let block = &record[head_len..record.len() - 4];
    let http_len = block
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("HTTP head")
        + 2;
    let mut http = block[..http_len].to_vec();
    http.extend_from_slice(header.as_bytes());
    // The header's line end, then the blank line that ends the head.
    http.extend_from_slice(b"\r\n\r\n");
    http.extend_from_slice(body);
    let head = String::from_utf8_lossy(&record[..head_len]);
    let head: String = head
        .split_inclusive("\r\n")
        .map(|l| {
            if l.starts_with("Content-Length:") {
                format!("Content-Length: {}\r\n", http.len())
            } else {
                l.to_owned()
            }
        })
        .collect();
    [head.as_bytes(), &http, b"\r\n\r\n"].concat()
}

/// The index of the `n`-th response among `records`.
fn nth_response(records: &[Vec<u8>], n: usize) -> usize {
    records
        .iter()
        .enumerate()
        .filter(|(_, r)| r.windows(19).any(|w| w == b"WARC-Type: response"))
        .nth(n)
        .map(|(i, _)| i)
        .expect("enough responses")
}

/// The first damage from `from` on (every 61st byte: a decoder check costs a decode of
/// the whole file), made by `damage`, that the decoder detects before the end of the
/// stream (damage can decode to other bytes without an error).
fn detected_damage(
    compressed: &[u8],
    from: usize,
    zstd: bool,
    damage: impl Fn(&mut [u8], usize),
) -> (usize, Vec<u8>) {
    let len = if zstd {
        zstd::decode_all(compressed).expect("intact").len()
    } else {
        gunzip(compressed).len()
    };
    (from..compressed.len() - 1024)
        .step_by(61)
        .map(|at| {
            let mut file = compressed.to_vec();
            damage(&mut file, at);
            (at, file)
        })
        .find(|(_, file)| {
            let mut out = Vec::new();
            if zstd {
                let mut dec = zstd::stream::read::Decoder::new(&file[..]).expect("decoder");
                std::io::copy(&mut dec, &mut out).is_err() && out.len() < len
            } else {
                // The deflate data after gzip's 10-byte header: an error inside it, not
                // a CRC that does not match.
                let mut inflate = flate2::Decompress::new(false);
                out.resize(len + 1024, 0);
                inflate
                    .decompress(&file[10..], &mut out, flate2::FlushDecompress::Finish)
                    .is_err()
            }
        })
        .expect("damage the decoder detects")
}

fn flip_two_bits(file: &mut [u8], at: usize) {
    file[at] ^= 0x21;
}

/// A way to damage a file at a byte.
type Damage = fn(&mut [u8], usize);

fn lf_run(file: &mut [u8], at: usize) {
    file[at..at + 635].fill(b'\n');
}

// ---------------------------------------------------------------- built from data-samples

#[test]
fn whole_file_zstd_and_gzip_keep_the_records_before_the_damage() {
    // Issue 63: one zstd frame for the whole file, damaged inside: the records decoded
    // before the damage were lost (76 of 119 kept for the review's WARC, 31 of 119 for
    // its CSV). Gzip too, and CSV and WARC, a flip and a run of LF.
    let warc = gunzip(&sample("cc-robotstxt-sample.warc.gz"));
    let csv = gunzip(&sample("robots-dump.csv.gz"));
    for (plain, name, csv) in [(&warc, "whole.warc", false), (&csv, "whole.csv", true)] {
        for zstd_file in [true, false] {
            let compressed = if zstd_file { zstd(plain) } else { gzip(plain) };
            let damages: [(&str, Damage); 2] = [("flip", flip_two_bits), ("lf", lf_run)];
            for (what, damage) in damages {
                let (at, file) =
                    detected_damage(&compressed, compressed.len() * 3 / 5, zstd_file, damage);
                let name = format!("{name}.{}", if zstd_file { "zst" } else { "gz" });
                let r = run(&format!("whole-{what}"), &name, &file);
                check_whole_file(&r, &file, at, zstd_file, csv);
            }
        }
    }
}

#[test]
fn http_warnings_of_compressed_samples_name_their_member_or_frame() {
    // Issue 63: warnings found in a record's HTTP message carried their decompressed
    // position as the file offset (past the end of the file, or outside the record's
    // member). The review's four cases, built from the Common Crawl sample: a negative
    // chunk size (one gzip member per record), no last chunk (one zstd frame per
    // record), a gzip Content-Encoding cut short (a zstd frame per 10 records), a
    // deflate Content-Encoding that is not deflate (one frame for the whole file).
    let records = sample_records();
    let gz_body = gzip(b"User-agent: *\nDisallow: /private/\n");
    let cases: [(&str, &str, &[u8], &str, usize); 4] = [
        (
            "Transfer-Encoding: chunked",
            "chunked_malformed",
            b"-1a\r\nUser-agent: *\r\n0\r\n\r\n",
            "per-record.warc.gz",
            1,
        ),
        (
            "Transfer-Encoding: chunked",
            "chunked_incomplete",
            b"11\r\nUser-agent: *\nDis\r\n",
            "per-record.warc.zst",
            1,
        ),
        (
            "Content-Encoding: gzip",
            "content_decoding_incomplete",
            &gz_body[..gz_body.len() / 2],
            "per-frame.warc.zst",
            10,
        ),
        (
            "Content-Encoding: deflate",
            "content_decoding_failed",
            b"User-agent: *\nDisallow: /\n",
            "whole.warc.zst",
            usize::MAX,
        ),
    ];
    for (header, code, body, name, per_unit) in cases {
        let mut records = records.clone();
        for n in [13, 100, 140] {
            let k = nth_response(&records, n);
            records[k] = with_http(&records[k], header, body);
        }
        let units: Vec<Vec<u8>> = records
            .chunks(per_unit.min(records.len()))
            .map(|c| {
                if name.ends_with(".gz") {
                    gzip(&c.concat())
                } else {
                    zstd(&c.concat())
                }
            })
            .collect();
        let file = units.concat();
        let (units, plain) = if name.ends_with(".gz") {
            gzip_units(&file)
        } else {
            zstd_units(&file)
        };
        assert_eq!(plain, records.concat());
        let r = run(code, name, &file);
        assert_eq!(check_http_warnings(&r, &units, &plain), [code; 3], "{name}");
    }
}

#[test]
fn junk_before_the_first_member_of_the_csv_sample() {
    // Issue 63: 16 NUL bytes, or 70,002 bytes of gzip magic, before the first member of
    // a .csv.gz gave one error row with no offset and no document.
    let file = sample("robots-dump.csv.gz");
    let csv = gunzip(&file);
    for (junk, code) in [
        (vec![0u8; 16], "gzip_junk"),
        (b"\x1f\x8b".repeat(35_001), "gzip_corrupt_member"),
    ] {
        let r = run(code, "dump.csv.gz", &[&junk[..], &file].concat());
        check_junk_before_csv(&r, &csv, code);
    }
}

// ---------------------------------------------------------------- the review's files

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/reviews/damaged-inputs: make test"
)]
fn review_whole_zstd_csv_bitflip() {
    let file = review_file("whole-zstd-csv-bitflip.csv.zst");
    // Two bits flipped at byte 193,028 (README.md).
    let r = run("review-csv-bitflip", "cc.csv.zst", &file);
    check_whole_file(&r, &file, 193_028, true, true);
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/reviews/damaged-inputs: make test"
)]
fn review_whole_zstd_warc_lf_run() {
    let file = review_file("whole-zstd-warc-lf-run.warc.zst");
    // 635 bytes of LF from byte 218,696 (README.md).
    let r = run("review-lf-run", "cc.warc.zst", &file);
    check_whole_file(&r, &file, 218_696, true, false);
}

/// A review file whose units are intact: the warnings check of [`check_http_warnings`].
fn review_http_warning(name: &str, code: &str) {
    let file = review_file(name);
    let (units, plain) = if name.ends_with(".gz") {
        gzip_units(&file)
    } else {
        zstd_units(&file)
    };
    // Named apart from the tests built from data-samples, which run at the same time.
    let r = run(&format!("review-{code}"), name, &file);
    assert_eq!(check_http_warnings(&r, &units, &plain), [code]);
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/reviews/damaged-inputs: make test"
)]
fn review_per_record_zstd_chunked_no_last_chunk() {
    review_http_warning(
        "per-record-zstd-chunked-no-last-chunk.warc.zst",
        "chunked_incomplete",
    );
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/reviews/damaged-inputs: make test"
)]
fn review_per_frame_zstd_content_encoding_truncated() {
    review_http_warning(
        "per-frame-zstd-content-encoding-truncated.warc.zst",
        "content_decoding_incomplete",
    );
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/reviews/damaged-inputs: make test"
)]
fn review_whole_zstd_content_encoding_lie() {
    review_http_warning(
        "whole-zstd-content-encoding-lie.warc.zst",
        "content_decoding_failed",
    );
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/reviews/damaged-inputs: make test"
)]
fn review_per_record_gzip_chunked_negative_size() {
    review_http_warning(
        "per-record-gzip-chunked-negative-size.warc.gz",
        "chunked_malformed",
    );
}

/// A review `.csv.gz` with `junk` bytes before its first member.
fn review_junk_before_csv(name: &str, junk: usize, code: &str) {
    let file = review_file(name);
    let csv = gunzip(&file[junk..]);
    let r = run(&format!("review-{code}"), name, &file);
    check_junk_before_csv(&r, &csv, code);
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/reviews/damaged-inputs: make test"
)]
fn review_csv_gz_nul_prefix() {
    // 16 NUL bytes before the first member (README.md).
    review_junk_before_csv("csv-gz-nul-prefix.csv.gz", 16, "gzip_junk");
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/reviews/damaged-inputs: make test"
)]
fn review_csv_gz_junk_gzip_magic_prefix() {
    // 70,002 bytes of gzip-magic junk before the first member (README.md).
    review_junk_before_csv(
        "csv-gz-junk-gzip-magic-prefix.csv.gz",
        70_002,
        "gzip_corrupt_member",
    );
}

#[test]
fn only_an_input_that_cannot_be_opened_has_no_offset() {
    // A file that cannot be opened has no byte to name; one whose content cannot be
    // read (an unsupported format, a CSV without the columns) names where it stopped.
    let dir = scratch("damaged-samples-unreadable");
    let missing = dir.join("no-such-file.warc.gz");
    let lz4 = dir.join("x.warc.lz4");
    std::fs::write(&lz4, b"\x04\x22\x4d\x18\x64\x40\xa7 and then lz4 data").expect("write");
    let no_url = dir.join("x.csv.gz");
    std::fs::write(&no_url, gzip(b"host,body\nexample.com,x\n")).expect("write");
    let out = dir.join("out");
    let status = bin()
        .args(["run", "--quiet", "--out"])
        .arg(&out)
        .args([&missing, &lz4, &no_url])
        .status()
        .expect("run robots-census");
    assert_eq!(status.code(), Some(1));
    let errors = read_table(&out, "errors");
    let mut rows: Vec<(String, String, Option<i64>)> = strings(&errors, "source")
        .into_iter()
        .zip(strings(&errors, "code"))
        .zip(ints(&errors, "file_offset"))
        .map(|((s, c), o)| (s.unwrap_or_default(), c.unwrap_or_default(), o))
        .collect();
    rows.sort();
    let name = |p: &std::path::Path| p.display().to_string();
    let mut want = vec![
        (name(&missing), "input_unreadable".to_owned(), None),
        (name(&lz4), "input_unsupported".to_owned(), Some(0)),
        (name(&no_url), "csv_missing_column".to_owned(), Some(0)),
    ];
    want.sort();
    assert_eq!(rows, want);
}
