//! Damaged inputs end to end (issue 10, part 2): each test builds its own damaged
//! file, runs the binary and reads the `documents` / `errors` / `agents` tables and the
//! manifest back. Every intact record must be present with its URL and body hash, every
//! skipped byte range must be an error row, and `records_seen = documents + skipped +
//! problems` must hold with each record counted once.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use sha1::Digest;

use crate::support::{bin, http_block, ids, input_reports, ints, read_table, scratch, strings};

/// One record of a test file: its WARC-Type, URL and robots.txt body.
struct Rec {
    warc_type: &'static str,
    url: String,
    body: Vec<u8>,
}

impl Rec {
    fn response(i: usize) -> Self {
        Rec {
            warc_type: "response",
            url: format!("https://h{i}.example/robots.txt"),
            body: format!("User-agent: *\nDisallow: /p{i}/\n").into_bytes(),
        }
    }

    fn request(i: usize) -> Self {
        Rec {
            warc_type: "request",
            url: format!("https://h{i}.example/robots.txt"),
            body: Vec::new(),
        }
    }

    /// The plain WARC bytes of the record, with `delta` added to its Content-Length.
    fn warc(&self, delta: i64) -> Vec<u8> {
        let block = match self.warc_type {
            "response" => http_block(200, &self.body),
            _ => b"GET /robots.txt HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        };
        let declared = block.len() as i64 + delta;
        let mut r = format!(
            "WARC/1.0\r\nWARC-Type: {}\r\nWARC-Record-ID: <urn:uuid:{}-{}>\r\n\
             WARC-Date: 2026-11-01T00:00:00Z\r\nWARC-Target-URI: {}\r\n\
             Content-Type: application/http\r\nContent-Length: {declared}\r\n\r\n",
            self.warc_type, self.url, self.warc_type, self.url
        )
        .into_bytes();
        r.extend_from_slice(&block);
        r.extend_from_slice(b"\r\n\r\n");
        r
    }
}

fn sha1_hex(bytes: &[u8]) -> String {
    sha1::Sha1::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).expect("gzip");
    e.finish().expect("gzip")
}

/// What one run produced for one input.
struct Outcome {
    code: Option<i32>,
    manifest: serde_json::Value,
    /// url -> (doc_id, content_sha1)
    docs: BTreeMap<String, (String, Option<String>)>,
    doc_count: usize,
    /// (doc_id, code, file_offset, message) of the input error rows.
    errors: Vec<(Option<String>, String, Option<i64>, String)>,
    out: PathBuf,
}

impl Outcome {
    fn n(&self, key: &str) -> u64 {
        self.manifest[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}"))
    }

    fn codes(&self) -> Vec<&str> {
        self.errors.iter().map(|e| e.1.as_str()).collect()
    }

    /// Accounting holds, and each of `intact` is a document with its URL and body hash.
    fn assert_intact(&self, intact: &[&Rec]) {
        assert_eq!(
            self.n("records_seen"),
            self.n("documents") + self.n("skipped_total") + self.n("problems"),
            "seen = documents + skipped + problems: {}",
            self.manifest
        );
        assert_eq!(self.doc_count as u64, self.n("documents"));
        for r in intact.iter().filter(|r| r.warc_type == "response") {
            let (_, sha) = self
                .docs
                .get(&r.url)
                .unwrap_or_else(|| panic!("intact record {} is missing", r.url));
            assert_eq!(
                sha.as_deref(),
                Some(sha1_hex(&r.body).as_str()),
                "{}",
                r.url
            );
        }
    }
}

/// Writes `bytes` to `name` in a fresh scratch dir, runs `robots-census run` on it.
fn census(test: &str, name: &str, bytes: &[u8], extra: &[&str]) -> Outcome {
    let dir = scratch(&format!("damaged-{test}"));
    let input = dir.join(name);
    std::fs::write(&input, bytes).expect("write input");
    let out = dir.join("out");
    let output = bin()
        .arg("run")
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .args(extra)
        .output()
        .expect("run robots-census");
    let code = output.status.code();
    assert!(
        matches!(code, Some(0..=2)),
        "{code:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let manifest = if out.join("_manifests").exists() {
        input_reports(&out).into_iter().next().unwrap_or_default()
    } else {
        serde_json::Value::default()
    };
    let documents = read_table(&out, "documents");
    let urls = strings(&documents, "url");
    let doc_ids = ids(&documents, "doc_id");
    let shas = strings(&documents, "content_sha1");
    let doc_count = urls.len();
    let docs = urls
        .into_iter()
        .zip(doc_ids)
        .zip(shas)
        .map(|((u, id), sha)| (u.unwrap_or_default(), (id.unwrap_or_default(), sha)))
        .collect();
    let errors = read_table(&out, "errors");
    let origin = strings(&errors, "origin");
    let errors = ids(&errors, "doc_id")
        .into_iter()
        .zip(strings(&errors, "code"))
        .zip(ints(&errors, "file_offset"))
        .zip(strings(&errors, "message"))
        .zip(origin)
        .filter(|(_, o)| o.as_deref() == Some("input"))
        .map(|((((d, c), o), m), _)| (d, c.unwrap_or_default(), o, m.unwrap_or_default()))
        .collect();
    Outcome {
        code,
        manifest,
        docs,
        doc_count,
        errors,
        out,
    }
}

/// Alternating request / response records, Common Crawl style.
fn crawl(n: usize) -> Vec<Rec> {
    (0..n)
        .map(|i| {
            if i % 2 == 0 {
                Rec::request(i / 2)
            } else {
                Rec::response(i / 2)
            }
        })
        .collect()
}

#[test]
fn zero_or_lf_filled_record_is_an_error_row() {
    for (fill, name) in [(0u8, "nul"), (b'\n', "lf")] {
        let recs = crawl(12);
        let bytes: Vec<Vec<u8>> = recs.iter().map(|r| r.warc(0)).collect();
        let mut file = bytes.concat();
        // Blank out record 5 (a response) entirely.
        let start: usize = bytes[..5].iter().map(Vec::len).sum();
        file[start..start + bytes[5].len()].fill(fill);
        let o = census(name, "blank.warc", &file, &[]);
        assert_eq!(o.code, Some(1), "{name}: a skipped range makes exit 1");
        let intact: Vec<&Rec> = recs
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 5)
            .map(|(_, r)| r)
            .collect();
        o.assert_intact(&intact);
        assert!(!o.docs.contains_key(&recs[5].url));
        assert_eq!(o.n("records_seen"), 12, "{name}: 11 records and one range");
        assert_eq!(o.codes(), ["warc_padding"], "{name}");
        let (doc_id, _, offset, message) = &o.errors[0];
        assert_eq!(*doc_id, None);
        // The run starts at the end of record 4's block: its CRLF CRLF, then the blank.
        assert_eq!(*offset, Some(start as i64 - 4));
        let len = bytes[5].len() + 4;
        assert!(message.contains(&format!("{len} bytes")), "{message}");
        let strict = census(
            &format!("{name}-strict"),
            "blank.warc",
            &file,
            &["--strict"],
        );
        assert_eq!(strict.code, Some(2), "{name}: --strict fails the run");
    }
}

#[test]
fn cut_in_half_and_zero_padded_warc_exits_1() {
    let recs = crawl(61);
    let bytes: Vec<Vec<u8>> = recs.iter().map(|r| r.warc(0)).collect();
    let mut file = bytes.concat();
    let len = file.len();
    file.truncate(len / 2);
    file.resize(len, 0);
    let o = census("half", "half.warc", &file, &[]);
    assert_eq!(o.code, Some(1));
    let mut end = 0;
    let intact: Vec<&Rec> = recs
        .iter()
        .zip(&bytes)
        .take_while(|(_, b)| {
            end += b.len();
            end <= len / 2
        })
        .map(|(r, _)| r)
        .collect();
    assert!(intact.len() > 25);
    o.assert_intact(&intact);
    // The zeros are one reported range that runs to the end of the file (a padding
    // row, or the bad header of the record the cut fell in).
    let to_end = format!("..{len} of the file");
    let ranges: Vec<_> = o.errors.iter().filter(|e| e.3.contains(&to_end)).collect();
    assert_eq!(ranges.len(), 1, "{:?}", o.errors);
    assert!(o.n("problems") >= 1);
}

#[test]
fn content_length_too_large_keeps_the_later_records() {
    let recs = crawl(20);
    // Record 7 (a response) claims 700 bytes more: it would swallow the next records.
    let file: Vec<u8> = recs
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r.warc(if i == 7 { 700 } else { 0 }))
        .collect();
    let o = census("long", "long.warc", &file, &[]);
    assert_eq!(
        o.code,
        Some(0),
        "nothing skipped: the damaged record is kept"
    );
    let all: Vec<&Rec> = recs.iter().collect();
    o.assert_intact(&all);
    assert_eq!(o.n("records_seen"), 20);
    assert_eq!(o.n("documents"), 10);
    // The damaged record is marked, by doc_id, and holds only its own rules.
    let (damaged_id, _) = o.docs[&recs[7].url].clone();
    assert_eq!(o.errors.len(), 1, "{:?}", o.errors);
    assert_eq!(o.errors[0].0, Some(damaged_id));
    assert_eq!(o.errors[0].1, "warc_length_mismatch");
    let docs = read_table(&o.out, "documents");
    let disallows: Vec<_> = ints(&docs, "n_disallow");
    assert!(disallows.iter().all(|n| *n == Some(1)), "{disallows:?}");
}

#[test]
fn bad_gzip_crc_counts_the_record_once() {
    let recs: Vec<Rec> = (0..81).map(Rec::response).collect();
    let mut file = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let mut member = gzip(&r.warc(0));
        if i == 40 {
            let at = member.len() - 8;
            member[at] ^= 0xff; // the CRC32 of the trailer
        }
        file.extend(member);
    }
    let o = census("crc", "crc.warc.gz", &file, &[]);
    let all: Vec<&Rec> = recs.iter().collect();
    o.assert_intact(&all);
    assert_eq!(o.n("records_seen"), 81);
    assert_eq!((o.n("documents"), o.n("problems")), (81, 0));
    assert_eq!(o.code, Some(0), "the record is kept: a warning, not a skip");
    let (id, _) = o.docs[&recs[40].url].clone();
    assert_eq!(o.errors.len(), 1, "{:?}", o.errors);
    assert_eq!(
        (o.errors[0].0.clone(), o.errors[0].1.as_str()),
        (Some(id), "gzip_crc_mismatch")
    );
}

#[test]
fn zstd_long_window_file_is_read() {
    // What `zstd --long=27` writes for a stream: one frame, a 128 MiB window, no content
    // size; over 8 MiB of records so the window really is needed.
    let recs: Vec<Rec> = (0..2_400)
        .map(|i| {
            let mut r = Rec::response(i);
            r.body.extend(format!("# {}\n", "x".repeat(4000)).bytes());
            r
        })
        .collect();
    let warc: Vec<u8> = recs.iter().flat_map(|r| r.warc(0)).collect();
    assert!(warc.len() > 9 << 20);
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 1).expect("encoder");
    enc.long_distance_matching(true).expect("ldm");
    enc.window_log(27).expect("window");
    enc.write_all(&warc).expect("compress");
    let file = enc.finish().expect("compress");
    let o = census("zstd-long", "long.warc.zst", &file, &[]);
    assert_eq!(o.code, Some(0), "{:?}", o.errors);
    let all: Vec<&Rec> = recs.iter().collect();
    o.assert_intact(&all);
    assert_eq!(o.n("documents"), 2_400);
}

#[test]
fn bad_csv_statuses_are_warned_and_not_classified() {
    // (status cell, expected http_status, expected classification of GPTBot)
    let rows = [
        ("200", Some(200), "full_disallow"),
        ("404.0", Some(404), "no_robots"),
        (" 503 ", Some(503), "unreachable"),
        ("HTTP/1.1 404 Not Found", Some(404), "no_robots"),
        ("abc", None, "unknown"),
        ("-1", None, "unknown"),
        ("99999999999", None, "unknown"),
        ("1e3", None, "unknown"),
        ("", None, "full_disallow"),
    ];
    let mut csv = String::from("url,status,body\n");
    for (i, (status, _, _)) in rows.iter().enumerate() {
        csv +=
            &format!("https://h{i}.example/robots.txt,{status},\"User-agent: *\nDisallow: /\n\"\n");
    }
    let o = census(
        "csv-status",
        "dump.csv",
        csv.as_bytes(),
        &["--agents", "GPTBot"],
    );
    assert_eq!(o.code, Some(0), "warnings only");
    assert_eq!(o.n("documents"), rows.len() as u64);
    let docs = read_table(&o.out, "documents");
    let statuses = ints(&docs, "http_status");
    let agents = read_table(&o.out, "agents");
    let classes: BTreeMap<String, String> = ids(&agents, "doc_id")
        .into_iter()
        .zip(strings(&agents, "classification"))
        .map(|(d, c)| (d.unwrap_or_default(), c.unwrap_or_default()))
        .collect();
    let mut warned = Vec::new();
    for (i, (cell, status, class)) in rows.iter().enumerate() {
        let url = format!("https://h{i}.example/robots.txt");
        let (id, _) = o.docs[&url].clone();
        assert_eq!(statuses[i].map(|s| s as u16), *status, "{cell:?}");
        assert_eq!(classes[&id], *class, "{cell:?}");
        if *class == "unknown" {
            warned.push(Some(id));
        }
    }
    let bad: Vec<_> = o
        .errors
        .iter()
        .filter(|e| e.1 == "csv_bad_status")
        .map(|e| e.0.clone())
        .collect();
    assert_eq!(bad, warned, "one warning per bad cell, linked by doc_id");
    // Not parsed: no rules rows for the unclassified captures.
    let rules = read_table(&o.out, "rules");
    let ruled: Vec<_> = ids(&rules, "doc_id");
    assert!(warned.iter().all(|id| !ruled.contains(id)));
}

/// Record `i`'s start offset in the concatenation of `bytes`.
fn start_of(bytes: &[Vec<u8>], i: usize) -> usize {
    bytes[..i].iter().map(Vec::len).sum()
}

#[test]
fn content_length_landing_one_byte_before_a_later_record_keeps_the_records_between() {
    // Issue 22: a Content-Length that ends its block inside a later record's CRLF CRLF
    // (one byte before its version line) "landed cleanly" and swallowed every record in
    // between, with exit 0 and no warning. Plain, whole-file gzip and zstd, per-record gzip.
    let recs = crawl(24);
    let plain: Vec<Vec<u8>> = recs.iter().map(|r| r.warc(0)).collect();
    // Record 5 (a response) is declared to end 1 byte before record 17's version line.
    let header_len = {
        let r = &plain[5];
        r.windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("header end")
            + 4
    };
    let block_start = start_of(&plain, 5) + header_len;
    let declared_end = start_of(&plain, 17) - 1;
    let true_block = plain[5].len() - header_len - 4;
    let delta = (declared_end - block_start) as i64 - true_block as i64;
    let damaged: Vec<Vec<u8>> = recs
        .iter()
        .enumerate()
        .map(|(i, r)| r.warc(if i == 5 { delta } else { 0 }))
        .collect();
    let file = damaged.concat();
    let per_record: Vec<u8> = damaged.iter().flat_map(|r| gzip(r)).collect();
    let whole_zstd = zstd::encode_all(&file[..], 3).expect("zstd");
    for (name, bytes) in [
        ("plain.warc", file.clone()),
        ("whole.warc.gz", gzip(&file)),
        ("records.warc.gz", per_record),
        ("whole.warc.zst", whole_zstd),
    ] {
        let o = census("cl-near-boundary", name, &bytes, &[]);
        assert_eq!(
            o.code,
            Some(0),
            "{name}: the damaged record is kept, nothing skipped"
        );
        let all: Vec<&Rec> = recs.iter().collect();
        o.assert_intact(&all);
        assert_eq!(o.n("records_seen"), 24, "{name}");
        assert_eq!(
            o.codes(),
            ["warc_length_mismatch"],
            "{name}: {:?}",
            o.errors
        );
        assert_eq!(
            o.errors[0].0,
            Some(o.docs[&recs[5].url].0.clone()),
            "{name}"
        );
    }
}

#[test]
fn a_byte_run_over_headers_is_an_error_row_and_the_records_after_it_are_read() {
    // Issue 22: 0xFF bytes from the middle of one header to the middle of a later one
    // made a single header of both (with the later record's Content-Length): the records
    // in between vanished with exit 0 and no errors row.
    let recs = crawl(30);
    let bytes: Vec<Vec<u8>> = recs.iter().map(|r| r.warc(0)).collect();
    let mut file = bytes.concat();
    let from = start_of(&bytes, 9) + 40; // inside record 9's WARC header
    let to = start_of(&bytes, 16) + 120; // inside record 16's WARC header
    file[from..to].fill(0xff);
    let o = census("ff-run", "ff.warc", &file, &[]);
    assert_eq!(
        o.code,
        Some(1),
        "a skipped range makes exit 1: {:?}",
        o.errors
    );
    // Records 9..=16 touch the damage; every other record is intact.
    let intact: Vec<&Rec> = recs
        .iter()
        .enumerate()
        .filter(|(i, _)| !(9..=16).contains(i))
        .map(|(_, r)| r)
        .collect();
    o.assert_intact(&intact);
    let bad: Vec<_> = o
        .errors
        .iter()
        .filter(|e| e.1 == "warc_bad_header")
        .collect();
    assert_eq!(bad.len(), 1, "{:?}", o.errors);
    assert_eq!(bad[0].2, Some(start_of(&bytes, 9) as i64));
    let range = format!("bytes {}..{}", start_of(&bytes, 9), start_of(&bytes, 17));
    assert!(bad[0].3.contains(&range), "{}", bad[0].3);
    for r in recs[10..16].iter().filter(|r| r.warc_type == "response") {
        assert!(!o.docs.contains_key(&r.url), "{} lies in the damage", r.url);
    }
}

/// `data` as one zstd frame with a content checksum (what `zstd` writes by default).
fn zstd_with_checksum(data: &[u8]) -> Vec<u8> {
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).expect("encoder");
    enc.include_checksum(true).expect("checksum flag");
    enc.write_all(data).expect("zstd");
    enc.finish().expect("zstd")
}

#[test]
fn a_bad_zstd_checksum_keeps_every_record_with_a_warning() {
    // Issue 22: a whole-file .warc.zst whose only damage was its content checksum kept
    // 276 of 304 documents: the decoder's checksum error came before its last blocks
    // were handed out. The reader now checks XXH64 itself and keeps the data.
    let recs = crawl(400);
    let file: Vec<u8> = recs.iter().flat_map(|r| r.warc(0)).collect();
    let mut whole = zstd_with_checksum(&file);
    let last = whole.len() - 1;
    whole[last] ^= 0xff; // the stored checksum's last byte
    let o = census("zstd-checksum", "whole.warc.zst", &whole, &[]);
    assert_eq!(
        o.code,
        Some(0),
        "a kept record's warning does not change the exit code"
    );
    let all: Vec<&Rec> = recs.iter().collect();
    o.assert_intact(&all);
    assert_eq!(o.n("documents"), 200);
    assert_eq!(o.codes(), ["zstd_checksum_mismatch"], "{:?}", o.errors);
    // The warning belongs to the record holding the frame's last byte: the last one.
    assert_eq!(o.errors[0].0, Some(o.docs[&recs[399].url].0.clone()));

    // Intact checksums, one frame per record: no warning (the computed XXH64 is right).
    let per_record: Vec<u8> = recs
        .iter()
        .flat_map(|r| zstd_with_checksum(&r.warc(0)))
        .collect();
    let o = census("zstd-checksum-ok", "records.warc.zst", &per_record, &[]);
    assert_eq!(o.code, Some(0));
    assert!(o.errors.is_empty(), "{:?}", o.errors);
    o.assert_intact(&all);
}

#[test]
fn a_zstd_frame_over_the_window_cap_is_an_error_row_unless_the_flag_raises_it() {
    // Issue 22: a 45,786-byte frame declaring a 2^31 window peaked at 1.48 GB. The default
    // cap is 2^27; a frame asking for more is a row naming the flag, and the next frame
    // is read.
    let recs = crawl(40);
    let bytes: Vec<Vec<u8>> = recs.iter().map(|r| r.warc(0)).collect();
    let mut big = zstd::stream::Encoder::new(Vec::new(), 1).expect("encoder");
    big.long_distance_matching(true).expect("ldm");
    big.window_log(31).expect("window");
    big.write_all(&bytes[..20].concat()).expect("compress");
    let mut file = big.finish().expect("compress");
    let first_frame = file.len();
    file.extend(zstd::encode_all(&bytes[20..].concat()[..], 3).expect("zstd"));
    let o = census("zstd-window", "bomb.warc.zst", &file, &[]);
    assert_eq!(o.code, Some(1), "{:?}", o.errors);
    assert_eq!(o.codes(), ["zstd_corrupt_frame"]);
    assert_eq!(o.errors[0].2, Some(0), "the frame's file offset");
    assert!(
        o.errors[0].3.contains("--zstd-window-log-max"),
        "{}",
        o.errors[0].3
    );
    assert!(
        o.errors[0].3.contains(&format!("0..{first_frame}")),
        "{}",
        o.errors[0].3
    );
    let after: Vec<&Rec> = recs[20..].iter().collect();
    o.assert_intact(&after);
    assert_eq!(o.n("documents"), 10);
    let raised = census(
        "zstd-window-31",
        "bomb.warc.zst",
        &file,
        &["--zstd-window-log-max", "31"],
    );
    assert_eq!(raised.code, Some(0), "{:?}", raised.errors);
    raised.assert_intact(&recs.iter().collect::<Vec<_>>());
}

#[test]
fn a_few_bytes_before_the_first_member_do_not_lose_the_file() {
    // Issue 22: 4 bytes of zstd magic, a `WARC/1.0` line or 70 KB of CRLF before a
    // per-record .warc.gz made the whole file one error row. The start is junk (a row
    // naming its length, exit 1) and every record after it is read.
    let recs = crawl(30);
    let file: Vec<u8> = recs.iter().flat_map(|r| gzip(&r.warc(0))).collect();
    let crlf = b"\r\n".repeat(35_000);
    for (name, junk) in [
        ("zstd-magic", &[0x28u8, 0xb5, 0x2f, 0xfd][..]),
        ("warc-line", &b"WARC/1.0\r\n"[..]),
        ("crlf", &crlf[..]),
    ] {
        let bytes = [junk, &file[..]].concat();
        let o = census(&format!("junk-start-{name}"), "junk.warc.gz", &bytes, &[]);
        assert_eq!(o.code, Some(1), "{name}: {:?}", o.errors);
        o.assert_intact(&recs.iter().collect::<Vec<_>>());
        assert_eq!(o.n("documents"), 15, "{name}");
        assert_eq!(o.codes(), ["gzip_junk"], "{name}");
        assert_eq!(o.errors[0].2, Some(0), "{name}");
        assert!(
            o.errors[0].3.starts_with(&format!("{} bytes", junk.len())),
            "{name}: {}",
            o.errors[0].3
        );
    }
}

#[test]
fn a_warc_line_inside_a_csv_body_does_not_make_it_a_warc() {
    // Issue 22: a `WARC/1.0` line in a body within the first 64 KiB turned the CSV into
    // a WARC: every row lost.
    let mut csv = String::from("url,status,body\n");
    for i in 0..40 {
        let extra = if i == 2 {
            "WARC/1.0\r\nWARC-Type: response\r\n"
        } else {
            ""
        };
        csv.push_str(&format!(
            "https://c{i}.example/robots.txt,200,\"User-agent: *\nDisallow: /c{i}\n{extra}\"\n"
        ));
    }
    let o = census("csv-warc-line", "dump.csv", csv.as_bytes(), &[]);
    assert_eq!(o.code, Some(0), "{:?}", o.errors);
    assert_eq!(o.doc_count, 40);
    assert!(o.docs.contains_key("https://c2.example/robots.txt"));
}

#[test]
fn a_header_without_content_length_right_before_the_next_record_keeps_that_record() {
    // Issue 22 (byte 555 of warcio's example.warc.gz set to 0): a damaged member decoded
    // to a header without a valid Content-Length that ended exactly where the next
    // member's record starts; the resync skipped that record's version line as "the spot
    // that just failed", and the intact record after the damage was lost.
    let recs = crawl(12);
    let mut bytes: Vec<Vec<u8>> = recs.iter().map(|r| r.warc(0)).collect();
    bytes[4] = b"WARC/1.0\r\nWARC-Type: request\r\nWARC-Record-ID: <urn:uuid:x>\r\n\r\n".to_vec();
    let members: Vec<Vec<u8>> = bytes.iter().map(|r| gzip(r)).collect();
    for (name, file, offset) in [
        ("plain.warc", bytes.concat(), start_of(&bytes, 4)),
        // errors.file_offset is a byte of the file: the member start (issue 22; it was
        // the position in the decompressed stream).
        ("records.warc.gz", members.concat(), start_of(&members, 4)),
    ] {
        let o = census("no-length-then-record", name, &file, &[]);
        assert_eq!(o.code, Some(1), "{name}");
        let intact: Vec<&Rec> = recs
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 4)
            .map(|(_, r)| r)
            .collect();
        o.assert_intact(&intact);
        assert_eq!(o.n("records_seen"), 12, "{name}");
        assert_eq!(o.codes(), ["warc_bad_header"], "{name}");
        assert!(
            o.errors[0].3.contains("skipped 0 bytes"),
            "{name}: {}",
            o.errors[0].3
        );
        assert_eq!(o.errors[0].2, Some(offset as i64), "{name}");
    }
}
