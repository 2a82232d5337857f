//! End-to-end runs of the binary on real samples and on hostile inputs built
//! here; the Parquet output is read back and checked row by row.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Output;

use robots_census_engine::RobotsTxt;

use crate::support::{
    bin, bools, corpus_files, gz_record, http_block, ids, input_reports, ints, parts, read_table,
    repo, scratch, shared, strings, tree,
};

fn run(args: &[&str]) -> Output {
    bin()
        .arg("run")
        .args(args)
        .output()
        .expect("run robots-census")
}

fn run_ok(inputs: &[PathBuf], out: &Path, extra: &[&str]) -> Output {
    let mut cmd = bin();
    cmd.arg("run")
        .args(inputs)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(extra);
    let output = cmd.output().expect("run robots-census");
    let code = output.status.code();
    assert!(
        matches!(code, Some(0 | 1)),
        "run failed ({code:?}): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn manifests(out: &Path) -> Vec<serde_json::Value> {
    input_reports(out)
}

fn shared_warcs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in std::fs::read_dir(shared().join("corpus/warc"))
        .expect("warc dir")
        .flatten()
    {
        if dir.path().is_dir() {
            files.extend(
                dir.path()
                    .read_dir()
                    .expect("warc subdir")
                    .flatten()
                    .map(|e| e.path()),
            );
        }
    }
    files.sort();
    files
}

/// Counts per WARC-Type from the shared manifest's `record_types` column (`a=1;b=2`).
fn manifest_types() -> HashMap<String, BTreeMap<String, u64>> {
    let mut reader =
        csv::Reader::from_path(shared().join("corpus/warc/manifest.csv")).expect("manifest.csv");
    let headers = reader.headers().expect("header").clone();
    let col = |name: &str| headers.iter().position(|h| h == name).expect("column");
    let (file, types) = (col("file"), col("record_types"));
    reader
        .records()
        .flatten()
        .map(|r| {
            let counts = r[types]
                .split(';')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_owned(), v.parse().unwrap_or(0)))
                .collect();
            (r[file].to_owned(), counts)
        })
        .collect()
}

#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus/warc (real WARC samples and their manifest.csv): make test"
)]
fn every_shared_warc_sample_is_accounted_for() {
    let out = scratch("shared-warcs").join("out");
    let inputs = shared_warcs();
    run_ok(&inputs, &out, &[]);
    let docs = read_table(&out, "documents");
    let sources = strings(&docs, "source");
    let expected = manifest_types();
    let all = manifests(&out);
    assert_eq!(all.len(), inputs.len(), "one manifest per input");
    for m in &all {
        let source = m["source"].as_str().expect("source");
        let n = |k: &str| m[k].as_u64().expect(k);
        assert_eq!(
            n("records_seen"),
            n("documents") + n("skipped_total") + n("problems"),
            "{source}: seen = documents + skipped + errors"
        );
        let rows = sources
            .iter()
            .filter(|s| s.as_deref() == Some(source))
            .count() as u64;
        assert_eq!(rows, n("documents"), "{source}: documents rows");
        let key = source.split("corpus/warc/").nth(1).expect("relative name");
        let Some(types) = expected.get(key) else {
            continue;
        };
        let want = types.get("response").copied().unwrap_or(0)
            + types.get("revisit").copied().unwrap_or(0);
        if key.ends_with(".lz4") {
            assert_eq!(
                (n("documents"), m["unreadable"].as_bool()),
                (0, Some(true)),
                "{source}: lz4 is refused as one problem"
            );
        } else if key.contains("clipped") {
            assert!(
                n("problems") >= 1,
                "{source}: a clipped file reports its truncation"
            );
        } else {
            assert_eq!(
                n("documents"),
                want,
                "{source}: documents = responses + revisits per manifest.csv"
            );
        }
    }
    // Every document row's status agrees with a response having a status.
    let statuses = ints(&docs, "http_status");
    let kinds = strings(&docs, "record_kind");
    for (status, kind) in statuses.iter().zip(&kinds) {
        if kind.as_deref() == Some("response") {
            assert!(
                status.is_some_and(|s| (100..600).contains(&s)),
                "response without a status"
            );
        }
    }
}

/// Decompresses exactly `file[offset..offset+length]` (one gzip member).
fn refetch(file: &[u8], offset: i64, length: i64) -> Vec<u8> {
    let member = &file[offset as usize..(offset + length) as usize];
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(member)
        .read_to_end(&mut out)
        .expect("member decompresses alone");
    out
}

#[test]
fn sample_run_offsets_refetch_records_and_verdicts_recheck() {
    let out = scratch("samples").join("out");
    let warc = repo().join("data-samples/cc-robotstxt-sample.warc.gz");
    let csv_dump = repo().join("data-samples/robots-dump.csv.gz");
    let output = run_ok(
        &[warc.clone(), csv_dump.clone()],
        &out,
        &["--paths", "/,/private/x"],
    );
    assert_eq!(output.status.code(), Some(0), "clean samples exit 0");

    let docs = read_table(&out, "documents");
    let file = std::fs::read(&warc).expect("sample");
    let (record_ids, offsets, lengths) = (
        strings(&docs, "warc_record_id"),
        ints(&docs, "file_offset"),
        ints(&docs, "file_length"),
    );
    let sources = strings(&docs, "source");
    let mut refetched = 0;
    for i in 0..docs.iter().map(|b| b.num_rows()).sum() {
        if sources[i].as_deref() != Some(&*warc.to_string_lossy()) {
            continue;
        }
        let record = refetch(
            &file,
            offsets[i].expect("offset"),
            lengths[i].expect("length"),
        );
        assert!(
            record.starts_with(b"WARC/1.0\r\n"),
            "record {i} refetched from its offset"
        );
        let id = record_ids[i].as_deref().expect("record id");
        assert!(
            memchr::memmem::find(&record, id.as_bytes()).is_some(),
            "record {i} is {id}"
        );
        refetched += 1;
    }
    assert_eq!(
        refetched, 304,
        "264 robots.txt responses + 40 error responses"
    );

    // Verdicts of the CSV rows, re-asked of the engine from the CSV bodies.
    let mut bodies: HashMap<String, Vec<u8>> = HashMap::new();
    let mut reader = csv::Reader::from_reader(flate2::read::GzDecoder::new(
        std::fs::File::open(&csv_dump).expect("csv"),
    ));
    let urls: Vec<(String, Vec<u8>)> = reader
        .byte_records()
        .flatten()
        .map(|r| (String::from_utf8_lossy(&r[0]).into_owned(), r[2].to_vec()))
        .collect();
    let doc_urls = strings(&docs, "url");
    let doc_ids = ids(&docs, "doc_id");
    for (url, body) in &urls {
        let i = doc_urls
            .iter()
            .position(|u| u.as_deref() == Some(url))
            .expect("CSV row has a document");
        bodies.insert(doc_ids[i].clone().expect("doc_id"), body.clone());
    }
    let verdicts = read_table(&out, "verdicts");
    let (v_doc, v_agent, v_url) = (
        ids(&verdicts, "doc_id"),
        strings(&verdicts, "agent"),
        strings(&verdicts, "url"),
    );
    let (v_allowed, v_line) = (bools(&verdicts, "allowed"), ints(&verdicts, "line"));
    let mut checked = 0;
    for i in 0..v_doc.len() {
        let Some(body) = v_doc[i].as_ref().and_then(|d| bodies.get(d)) else {
            continue;
        };
        let doc = RobotsTxt::parse(body);
        let agent = v_agent[i].as_deref().expect("agent");
        let want = doc.verdict(
            agent.as_bytes(),
            v_url[i].as_deref().expect("url").as_bytes(),
        );
        assert_eq!(
            (v_allowed[i], v_line[i]),
            (Some(want.allowed), Some(i64::from(want.line))),
            "verdict row {i}"
        );
        checked += 1;
    }
    let agents =
        robots_census::internals::parse_agent_list(robots_census::internals::DEFAULT_AGENTS).len();
    assert_eq!(
        checked,
        urls.len() * agents * 2,
        "every CSV document x agent x path re-checked"
    );
}

#[test]
fn threads_do_not_change_the_output() {
    let dir = scratch("threads");
    let inputs = [
        repo().join("data-samples/cc-robotstxt-sample.warc.gz"),
        repo().join("data-samples/IAH-urls-wget.warc.gz"),
        repo().join("data-samples/robots-dump.csv.gz"),
    ];
    run_ok(&inputs, &dir.join("one"), &["--threads", "1"]);
    run_ok(&inputs, &dir.join("two"), &["--threads", "2"]);
    assert_eq!(tree(&dir.join("one")), tree(&dir.join("two")));
}

/// `--tables` leaves tables out without changing the ones written: documents,
/// errors and agents hold the same bytes as in a full run.
#[test]
fn tables_flag_writes_only_the_tables_asked_for() {
    let dir = scratch("tables-flag");
    let inputs = [
        repo().join("data-samples/cc-robotstxt-sample.warc.gz"),
        repo().join("data-samples/robots-dump.csv.gz"),
    ];
    run_ok(&inputs, &dir.join("all"), &[]);
    run_ok(&inputs, &dir.join("some"), &["--tables", "agents"]);
    let all = tree(&dir.join("all"));
    let some = tree(&dir.join("some"));
    let tables: std::collections::BTreeSet<&str> =
        some.keys().filter_map(|k| k.split('/').next()).collect();
    assert_eq!(
        tables,
        [
            "_dataset.json",
            "_manifests",
            "agents",
            "documents",
            "errors"
        ]
        .into_iter()
        .collect()
    );
    for (path, bytes) in &some {
        if !path.starts_with('_') {
            assert!(
                all.get(path) == Some(bytes),
                "{path} differs from the full run"
            );
        }
    }
    let bad = run(&["x.warc.gz", "--out", "unused", "--tables", "rule"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown table \"rule\""));
}

/// An input large enough for several reading chunks and several row groups per
/// table: the bytes written still do not depend on the thread count, and every
/// rule of every document lands once, in record order.
#[test]
#[cfg_attr(
    not(feature = "external-tests"),
    ignore = "needs ../shared/corpus (400 real robots.txt bodies): make test"
)]
fn many_chunks_and_row_groups_are_deterministic_and_complete() {
    let dir = scratch("row-groups");
    let bodies: Vec<Vec<u8>> = corpus_files()
        .iter()
        .take(400)
        .map(|path| std::fs::read(path).expect("corpus body"))
        .collect();
    let mut warc = Vec::new();
    let mut expected_rules = Vec::new();
    for i in 0..6000 {
        let body = &bodies[i % bodies.len()];
        let uri = format!("https://host{i}.example/robots.txt");
        warc.extend(gz_record("response", &uri, &http_block(200, body)));
        let doc = RobotsTxt::parse(body);
        expected_rules.push(doc.rules.len() + doc.others.len());
    }
    let input = dir.join("big.warc.gz");
    std::fs::write(&input, &warc).expect("write input");
    run_ok(
        std::slice::from_ref(&input),
        &dir.join("one"),
        &["--threads", "1"],
    );
    run_ok(
        std::slice::from_ref(&input),
        &dir.join("two"),
        &["--threads", "2"],
    );
    assert_eq!(tree(&dir.join("one")), tree(&dir.join("two")));

    let rules_parts = parts(&dir.join("one"), "rules");
    let rules_part = rules_parts.first().expect("a rules part");
    let reader = parquet::file::reader::SerializedFileReader::new(
        std::fs::File::open(rules_part).expect("open part"),
    )
    .expect("parquet part");
    use parquet::file::reader::FileReader;
    let total: usize = expected_rules.iter().sum();
    assert!(total > 2 * 128 * 1024, "input too small: {total} rules");
    assert!(reader.metadata().num_row_groups() >= 2);

    let docs = read_table(&dir.join("one"), "documents");
    let urls = strings(&docs, "url");
    assert_eq!(urls.len(), 6000);
    for (i, url) in urls.iter().enumerate() {
        assert_eq!(
            url.as_deref(),
            Some(format!("https://host{i}.example/robots.txt").as_str())
        );
    }
    // Rules rows come grouped by document, in record order, with each document's count.
    let doc_ids = ids(&docs, "doc_id");
    let rule_doc_ids = ids(&read_table(&dir.join("one"), "rules"), "doc_id");
    assert_eq!(rule_doc_ids.len(), total);
    let mut at = 0;
    for (doc_id, n) in doc_ids.iter().zip(&expected_rules) {
        assert!(rule_doc_ids[at..at + n].iter().all(|d| d == doc_id));
        at += n;
    }
}

#[test]
fn corrupt_member_in_the_middle_loses_only_that_record() {
    let dir = scratch("corrupt-member");
    let mut file = Vec::new();
    let mut corrupt_at = 0;
    for i in 0..20 {
        let body = format!("User-agent: *\nDisallow: /p{i}\n");
        let member = gz_record(
            "response",
            &format!("https://h{i}.example/robots.txt"),
            &http_block(200, body.as_bytes()),
        );
        if i == 10 {
            corrupt_at = file.len() + member.len() / 2;
        }
        file.extend_from_slice(&member);
    }
    for b in &mut file[corrupt_at..corrupt_at + 8] {
        *b ^= 0x5A;
    }
    let input = dir.join("corrupt.warc.gz");
    std::fs::write(&input, &file).expect("write input");
    let output = run_ok(&[input], &dir.join("out"), &[]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "finished with a skipped record"
    );
    let docs = read_table(&dir.join("out"), "documents");
    let urls: Vec<String> = strings(&docs, "url").into_iter().flatten().collect();
    assert_eq!(urls.len(), 19);
    for i in (0..20).filter(|i| *i != 10) {
        assert!(
            urls.contains(&format!("https://h{i}.example/robots.txt")),
            "record {i} kept"
        );
    }
    let errors = read_table(&dir.join("out"), "errors");
    // One record, one problem row, under the gzip damage's own code.
    let codes: Vec<String> = strings(&errors, "code").into_iter().flatten().collect();
    assert_eq!(codes.len(), 1, "{codes:?}");
    assert!(codes[0].starts_with("gzip_"), "a gzip error row: {codes:?}");
}

#[test]
fn broken_csv_row_is_skipped_alone() {
    let dir = scratch("broken-csv");
    let csv_text = "url,status,body\nhttps://a.example/robots.txt,200,\"User-agent: *\nDisallow: /a\n\"\nhttps://b.example/robots.txt,200,\"x\",extra,fields\nhttps://c.example/robots.txt,404,\"<html>\"\nhttps://d.example/robots.txt,200,\"User-agent: GPTBot\nDisallow: /\"\n";
    let input = dir.join("dump.csv");
    std::fs::write(&input, csv_text).expect("write csv");
    let output = run_ok(&[input], &dir.join("out"), &[]);
    assert_eq!(output.status.code(), Some(1));
    let docs = read_table(&dir.join("out"), "documents");
    let urls: Vec<String> = strings(&docs, "url").into_iter().flatten().collect();
    assert_eq!(
        urls,
        [
            "https://a.example/robots.txt",
            "https://c.example/robots.txt",
            "https://d.example/robots.txt"
        ]
    );
    let agents = read_table(&dir.join("out"), "agents");
    let rows: Vec<(String, String)> = strings(&agents, "agent")
        .into_iter()
        .zip(strings(&agents, "classification"))
        .map(|(a, c)| (a.unwrap_or_default(), c.unwrap_or_default()))
        .collect();
    assert_eq!(
        rows.iter()
            .filter(|(a, c)| a == "GPTBot" && c == "full_disallow")
            .count(),
        1
    );
    assert_eq!(
        rows.iter().filter(|(_, c)| c == "no_robots").count(),
        rows.len() / 3
    );
}

#[test]
fn huge_body_and_gzip_bomb_are_capped() {
    let dir = scratch("hostile");
    let mut body = b"User-agent: *\nDisallow: /a\n".to_vec();
    body.resize(100 * 1024 * 1024, b'#');
    let mut file = gz_record(
        "response",
        "https://big.example/robots.txt",
        &http_block(200, &body),
    );
    drop(body);
    let bomb = {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![b'\n'; 1 << 20];
        for _ in 0..512 {
            gz.write_all(&zeros).expect("bomb");
        }
        gz.finish().expect("bomb")
    };
    let mut block = format!("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n", bomb.len()).into_bytes();
    block.extend_from_slice(&bomb);
    file.extend(gz_record(
        "response",
        "https://bomb.example/robots.txt",
        &block,
    ));
    let input = dir.join("hostile.warc.gz");
    std::fs::write(&input, &file).expect("write input");
    run_ok(&[input], &dir.join("out"), &[]);
    let docs = read_table(&dir.join("out"), "documents");
    let (sizes, cut, parsed) = (
        ints(&docs, "body_size"),
        bools(&docs, "cut_at_500kib"),
        ints(&docs, "parsed_size"),
    );
    assert_eq!(
        sizes[0],
        Some(100 * 1024 * 1024),
        "the 100 MB body is counted in full"
    );
    assert_eq!((cut[0], parsed[0]), (Some(true), Some(512_000)));
    assert_eq!(ints(&docs, "n_disallow")[0], Some(1));
    assert!(
        sizes[1].is_some_and(|s| s < 2 * 512_000),
        "the bomb is not inflated past the cap: {:?}",
        sizes[1]
    );
    assert_eq!(bools(&docs, "body_size_is_lower_bound")[1], Some(true));
}

/// `errors.excerpt` by its rule (schemas/README.md), computed here without the engine's
/// renderer (from `str::from_utf8`'s error positions): valid UTF-8 with no control
/// character but tab as it is; otherwise each byte that is not UTF-8 or belongs to a
/// control character other than tab as `\xNN`, and each backslash doubled.
fn excerpt_by_the_rule(bytes: &[u8]) -> String {
    let hidden = |c: char| c.is_control() && c != '\t';
    if let Ok(text) = std::str::from_utf8(bytes) {
        if !text.chars().any(hidden) {
            return text.to_owned();
        }
    }
    let hex = |out: &mut String, bytes: &[u8]| {
        for b in bytes {
            out.push_str(&format!("\\x{b:02x}"));
        }
    };
    let mut out = String::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let (valid, bad) = match std::str::from_utf8(rest) {
            Ok(text) => (text, 0),
            Err(e) => (
                std::str::from_utf8(&rest[..e.valid_up_to()]).expect("valid prefix"),
                e.error_len().unwrap_or(rest.len() - e.valid_up_to()),
            ),
        };
        for c in valid.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                c if hidden(c) => hex(&mut out, c.to_string().as_bytes()),
                c => out.push(c),
            }
        }
        hex(&mut out, &rest[valid.len()..valid.len() + bad]);
        rest = &rest[valid.len() + bad..];
    }
    out
}

/// Bodies that are not text (UTF-16LE with its BOM, a Latin-1 line, an HTML page whose
/// body-level excerpt spans lines) run through the binary: the lint rows read back from
/// Parquet show their bytes as `\xNN`, and every lint row's excerpt is the rule above
/// applied to the engine's finding.
#[test]
fn lint_excerpts_show_bytes_that_are_not_text() {
    let dir = scratch("excerpts");
    let utf16: Vec<u8> = format!(
        "\u{feff}{}",
        "User-agent: *\nDisallow: /private/\n".repeat(4)
    )
    .encode_utf16()
    .flat_map(u16::to_le_bytes)
    .collect();
    let bodies: [(&str, Vec<u8>); 4] = [
        ("https://utf16.example/robots.txt", utf16),
        (
            "https://latin1.example/robots.txt",
            b"User-agent: *\nDisallow: /caf\xe9/\n".to_vec(),
        ),
        (
            "https://plain.example/robots.txt",
            "User-agent: *\nNoindex:\t/a\\b\nDisallow: /\u{1f600}\nDisallow: /x\0y\n"
                .as_bytes()
                .to_vec(),
        ),
        (
            "https://html.example/robots.txt",
            b"<html>\n<body>Not here</body>\n</html>\n".to_vec(),
        ),
    ];
    let mut warc = Vec::new();
    for (url, body) in &bodies {
        warc.extend(gz_record("response", url, &http_block(200, body)));
    }
    let input = dir.join("excerpts.warc.gz");
    std::fs::write(&input, &warc).expect("write input");
    run_ok(&[input], &dir.join("out"), &[]);

    let docs = read_table(&dir.join("out"), "documents");
    let url_of: HashMap<String, String> = ids(&docs, "doc_id")
        .into_iter()
        .zip(strings(&docs, "url"))
        .map(|(id, url)| (id.expect("doc_id"), url.expect("url")))
        .collect();
    let errors = read_table(&dir.join("out"), "errors");
    let mut rows: BTreeMap<String, Vec<(i64, String, String)>> = BTreeMap::new();
    let columns = ids(&errors, "doc_id")
        .into_iter()
        .zip(strings(&errors, "origin"))
        .zip(ints(&errors, "line"))
        .zip(strings(&errors, "code"))
        .zip(strings(&errors, "excerpt"));
    for ((((id, origin), line), code), excerpt) in columns {
        assert_eq!(origin.as_deref(), Some("lint"), "only lint rows");
        let url = &url_of[&id.expect("doc_id")];
        rows.entry(url.clone()).or_default().push((
            line.expect("line"),
            code.expect("code"),
            excerpt.expect("excerpt"),
        ));
    }

    let row = |url: &str, code: &str| -> String {
        let found = rows[url].iter().find(|r| r.1 == code);
        found
            .unwrap_or_else(|| panic!("{url}: no {code} row in {:?}", rows[url]))
            .2
            .clone()
    };
    let utf16 = row("https://utf16.example/robots.txt", "utf16_body");
    assert!(
        utf16.starts_with(r"\xff\xfeU\x00s\x00e\x00r\x00-\x00a\x00"),
        "{utf16}"
    );
    assert!(
        !utf16.contains('\u{fffd}') && !utf16.contains('\0'),
        "{utf16}"
    );
    assert_eq!(
        row("https://latin1.example/robots.txt", "invalid_utf8"),
        r"Disallow: /caf\xe9/"
    );
    assert!(
        row("https://html.example/robots.txt", "html_body").starts_with(r"<html>\x0a<body>"),
        "{:?}",
        rows["https://html.example/robots.txt"]
    );
    // Plain text keeps its tab and its single backslash.
    assert!(
        rows["https://plain.example/robots.txt"]
            .iter()
            .any(|r| r.0 == 2 && r.2 == "Noindex:\t/a\\b"),
        "{:?}",
        rows["https://plain.example/robots.txt"]
    );

    for (url, body) in &bodies {
        let want: Vec<(i64, String, String)> = RobotsTxt::parse(body)
            .findings
            .iter()
            .map(|f| {
                // The cut (200 bytes, back to a character boundary) splits no character
                // of these bodies: past the BOM every byte of a long excerpt is ASCII.
                let cut = &f.excerpt[..f.excerpt.len().min(200)];
                assert!(f.excerpt.len() <= 200 || f.excerpt[2..].is_ascii());
                let code = f.code.as_str().to_owned();
                (i64::from(f.line), code, excerpt_by_the_rule(cut))
            })
            .collect();
        assert_eq!(rows.get(*url).cloned().unwrap_or_default(), want, "{url}");
    }
}

#[test]
fn existing_output_is_refused_and_missing_inputs_are_error_rows() {
    let dir = scratch("exits");
    let out = dir.join("out");
    let sample = repo().join("data-samples/robots-dump.csv.gz");
    let missing = dir.join("no-such-file.warc.gz");
    let first = run(&[
        &*sample.to_string_lossy(),
        &*missing.to_string_lossy(),
        "--out",
        &*out.to_string_lossy(),
        "--quiet",
    ]);
    assert_eq!(
        first.status.code(),
        Some(1),
        "a missing input is a skipped input"
    );
    let errors = read_table(&out, "errors");
    assert!(strings(&errors, "code")
        .iter()
        .any(|c| c.as_deref() == Some("input_unreadable")));
    assert!(strings(&errors, "source")
        .iter()
        .any(|s| s.as_deref() == Some(&*missing.to_string_lossy())));
    assert_eq!(
        read_table(&out, "documents")
            .iter()
            .map(|b| b.num_rows())
            .sum::<usize>(),
        26,
        "the readable input is complete"
    );

    let again = run(&[
        &*sample.to_string_lossy(),
        "--out",
        &*out.to_string_lossy(),
        "--quiet",
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("--resume"),
        "the refusal says what to do"
    );
    let strict = run(&[
        &*missing.to_string_lossy(),
        "--out",
        &*out.to_string_lossy(),
        "--overwrite",
        "--strict",
        "--quiet",
    ]);
    assert_eq!(
        strict.status.code(),
        Some(2),
        "--strict turns a skip into failure"
    );
    let usage = run(&["--out", &*out.to_string_lossy()]);
    assert_eq!(usage.status.code(), Some(2), "no inputs is a usage error");
}

#[test]
fn killed_run_resumes_to_exactly_the_uninterrupted_rows() {
    let dir = scratch("resume");
    let inputs_dir = dir.join("inputs");
    std::fs::create_dir_all(&inputs_dir).expect("inputs dir");
    let sample =
        std::fs::read(repo().join("data-samples/cc-robotstxt-sample.warc.gz")).expect("sample");
    let inputs: Vec<PathBuf> = (0..24)
        .map(|i| {
            let path = inputs_dir.join(format!("part-{i:02}.warc.gz"));
            std::fs::write(&path, &sample).expect("copy sample");
            path
        })
        .collect();
    run_ok(&inputs, &dir.join("reference"), &["--threads", "2"]);

    let killed = dir.join("killed");
    let mut child = bin()
        .arg("run")
        .args(&inputs)
        .arg("--out")
        .arg(&killed)
        .args(["--quiet", "--threads", "2"])
        .spawn()
        .expect("spawn");
    // Kill once some inputs are complete and others are in flight.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let done = std::fs::read_dir(killed.join("_manifests")).map_or(0, |d| d.count());
        if done >= 3 || std::time::Instant::now() > deadline {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let done = std::fs::read_dir(killed.join("_manifests")).map_or(0, |d| d.count());
    assert!(
        done < inputs.len(),
        "the run was killed before it finished ({done} inputs done)"
    );

    run_ok(&inputs, &killed, &["--resume", "--threads", "2"]);
    assert_eq!(
        tree(&killed),
        tree(&dir.join("reference")),
        "resumed output equals the uninterrupted output"
    );
}

/// Finished task manifests under `out`.
fn manifest_count(out: &Path) -> usize {
    std::fs::read_dir(out.join("_manifests")).map_or(0, |d| {
        d.flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .count()
    })
}

/// A loopback HTTP server (127.0.0.1) with one object that it holds back: every GET
/// waits until [`HeldServer::release`], then gets the body in `pieces` pieces `pause`
/// apart, so that the input cannot end before the test lets it, nor for
/// `pieces * pause` after that. Every wait of its thread is bounded by `deadline`.
struct HeldServer {
    url: String,
    asked: std::sync::Arc<std::sync::atomic::AtomicBool>,
    released: std::sync::Arc<std::sync::atomic::AtomicBool>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HeldServer {
    fn start(
        body: Vec<u8>,
        pieces: usize,
        pause: std::time::Duration,
        deadline: std::time::Instant,
    ) -> HeldServer {
        use std::io::Write;
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let url = format!(
            "http://{}/held.warc.gz",
            listener.local_addr().expect("address")
        );
        let (asked, released, stop) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let flags = (asked.clone(), released.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let (asked, released, stop) = flags;
            let waiting = || !stop.load(Ordering::SeqCst) && std::time::Instant::now() < deadline;
            while waiting() {
                let mut conn = match listener.accept() {
                    Ok((conn, _)) => conn,
                    Err(_) => {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                        continue;
                    }
                };
                let _ = conn.set_nonblocking(false);
                let _ = conn.set_read_timeout(Some(std::time::Duration::from_secs(10)));
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match conn.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => break,
                    }
                }
                let get = head.starts_with(b"GET ");
                if get {
                    asked.store(true, Ordering::SeqCst);
                    while !released.load(Ordering::SeqCst) && waiting() {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    }
                }
                let header = [
                    "HTTP/1.1 200 OK".to_owned(),
                    format!("Content-Length: {}", body.len()),
                    "Content-Type: application/octet-stream".to_owned(),
                    "ETag: \"held\"".to_owned(),
                    "Last-Modified: Wed, 01 Jan 2025 00:00:00 GMT".to_owned(),
                    "Connection: close".to_owned(),
                    "\r\n".to_owned(),
                ]
                .join("\r\n");
                if conn.write_all(header.as_bytes()).is_err() || !get {
                    continue;
                }
                // The reader hangs up when it stops: the rest is not wanted.
                for piece in body.chunks(body.len().div_ceil(pieces).max(1)) {
                    if conn.write_all(piece).and_then(|()| conn.flush()).is_err() || !waiting() {
                        break;
                    }
                    std::thread::sleep(pause);
                }
            }
        });
        HeldServer {
            url,
            asked,
            released,
            stop,
            thread: Some(thread),
        }
    }

    /// Whether a GET of the object arrived (and is held).
    fn asked(&self) -> bool {
        self.asked.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn release(&self) {
        self.released
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for HeldServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A gzip WARC of `records` small robots.txt responses of hosts `<name>-<i>.example`.
fn small_warc(name: &str, records: usize) -> Vec<u8> {
    (0..records)
        .flat_map(|i| {
            let body = format!("User-agent: *\nDisallow: /private/{i}\n");
            gz_record(
                "response",
                &format!("https://{name}-{i}.example/robots.txt"),
                &http_block(200, body.as_bytes()),
            )
        })
        .collect()
}

/// Ctrl-C, and SIGTERM (what Kubernetes and AWS Batch send), stop the run at the
/// next record: finished tasks stay, no temporary file is left, exit 130 for both
/// (the handler takes SIGTERM as Ctrl-C; `run --help` documents 130 for both).
#[test]
fn ctrl_c_and_sigterm_stop_cleanly_and_keep_completed_tasks() {
    for signal in ["-INT", "-TERM"] {
        stops_cleanly_on(signal);
    }
}

/// Waits for `child` at most until `deadline`; kills it and fails past that.
fn wait_until(
    child: &mut std::process::Child,
    deadline: std::time::Instant,
    what: &str,
) -> std::process::ExitStatus {
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: the run did not end in time (killed)");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// The run reads three local inputs and one from a [`HeldServer`]; the signal is sent
/// once the three tasks are committed and the held input's GET is waiting, so the run
/// is certainly still working: it cannot end before the test releases the body, which
/// it does only after the signal, and the body then takes two seconds to arrive while
/// the handler sets its flag at once.
fn stops_cleanly_on(signal: &str) {
    let started = std::time::Instant::now();
    let deadline = started + std::time::Duration::from_secs(120);
    let dir = scratch(&format!("signal{signal}"));
    let inputs_dir = dir.join("inputs");
    std::fs::create_dir_all(&inputs_dir).expect("inputs dir");
    let local: Vec<PathBuf> = (0..3)
        .map(|i| {
            let path = inputs_dir.join(format!("part-{i:02}.warc.gz"));
            std::fs::write(&path, small_warc(&format!("local{i}"), 20)).expect("write input");
            path
        })
        .collect();
    let server = HeldServer::start(
        small_warc("held", 400),
        100,
        std::time::Duration::from_millis(20),
        deadline,
    );
    let out = dir.join("out");
    let stderr = dir.join("stderr.txt");
    let mut run = bin();
    run.arg("run")
        .args(&local)
        .arg(&server.url)
        .arg("--out")
        .arg(&out)
        .args(["--quiet", "--threads", "1", "--inputs-per-task", "1"])
        .stderr(std::fs::File::create(&stderr).expect("stderr file"));
    // Hermetic: the loopback server is asked directly, never through a proxy.
    for var in [
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
    ] {
        run.env_remove(var);
    }
    let mut child = run.spawn().expect("spawn");
    let log = || std::fs::read_to_string(&stderr).unwrap_or_default();
    while manifest_count(&out) < local.len() || !server.asked() {
        if let Some(status) = child.try_wait().expect("try_wait") {
            panic!(
                "{signal}: the run ended ({status}) before the signal, with the held input \
                 unreleased:\n{}",
                log()
            );
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{signal}: after 120 s, {} of {} local tasks done, held input asked: {}\n{}",
                manifest_count(&out),
                local.len(),
                server.asked(),
                log()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "{signal}: the run is still working when the signal is sent"
    );
    let status = std::process::Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    server.release();
    let exit = wait_until(&mut child, deadline, signal);
    assert_eq!(
        exit.code(),
        Some(130),
        "{signal}: an interrupted run exits 130 ({exit}):\n{}",
        log()
    );
    let done = manifest_count(&out);
    assert_eq!(
        done,
        local.len(),
        "{signal}: the completed tasks are kept and the interrupted one is not committed"
    );
    let files = tree(&out);
    assert!(
        files.keys().all(|p| !p.ends_with(".tmp")),
        "{signal}: no temporary file left: {:?}",
        files
            .keys()
            .filter(|p| p.ends_with(".tmp"))
            .collect::<Vec<_>>()
    );
    for table in ["documents", "rules", "errors"] {
        assert_eq!(
            parts(&out, table).len(),
            done,
            "{signal}: one part per completed task in {table}"
        );
    }
    let kept: usize = input_reports(&out)
        .iter()
        .map(|r| r["documents"].as_u64().expect("documents") as usize)
        .sum();
    assert_eq!(kept, 3 * 20, "{signal}: the completed tasks' documents");
}

/// The headline `run` ends with, parsed from its stderr: parsed captures, and per agent
/// the two shares as printed.
fn headline(stderr: &str) -> (u64, BTreeMap<String, (String, String)>) {
    let title = stderr
        .lines()
        .find(|l| l.contains("blocked, of "))
        .unwrap_or_else(|| panic!("no headline in:\n{stderr}"));
    let parsed = title
        .split("blocked, of ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("parsed captures in the title");
    let rows = stderr
        .lines()
        .skip_while(|l| !l.contains("fully blocked   by name"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            (
                cells[0].to_owned(),
                (cells[1].to_owned(), cells[2].to_owned()),
            )
        })
        .collect();
    (parsed, rows)
}

#[test]
fn the_closing_headline_counts_what_the_agents_table_holds() {
    let dir = scratch("headline");
    let csv = dir.join("dump.csv");
    let mut writer = csv::Writer::from_path(&csv).expect("write csv");
    writer
        .write_record(["url", "status", "body"])
        .expect("header");
    for row in [
        // GPTBot by name; captured twice (captures, not sites: both count).
        [
            "https://a.example/robots.txt",
            "200",
            "User-agent: GPTBot\nDisallow: /\n",
        ],
        [
            "https://a.example/robots.txt",
            "200",
            "User-agent: GPTBot\nDisallow: /\n",
        ],
        // Everyone through `*`.
        [
            "https://b.example/robots.txt",
            "200",
            "User-agent: *\nDisallow: /\n",
        ],
        // A path only: not fully blocked.
        [
            "https://c.example/robots.txt",
            "200",
            "User-agent: ClaudeBot\nDisallow: /private\n",
        ],
        // Not parsed: no robots.txt.
        ["https://d.example/robots.txt", "404", ""],
        // Parsed, but not a /robots.txt URL: not a robots.txt capture.
        [
            "https://e.example/page.html",
            "200",
            "User-agent: *\nDisallow: /\n",
        ],
    ] {
        writer.write_record(row).expect("row");
    }
    writer.flush().expect("flush");
    drop(writer);
    let out = dir.join("out");
    let args = |extra: &[&str]| {
        let mut cmd = bin();
        cmd.arg("run")
            .arg(&csv)
            .arg("--out")
            .arg(&out)
            .args([
                "--agents",
                "GPTBot,ClaudeBot,Googlebot",
                "--tables",
                "agents",
            ])
            .args(extra);
        let output = cmd.output().expect("run");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stderr).expect("stderr")
    };
    let first = args(&[]);
    let (parsed, rows) = headline(&first);

    // The same counts from the tables, read back.
    let docs = read_table(&out, "documents");
    let robots: HashMap<String, bool> = ids(&docs, "doc_id")
        .into_iter()
        .zip(bools(&docs, "is_robots_url"))
        .map(|(id, is)| (id.expect("doc_id"), is == Some(true)))
        .collect();
    let agents = read_table(&out, "agents");
    let mut counted: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for (((id, agent), root), named) in ids(&agents, "doc_id")
        .into_iter()
        .zip(strings(&agents, "agent"))
        .zip(bools(&agents, "root_allowed"))
        .zip(bools(&agents, "named"))
    {
        let (Some(id), Some(agent), Some(root)) = (id, agent, root) else {
            continue;
        };
        if !robots[&id] {
            continue;
        }
        let entry = counted.entry(agent).or_default();
        entry.0 += 1;
        entry.1 += u64::from(!root);
        entry.2 += u64::from(!root && named == Some(true));
    }
    let pct = |n: u64, of: u64| format!("{:.1}%", 100.0 * n as f64 / of as f64);
    assert_eq!(parsed, 4, "{first}");
    for (agent, (of, full, named)) in &counted {
        assert_eq!(*of, parsed, "{agent}");
        if agent == "Googlebot" {
            assert!(
                !rows.contains_key(agent),
                "a search crawler in the AI headline"
            );
            continue;
        }
        assert_eq!(
            rows[agent],
            (pct(*full, *of), pct(*named, *of)),
            "{agent}: {first}"
        );
    }
    // And by hand: GPTBot 3 of 4 (2 by name), ClaudeBot 1 of 4 (through `*`).
    assert_eq!(rows["GPTBot"], ("75.0%".into(), "50.0%".into()));
    assert_eq!(rows["ClaudeBot"], ("25.0%".into(), "0.0%".into()));

    // A resumed run reads the counts from the manifests: the same headline.
    let resumed = args(&["--resume"]);
    assert_eq!(headline(&resumed), (parsed, rows));
    // Without the agents table there is nothing to count, and no headline.
    let quiet = {
        let output = bin()
            .arg("run")
            .arg(&csv)
            .arg("--out")
            .arg(dir.join("groups-only"))
            .args(["--tables", "groups"])
            .output()
            .expect("run");
        String::from_utf8(output.stderr).expect("stderr")
    };
    assert!(!quiet.contains("blocked, of"), "{quiet}");
}
